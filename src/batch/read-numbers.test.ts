import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { NumericRangeError } from "../errors/errors.js";
import { readInt64, readNumbers } from "./read-numbers.js";
import { arrowColumn, MAX_SAFE, TWO_53, wideColumn } from "./test-support.js";
import { readValidity } from "./validity.js";

/** int64 words of bigints, to compare against readInt64's words. */
function wordsOf(values: readonly bigint[]): number[] {
  return Array.from(new Int32Array(BigInt64Array.from(values).buffer));
}

describe("readNumbers: every numeric type as doubles", () => {
  it("reads signed and unsigned integers of every width exactly, nulls as null rows", () => {
    const cases: [arrow.DataType, unknown[], number[]][] = [
      [new arrow.Int8(), [-128, 127, null, 0], [-128, 127, 0, 0]],
      [new arrow.Int16(), [-32768, 32767, null, 1], [-32768, 32767, 0, 1]],
      [new arrow.Int32(), [-2147483648, 2147483647, null, 2], [-2147483648, 2147483647, 0, 2]],
      [new arrow.Uint8(), [0, 255, null, 3], [0, 255, 0, 3]],
      [new arrow.Uint16(), [0, 65535, null, 4], [0, 65535, 0, 4]],
      [new arrow.Uint32(), [0, 4294967295, null, 5], [0, 4294967295, 0, 5]],
    ];
    for (const [type, values, expected] of cases) {
      const data = arrowColumn(type, values);
      expect(Array.from(readNumbers(data)), String(type)).toEqual(expected);
      expect(Array.from(readValidity(data)!), String(type)).toEqual([1, 1, 0, 1]);
    }
    const int64 = wideColumn(new arrow.Int64(), [-(TWO_53 - 1n), TWO_53 - 1n, -1n, 0n]);
    expect(Array.from(readNumbers(int64))).toEqual([-MAX_SAFE, MAX_SAFE, -1, 0]);
    const uint64 = wideColumn(new arrow.Uint64(), [0n, TWO_53 - 1n, 4294967296n]);
    expect(Array.from(readNumbers(uint64))).toEqual([0, MAX_SAFE, 4294967296]);
  });

  it("reads Float64 without a copy, Float32 widened, Float16 decoded (zeros, subnormals, infinities, NaN)", () => {
    const f64 = arrowColumn(new arrow.Float64(), [1.5, -0, null]);
    expect(readNumbers(f64).buffer).toBe((f64.values as Float64Array).buffer);
    expect(Array.from(readNumbers(arrowColumn(new arrow.Float32(), [0.1, -2.5, null])))).toEqual([Math.fround(0.1), -2.5, 0]);
    // float16 bits: 1.5, -0, 2^-24 (smallest subnormal), 65504 (largest finite), -Infinity, NaN
    const half = arrow.makeData({ type: new arrow.Float16(), length: 6, data: Uint16Array.of(0x3e00, 0x8000, 0x0001, 0x7bff, 0xfc00, 0x7e00) });
    expect(Array.from(readNumbers(half))).toEqual([1.5, -0, 2 ** -24, 65504, -Infinity, NaN]);
  });

  it("reads booleans as 0 / 1 from their bit offset", () => {
    const bools = arrowColumn(new arrow.Bool(), [true, false, true, true, null, false, true, false, true]).slice(3, 5);
    expect(Array.from(readNumbers(bools))).toEqual([1, 0, 0, 1, 0]);
    expect(Array.from(readValidity(bools)!)).toEqual([1, 0, 1, 1, 1]);
  });

  it("reads a slice from its first row", () => {
    const int64 = wideColumn(new arrow.Int64(), [1n, -2n, 3n, -4n]).slice(1, 2);
    expect(Array.from(readNumbers(int64))).toEqual([-2, 3]);
    const micros = wideColumn(new arrow.TimestampMicrosecond(), [1000n, 2999n, -1n]).slice(1, 2);
    expect(Array.from(readNumbers(micros))).toEqual([2, -1]);
  });
});

describe("readNumbers: int64 beyond ±(2^53 - 1) raises instead of rounding", () => {
  it("accepts ±(2^53 - 1) and raises for 2^53, 2^53 + 1, -2^53 and -(2^53 + 1), naming the column and the exact value", () => {
    expect(Array.from(readNumbers(wideColumn(new arrow.Int64(), [TWO_53 - 1n, -(TWO_53 - 1n)])))).toEqual([MAX_SAFE, -MAX_SAFE]);
    for (const value of [TWO_53, TWO_53 + 1n, -TWO_53, -(TWO_53 + 1n), 2n ** 63n - 1n, -(2n ** 63n)]) {
      const data = wideColumn(new arrow.Int64(), [0n, value]);
      expect(() => readNumbers(data, "id")).toThrow(NumericRangeError);
      expect(() => readNumbers(data, "id")).toThrow(`int64 column "id" holds ${value}, beyond ±(2^53 - 1) = ±9007199254740991`);
    }
  });

  it("ignores whatever a null row holds", () => {
    const data = wideColumn(new arrow.Int64(), [1n, TWO_53 + 1n, 3n], [1, 0, 1]);
    expect(Array.from(readNumbers(data))).toEqual([1, 9007199254740992, 3]);
    expect(readInt64(data).words).toBeNull();
  });

  it("raises for a Uint64 at 2^53 and beyond as well", () => {
    expect(() => readNumbers(wideColumn(new arrow.Uint64(), [TWO_53 + 1n]), "u")).toThrow(`int64 column "u" holds 9007199254740993`);
  });
});

describe("readInt64: exact words for keys, ordering and exact casts", () => {
  it("returns no words while every valid value is exact, and the column's own words when one is not", () => {
    const exact = readInt64(wideColumn(new arrow.Int64(), [-(TWO_53 - 1n), 7n]));
    expect(exact.words).toBeNull();
    expect(Array.from(exact.values)).toEqual([-MAX_SAFE, 7]);

    const wide = wideColumn(new arrow.Int64(), [TWO_53, TWO_53 + 1n, -(TWO_53 + 1n), -1n]);
    const read = readInt64(wide);
    expect(Array.from(read.words!)).toEqual(wordsOf([TWO_53, TWO_53 + 1n, -(TWO_53 + 1n), -1n]));
    expect(read.words!.buffer).toBe((wide.values as BigInt64Array).buffer);
    // The doubles are only the nearest ones: 2^53 + 1 rounds to 2^53.
    expect(Array.from(read.values)).toEqual([2 ** 53, 2 ** 53, -(2 ** 53), -1]);
  });

  it("reads Uint64 up to the int64 maximum and refuses anything above", () => {
    expect(Array.from(readInt64(wideColumn(new arrow.Uint64(), [2n ** 63n - 1n])).words!)).toEqual(wordsOf([2n ** 63n - 1n]));
    expect(() => readInt64(wideColumn(new arrow.Uint64(), [0n, 2n ** 64n - 1n]), "u")).toThrow(
      'Uint64 column "u" holds 18446744073709551615, above the int64 maximum 9223372036854775807',
    );
    expect(readInt64(wideColumn(new arrow.Uint64(), [1n, 2n ** 64n - 1n], [1, 0])).words).toBeNull();
  });

  it("passes narrower integers through as doubles", () => {
    const read = readInt64(arrowColumn(new arrow.Int32(), [5, null]));
    expect(read.words).toBeNull();
    expect(Array.from(read.values)).toEqual([5, 0]);
  });
});
