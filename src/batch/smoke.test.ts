import { describe, expect, it } from "vitest";
import { float64Column, makeBatch, readNumbers, readString, timestampColumn, toRecordBatch, utf8FromStrings } from "./batch.js";

describe("Batch", () => {
  it("reads timestamps as float64 milliseconds and strings by offset", () => {
    const ts = timestampColumn(Float64Array.of(0, 1_700_000_000_123, -5));
    expect(Array.from(readNumbers(ts))).toEqual([0, 1_700_000_000_123, -5]);
    const s = utf8FromStrings(["a", null, "héllo"]);
    expect([0, 1, 2].map((i) => readString(s, i))).toEqual(["a", null, "héllo"]);
    const b = makeBatch(
      [
        { name: "x", type: "float64", nullable: false },
        { name: "s", type: "string", nullable: true },
        { name: "t", type: "timestamp", nullable: false },
      ],
      [float64Column(Float64Array.of(1, 2, 3)), s, ts],
    );
    expect(toRecordBatch(b).toArray().map((r) => r.toJSON())).toEqual([
      { x: 1, s: "a", t: 0 },
      { x: 2, s: null, t: 1_700_000_000_123 },
      { x: 3, s: "héllo", t: -5 },
    ]);
  });
});

describe("sliced columns", () => {
  it("read values from where the slice starts", () => {
    const nums = float64Column(Float64Array.of(1, 2, 3, 4)).slice(1, 2);
    expect(Array.from(readNumbers(nums))).toEqual([2, 3]);
    const ts = timestampColumn(Float64Array.of(10, 20, 30)).slice(1, 2);
    expect(Array.from(readNumbers(ts))).toEqual([20, 30]);
    const s = utf8FromStrings(["a", "b", "c"]).slice(1, 2);
    expect([readString(s, 0), readString(s, 1)]).toEqual(["b", "c"]);
  });
});
