import { describe, expect, it } from "vitest";
import { field, makeBatch } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError, NumericRangeError } from "../errors/errors.js";
import type { DType } from "../types/dtype.js";
import type { Expr } from "./ast.js";
import { evaluate } from "./compile.js";

/** CAST(v AS to) over a one-column batch of `values` typed `from`. */
function cast(from: DType, to: DType, values: unknown[]): unknown[] {
  const batch = rowsToBatch(
    values.map((v) => ({ v })),
    [field("v", from)],
  );
  const data = evaluate({ kind: "cast", child: { kind: "col", name: "v" }, to }, batch);
  return batchToRows(makeBatch([field("out", to)], [data])).map((r) => r.out);
}

describe("cast from string", () => {
  it("to integers: trims, drops a fraction, and gives null for text, exponents and overflow", () => {
    expect(cast("string", "int32", ["12", " 7 ", "1.9", "-1.9", "abc", "1e3", "2147483648", "", null])).toEqual([12, 7, 1, -1, null, null, null, null, null]);
    expect(cast("string", "int64", ["9007199254740991", "-42"])).toEqual([9007199254740991, -42]);
  });

  it("to float64: accepts exponents and Spark's special values", () => {
    expect(cast("string", "float64", ["1.5", " -2e3 ", "NaN", "Infinity", "-inf", "abc", ".5", "5."])).toEqual([1.5, -2000, NaN, Infinity, -Infinity, null, 0.5, 5]);
  });

  it("to boolean: t/true/y/yes/1 and f/false/n/no/0 in any case, else null", () => {
    expect(cast("string", "boolean", ["true", "FALSE", " yes ", "0", "maybe", null])).toEqual([true, false, true, false, null, null]);
  });

  it("to timestamp: ISO-8601 in UTC, else null", () => {
    expect(cast("string", "timestamp", ["2024-01-01 00:00:00", "2024-01-01T12:00:00.5Z", "yesterday"])).toEqual([
      new Date("2024-01-01T00:00:00Z"),
      new Date("2024-01-01T12:00:00.500Z"),
      null,
    ]);
  });
});

describe("casts of int64 beyond ±(2^53 - 1)", () => {
  /** CAST over an int64 column built from bigints (rows cannot carry such values as numbers). */
  const castLongs = (to: DType, values: bigint[]) => cast("int64", to, values);

  it("parse and print every digit, where they used to round to the nearest double", () => {
    expect(castLongs("string", [2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n, 5n])).toEqual(["9007199254740993", "-9223372036854775808", "9223372036854775807", "5"]);
    const parsed = evaluate(
      { kind: "cast", child: { kind: "col", name: "v" }, to: "int64" },
      rowsToBatch(["9007199254740993", " -9223372036854775808 ", "9223372036854775808", "12.9"].map((v) => ({ v })), [field("v", "string")]),
    );
    expect(Array.from(parsed.values as BigInt64Array).filter((_, i) => i !== 2)).toEqual([2n ** 53n + 1n, -(2n ** 63n), 12n]);
    expect(parsed.nullCount).toBe(1);
  });

  it("keep the low word for int32 and test for zero for boolean exactly; float64 takes the nearest double", () => {
    expect(castLongs("int32", [2n ** 53n + 5n, -(2n ** 53n) - 1n])).toEqual([5, -1]);
    expect(castLongs("boolean", [2n ** 60n, 0n])).toEqual([true, false]);
    expect(castLongs("float64", [2n ** 53n + 1n])).toEqual([2 ** 53]);
  });

  it("write a double cast to int64 as its exact integer, saturating as Java does", () => {
    const longs = evaluate({ kind: "cast", child: { kind: "col", name: "v" }, to: "int64" }, rowsToBatch([{ v: 2 ** 60 }, { v: 1e19 }, { v: -2.5 }], [field("v", "float64")]));
    expect(Array.from(longs.values as BigInt64Array)).toEqual([2n ** 60n, 2n ** 63n - 1n, -2n]);
  });

  it("print an integral double beyond 2^53 with its exact digits, as to_json does (not JavaScript's 1152921504606847000)", () => {
    const text = evaluate({ kind: "lit", value: 2 ** 60, type: "string" }, rowsToBatch([{}], []));
    expect(batchToRows(makeBatch([field("s", "string")], [text]))).toEqual([{ s: "1152921504606846976" }]);
  });

  it("raise instead of computing with them, or of printing a computed int64 that may be rounded", () => {
    expect(() => castLongs("timestamp", [2n ** 53n + 1n])).toThrow(NumericRangeError);
    const big = rowsToBatch([{ v: 2 ** 52 }], [field("v", "int64")]);
    const doubled = { kind: "arith", op: "*", left: { kind: "col", name: "v" }, right: { kind: "lit", value: 4, type: "int64" } } as const;
    expect(() => evaluate(doubled, big)).toThrow("an int64 result of 18014398509481984 is beyond ±(2^53 - 1)");
    expect(() => evaluate({ kind: "cast", child: doubled, to: "string" }, big)).toThrow(NumericRangeError);
  });
});

