import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { AnalysisError, NumericRangeError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import { field } from "./batch.js";
import { batchToRows, rowsToBatch } from "./rows.js";

const fields: Fields = [
  field("s", "string"),
  field("x", "float64"),
  field("i", "int32"),
  field("l", "int64"),
  field("b", "boolean"),
  field("t", "timestamp"),
  field("w", "window"),
  field("y", "binary"),
];

describe("rowsToBatch / batchToRows", () => {
  it("round-trip every type and nulls", () => {
    const rows = [
      { s: "héllo", x: 0.25, i: -3, l: 2 ** 53 - 1, b: true, t: new Date("2024-01-01T00:00:00.123Z"), w: { start: new Date(0), end: new Date(60_000) }, y: Uint8Array.of(0xff, 0, 0x80) },
      { s: null, x: null, i: null, l: null, b: null, t: null, w: null, y: null },
    ];
    const batch = rowsToBatch(rows, fields);
    expect(batch.numRows).toBe(2);
    expect(batch.columns.map((c) => c.type.toString())).toEqual([
      "Utf8",
      "Float64",
      "Int32",
      "Int64",
      "Bool",
      "Timestamp<MILLISECOND>",
      "Struct<{start:Timestamp<MILLISECOND>, end:Timestamp<MILLISECOND>}>",
      "Binary",
    ]);
    expect(batchToRows(batch)).toEqual(rows);
  });

  it("take binary values as Uint8Array or Buffer and hand each row a copy of its bytes", () => {
    const batch = rowsToBatch([{ y: Buffer.from("hi") }, { y: new Uint8Array(0) }], [field("y", "binary")]);
    const [first, second] = batchToRows(batch) as { y: Uint8Array }[];
    expect(first!.y).toEqual(Uint8Array.of(0x68, 0x69));
    expect(second!.y).toEqual(new Uint8Array(0));
    first!.y[0] = 0;
    expect(batchToRows(batch)[0]).toEqual({ y: Uint8Array.of(0x68, 0x69) });
    expect(() => rowsToBatch([{ y: "hi" }], [field("y", "binary")])).toThrow('row 0, column "y": expected a Uint8Array (or Buffer) (binary), got "hi"');
    expect(() => rowsToBatch([{ s: Uint8Array.of(1, 2) }], [field("s", "string")])).toThrow('row 0, column "s": expected a string (string), got a Uint8Array of 2 bytes');
  });

  it("accept epoch milliseconds and ISO-8601 text for timestamps, and treat undefined as null", () => {
    const batch = rowsToBatch([{ t: 1500 }, { t: "2024-01-01T00:00:00Z" }, { t: undefined }, {}], [field("t", "timestamp")]);
    expect(batchToRows(batch)).toEqual([{ t: new Date(1500) }, { t: new Date("2024-01-01T00:00:00Z") }, { t: null }, { t: null }]);
  });

  it("name the row, column and expected type of a wrong value", () => {
    const f = [field("n", "int32")];
    expect(() => rowsToBatch([{ n: 1 }, { n: "2" }], f)).toThrow(AnalysisError);
    expect(() => rowsToBatch([{ n: 1 }, { n: "2" }], f)).toThrow('row 1, column "n": expected an integer in the int32 range (int32), got "2"');
    expect(() => rowsToBatch([{ n: 1.5 }], f)).toThrow(/row 0, column "n".*int32/);
    expect(() => rowsToBatch([{ t: "soon" }], [field("t", "timestamp")])).toThrow(/row 0, column "t".*timestamp/);
    expect(() => rowsToBatch([{ w: { start: 1 } }], [field("w", "window")])).toThrow(/row 0, column "w".*window/);
  });

  it("keep int64 exact from bigints, refuse unsafe numbers, and refuse to hand back an int64 a number cannot hold", () => {
    const f = [field("l", "int64")];
    const batch = rowsToBatch([{ l: 2n ** 53n + 1n }, { l: -(2n ** 63n) }, { l: 2 ** 53 - 1 }, { l: 6n }], f);
    expect(Array.from(batch.columns[0]!.values as BigInt64Array)).toEqual([2n ** 53n + 1n, -(2n ** 63n), 2n ** 53n - 1n, 6n]);
    // A number past 2^53 - 1 may already be rounded (2 ** 53 + 1 === 2 ** 53), so only a bigint says it exactly.
    expect(() => rowsToBatch([{ l: 2 ** 53 }], f)).toThrow(
      'row 0, column "l": expected a safe integer (within ±(2^53 - 1)) or a bigint within the int64 range (int64), got number 9007199254740992',
    );
    expect(() => rowsToBatch([{ l: 2n ** 63n }], f)).toThrow(/row 0, column "l": expected a safe integer/);
    expect(() => batchToRows(batch)).toThrow(NumericRangeError);
    expect(() => batchToRows(batch)).toThrow('int64 column "l" holds 9007199254740993, beyond ±(2^53 - 1)');
    expect(batchToRows(rowsToBatch([{ l: 6n }, { l: -(2 ** 53 - 1) }], f))).toEqual([{ l: 6 }, { l: -(2 ** 53 - 1) }]);
    // For display, such values may come back as bigints instead.
    expect(batchToRows(batch, { bigintBeyondExact: true })).toEqual([{ l: 2n ** 53n + 1n }, { l: -(2n ** 63n) }, { l: 2 ** 53 - 1 }, { l: 6 }]);
  });

  it("floor a fraction of a millisecond, as every time conversion does, and refuse times outside the Date range", () => {
    const f = [field("t", "timestamp")];
    expect(batchToRows(rowsToBatch([{ t: -0.5 }, { t: 1.5 }, { t: -1.5 }], f))).toEqual([{ t: new Date(-1) }, { t: new Date(1) }, { t: new Date(-2) }]);
    expect(() => rowsToBatch([{ t: 8.64e15 + 1 }], f)).toThrow(/row 0, column "t": expected a Date, epoch milliseconds within ±8.64e15/);
  });

  it("reject a null in a non-nullable column", () => {
    expect(() => rowsToBatch([{ s: "a" }, { s: null }], [field("s", "string", false)])).toThrow(
      'row 1, column "s": expected a string (string) (the column is not nullable), got null',
    );
  });

  it("build plain Utf8 columns, never dictionaries", () => {
    const batch = rowsToBatch([{ s: "a" }, { s: "a" }], [field("s", "string")]);
    expect(batch.columns[0].type).toBeInstanceOf(arrow.Utf8);
    expect(batch.columns[0].nullCount).toBe(0);
  });

  it("read a column named __proto__ as data, not as the row's prototype", () => {
    const rows = [JSON.parse('{"__proto__": "p"}') as Record<string, unknown>];
    const out = batchToRows(rowsToBatch(rows, [field("__proto__", "string")]));
    expect(Object.getPrototypeOf(out[0])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out[0], "__proto__")?.value).toBe("p");
  });
});
