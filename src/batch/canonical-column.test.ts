import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { canonicalColumn } from "./canonical-column.js";
import { readNumbers } from "./read-numbers.js";
import { arrowColumn, TWO_53, wideColumn } from "./test-support.js";
import { readValidity } from "./validity.js";

describe("canonicalColumn: any numeric or temporal column in Sluice's Arrow types", () => {
  /** Row values as Arrow JS reads them: timestamps as epoch ms, Int64 as bigint, nulls as null. */
  const values = (data: arrow.Data) => [...new arrow.Vector([data])];

  it("keeps columns already canonical as they are", () => {
    for (const [type, data] of [
      ["float64", arrowColumn(new arrow.Float64(), [1.5])],
      ["int32", arrowColumn(new arrow.Int32(), [1])],
      ["int64", wideColumn(new arrow.Int64(), [TWO_53 + 1n])],
      ["timestamp", wideColumn(new arrow.TimestampMillisecond(), [1n])],
      ["string", arrowColumn(new arrow.Utf8(), ["a"])],
      ["boolean", arrowColumn(new arrow.Bool(), [true])],
    ] as const) {
      expect(canonicalColumn(data, type, "c")).toBe(data);
    }
  });

  it("reuses the buffers where only the type differs: Timestamp(ms) with a time zone, Date64, Uint64 within int64", () => {
    for (const [type, data, expected] of [
      ["timestamp", wideColumn(new arrow.TimestampMillisecond("UTC"), [-1n, 5n]), "Timestamp<MILLISECOND>"],
      ["timestamp", wideColumn(new arrow.DateMillisecond(), [86_400_000n, 0n]), "Timestamp<MILLISECOND>"],
      ["int64", wideColumn(new arrow.Uint64(), [TWO_53 + 1n, 0n]), "Int64"],
    ] as const) {
      const out = canonicalColumn(data, type, "c");
      expect(String(out.type)).toBe(expected);
      expect((out.values as BigInt64Array).buffer).toBe((data.values as BigInt64Array).buffer);
      expect(Array.from(out.values as BigInt64Array)).toEqual(Array.from(new BigInt64Array((data.values as BigInt64Array).buffer)));
    }
  });

  it("widens narrower integers and floats, and converts other time units once", () => {
    const cases: [arrow.Data, "float64" | "int32" | "int64" | "timestamp", string, unknown[]][] = [
      [arrowColumn(new arrow.Int8(), [-3, null, 4]), "int32", "Int32", [-3, null, 4]],
      [arrowColumn(new arrow.Uint16(), [65535, null, 0]), "int32", "Int32", [65535, null, 0]],
      [arrowColumn(new arrow.Uint32(), [4294967295, null, 1]), "int64", "Int64", [4294967295n, null, 1n]],
      [arrowColumn(new arrow.Float32(), [0.5, null, -1]), "float64", "Float64", [0.5, null, -1]],
      [wideColumn(new arrow.TimestampMicrosecond("UTC"), [-1n, 0n, 1_700_000_000_123_456n], [1, 0, 1]), "timestamp", "Timestamp<MILLISECOND>", [-1, null, 1_700_000_000_123]],
      [wideColumn(new arrow.TimestampNanosecond(), [-1n, 0n, 1_700_000_000_123_999_999n], [1, 0, 1]), "timestamp", "Timestamp<MILLISECOND>", [-1, null, 1_700_000_000_123]],
      [wideColumn(new arrow.TimestampSecond(), [-1n, 0n, 2n], [1, 0, 1]), "timestamp", "Timestamp<MILLISECOND>", [-1000, null, 2000]],
      [arrow.makeData({ type: new arrow.DateDay(), length: 3, data: Int32Array.of(-1, 0, 1), nullBitmap: Uint8Array.of(0b101) }), "timestamp", "Timestamp<MILLISECOND>", [-86_400_000, null, 86_400_000]],
    ];
    for (const [data, type, arrowType, expected] of cases) {
      const out = canonicalColumn(data, type, "c");
      expect(String(out.type), String(data.type)).toBe(arrowType);
      expect(values(out), String(data.type)).toEqual(expected);
    }
  });

  it("keeps a slice's rows and nulls", () => {
    const micros = wideColumn(new arrow.TimestampMicrosecond(), [1000n, 2000n, 3000n, 4000n, 5000n], [1, 1, 0, 1, 1]).slice(1, 3);
    const out = canonicalColumn(micros, "timestamp", "t");
    expect(values(out)).toEqual([2, null, 4]);
    expect(Array.from(readValidity(out)!)).toEqual([1, 0, 1]);
  });

  it("converts the bounds of a window struct and names the bound in errors", () => {
    const bounds = (v: bigint[]) => wideColumn(new arrow.TimestampMicrosecond(), v);
    const struct = new arrow.Struct([new arrow.Field("start", new arrow.TimestampMicrosecond(), false), new arrow.Field("end", new arrow.TimestampMicrosecond(), false)]);
    const window = arrow.makeData({ type: struct, length: 2, children: [bounds([-1n, 60_000_000n]), bounds([59_999_999n, 120_000_000n])] });
    const out = canonicalColumn(window, "window", "w");
    expect(out.children.map((c) => String(c.type))).toEqual(["Timestamp<MILLISECOND>", "Timestamp<MILLISECOND>"]);
    expect(out.children.map((c) => Array.from(readNumbers(c)))).toEqual([
      [-1, 60_000],
      [59_999, 120_000],
    ]);
    const bad = arrow.makeData({ type: struct, length: 1, children: [bounds([0n]), wideColumn(new arrow.TimestampMicrosecond(), [2n ** 63n - 1n])] });
    expect(() => canonicalColumn(bad, "window", "w")).toThrow('time column "w.end" holds');
  });

  it("refuses a Uint64 above the int64 maximum, naming the column", () => {
    expect(() => canonicalColumn(wideColumn(new arrow.Uint64(), [2n ** 63n]), "int64", "big")).toThrow('Uint64 column "big" holds 9223372036854775808');
  });
});
