import { describe, expect, it } from "vitest";
import { generateRateRows } from "./generate-rate-rows.js";

describe("generateRateRows", () => {
  it("gives one partition's sequence values as Int64 and their times as Timestamp(ms), floored", () => {
    const batch = generateRateRows({ kind: "rate", partition: 1, numPartitions: 3, startSeq: 10, endSeq: 20, rowsPerSecond: 3, startTimeMs: -1000 });
    expect(batch.columns.map((c) => String(c.type))).toEqual(["Timestamp<MILLISECOND>", "Int64"]);
    expect(Array.from(batch.columns[1]!.values as BigInt64Array)).toEqual([10n, 13n, 16n, 19n]);
    // startTime + v / rowsPerSecond seconds: 10 / 3 s is 3333.33 ms, floored.
    expect(Array.from(batch.columns[0]!.values as BigInt64Array)).toEqual([2333n, 3333n, 4333n, 5333n]);
  });

  it("gives no rows when the range holds none of the partition's values", () => {
    const batch = generateRateRows({ kind: "rate", partition: 2, numPartitions: 3, startSeq: 0, endSeq: 2, rowsPerSecond: 1, startTimeMs: 0 });
    expect(batch.numRows).toBe(0);
    expect(batch.columns.map((c) => String(c.type))).toEqual(["Timestamp<MILLISECOND>", "Int64"]);
  });
});
