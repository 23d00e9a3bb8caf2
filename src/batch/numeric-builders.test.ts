import type * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { NumericRangeError } from "../errors/errors.js";
import { int64FromNumbers, numberColumn, timestampColumn } from "./numeric-builders.js";
import { MAX_SAFE, TWO_53 } from "./test-support.js";

describe("builders: Sluice's columns from typed arrays and computed doubles", () => {
  /** The int64 values of a built column, as bigints. */
  const int64s = (data: arrow.Data) => Array.from(data.values as BigInt64Array);

  it("int64FromNumbers writes integral doubles exactly, truncating fractions toward zero", () => {
    const data = int64FromNumbers(Float64Array.of(-MAX_SAFE, MAX_SAFE, -2.7, 3.99, -0, 4294967296));
    expect(String(data.type)).toBe("Int64");
    expect(int64s(data)).toEqual([-(TWO_53 - 1n), TWO_53 - 1n, -2n, 3n, 0n, 4294967296n]);
  });

  it("int64FromNumbers raises for a computed result beyond ±(2^53 - 1) or NaN, but not at a null row", () => {
    expect(() => int64FromNumbers(Float64Array.of(1, 2 ** 53))).toThrow("an int64 result of 9007199254740992 is beyond ±(2^53 - 1)");
    expect(() => int64FromNumbers(Float64Array.of(-(2 ** 60)))).toThrow("an int64 result of -1152921504606846976 is beyond");
    expect(() => int64FromNumbers(Float64Array.of(NaN))).toThrow("an int64 result of NaN is beyond");
    const withNull = int64FromNumbers(Float64Array.of(5, NaN, 2 ** 60), Uint8Array.of(0b001), 2);
    expect(int64s(withNull)[0]).toBe(5n);
    expect(withNull.nullCount).toBe(2);
  });

  it("timestampColumn writes Timestamp(ms), flooring fractions, and refuses times outside the Date range", () => {
    const data = timestampColumn(Float64Array.of(-0.5, 1.5, -1, 8.64e15));
    expect(String(data.type)).toBe("Timestamp<MILLISECOND>");
    expect(int64s(data)).toEqual([-1n, 1n, -1n, 8_640_000_000_000_000n]);
    expect(() => timestampColumn(Float64Array.of(0, 8.64e15 + 1))).toThrow(NumericRangeError);
    expect(() => timestampColumn(Float64Array.of(NaN))).toThrow("a time column holds NaN");
    expect(int64s(timestampColumn(Float64Array.of(NaN, 7), Uint8Array.of(0b10), 1))[1]).toBe(7n);
  });

  it("numberColumn builds each Sluice number type from kernel values and validity bytes", () => {
    const valid = Uint8Array.of(1, 0, 1);
    const f = numberColumn("float64", Float64Array.of(1.5, 0, -2), valid);
    expect([String(f.type), f.nullCount, Array.from(f.values as Float64Array)]).toEqual(["Float64", 1, [1.5, 0, -2]]);
    // int32 results are kept wrapped by the kernels; the store wraps once more (Java int arithmetic).
    const i = numberColumn("int32", Float64Array.of(2 ** 31, -1, 7), null);
    expect([String(i.type), Array.from(i.values as Int32Array)]).toEqual(["Int32", [-2147483648, -1, 7]]);
    const t = numberColumn("timestamp", Float64Array.of(10.9, NaN, -10.1), valid);
    expect([String(t.type), t.nullCount, int64s(t)]).toEqual(["Timestamp<MILLISECOND>", 1, [10n, 0n, -11n]]);
    // Exact words win over the doubles.
    const words = new Int32Array(new BigInt64Array([TWO_53 + 1n, 0n, -(TWO_53 + 1n)]).buffer);
    const l = numberColumn("int64", Float64Array.of(2 ** 53, 0, -(2 ** 53)), valid, words);
    expect([String(l.type), l.nullCount, int64s(l)]).toEqual(["Int64", 1, [TWO_53 + 1n, 0n, -(TWO_53 + 1n)]]);
  });
});