describe("cast to string", () => {
  it("prints timestamps as yyyy-MM-dd HH:mm:ss in UTC, with a fraction only when it is non-zero", () => {
    expect(cast("timestamp", "string", [0, 500, 1_704_067_200_123, 1_704_067_200_120, -1])).toEqual([
      "1970-01-01 00:00:00",
      "1970-01-01 00:00:00.5",
      "2024-01-01 00:00:00.123",
      "2024-01-01 00:00:00.12",
      "1969-12-31 23:59:59.999",
    ]);
  });

  it("prints doubles as Java does and integers and booleans plainly", () => {
    expect(cast("float64", "string", [1, 0.1, 1e7, 1.5e-5, -0, NaN, 123456.789, -Infinity])).toEqual(["1.0", "0.1", "1.0E7", "1.5E-5", "-0.0", "NaN", "123456.789", "-Infinity"]);
    expect(cast("int32", "string", [-5, 0, null])).toEqual(["-5", "0", null]);
    expect(cast("boolean", "string", [true, false])).toEqual(["true", "false"]);
  });
});

describe("cast between numbers, booleans and timestamps", () => {
  it("truncates doubles toward zero, saturating at the int32 bounds, NaN -> 0", () => {
    expect(cast("float64", "int32", [1.9, -1.9, 1e10, -1e10, NaN])).toEqual([1, -1, 2147483647, -2147483648, 0]);
    expect(cast("float64", "int64", [-2.7, 3.99])).toEqual([-2, 3]);
  });

  it("wraps int64 to int32 by keeping the low 32 bits", () => {
    expect(cast("int64", "int32", [2 ** 32 + 5, -1, 2 ** 31])).toEqual([5, -1, -2147483648]);
  });

  it("maps booleans to 1/0 and numbers to true when non-zero", () => {
    expect(cast("boolean", "int32", [true, false, null])).toEqual([1, 0, null]);
    expect(cast("float64", "boolean", [0, 2.5, NaN, -0])).toEqual([false, true, true, false]);
  });

  it("converts timestamps to and from epoch seconds", () => {
    expect(cast("timestamp", "int64", [1500, -1])).toEqual([1, -1]);
    expect(cast("timestamp", "float64", [1500])).toEqual([1.5]);
    expect(cast("int32", "timestamp", [60])).toEqual([new Date(60_000)]);
    expect(cast("float64", "timestamp", [1.25, NaN, Infinity])).toEqual([new Date(1250), null, null]);
  });
});

describe("cast plumbing", () => {
  it("passes a column through untouched when the type does not change", () => {
    const batch = rowsToBatch([{ v: 1.5 }], [field("v", "float64")]);
    expect(evaluate({ kind: "cast", child: { kind: "col", name: "v" }, to: "float64" }, batch)).toBe(batch.columns[0]);
  });

  it("rejects casts to and from window", () => {
    const batch = rowsToBatch([{ v: 1 }], [field("v", "int32")]);
    const e: Expr = { kind: "cast", child: { kind: "col", name: "v" }, to: "window" };
    expect(() => evaluate(e, batch)).toThrow(AnalysisError);
  });
});
