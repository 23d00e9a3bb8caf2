import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { NumericRangeError } from "../errors/errors.js";
import {
  canonicalColumn,
  int64FromNumbers,
  int64Text,
  int64WordsFromDoubles,
  int64WordsOfProducts,
  numberColumn,
  readInt64,
  readNumbers,
  setInt64FromText,
  timestampColumn,
} from "./numeric-columns.js";
import { readValidity } from "./validity.js";

const TWO_53 = 2n ** 53n;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A column of `type` from plain values (null = null row), built by Arrow JS's own builder. */
function arrowColumn<T extends arrow.DataType>(type: T, values: readonly unknown[]): arrow.Data<T> {
  return arrow.vectorFromArray(values as never[], type).data[0] as arrow.Data<T>;
}

/** A 64-bit column straight from bigints, with nulls where `valid` is 0 (the slot keeps its value). */
function wideColumn<T extends arrow.DataType>(type: T, values: readonly bigint[], valid?: readonly number[]): arrow.Data<T> {
  const data = type.ArrayType === BigUint64Array ? BigUint64Array.from(values, (v) => BigInt.asUintN(64, v)) : BigInt64Array.from(values);
  const bitmap = valid === undefined ? undefined : Uint8Array.of(valid.reduce((bits, v, i) => bits | (v << i), 0));
  return arrow.makeData({ type, length: values.length, data, nullBitmap: bitmap } as never) as arrow.Data<T>;
}

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

describe("readNumbers: times in epoch milliseconds", () => {
  // 1965-01-01T10:11:12.123456Z, Spark's own example for DateTimeUtils.microsToMillis.
  const SPARK_EXAMPLE_MICROS = -157700927876544n;

  it("multiplies seconds, keeps milliseconds, and floors microseconds and nanoseconds toward negative infinity", () => {
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampSecond(), [-1n, 0n, 1700000000n])))).toEqual([-1000, 0, 1_700_000_000_000]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMillisecond(), [-1n, 1_700_000_000_123n])))).toEqual([-1, 1_700_000_000_123]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMicrosecond(), [-1n, -999n, -1000n, -1001n, 999n, 1999n, SPARK_EXAMPLE_MICROS])))).toEqual([
      -1, -1, -1, -2, 0, 1, -157700927877,
    ]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampNanosecond(), [-1n, -1_000_000n, -1_000_001n, 999_999n, SPARK_EXAMPLE_MICROS * 1000n])))).toEqual([
      -1, -1, -2, 0, -157700927877,
    ]);
  });

  it("converts nanoseconds beyond 2^53 exactly, where a double would round into the next millisecond", () => {
    const nanos = 1_700_000_000_123_999_999n; // as a double this is ...124000000
    expect(Number(nanos)).toBe(1_700_000_000_124_000_000);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampNanosecond(), [nanos, -nanos])))).toEqual([1_700_000_000_123, -1_700_000_000_124]);
  });

  it("reads a time zone's instants as they are (values are UTC)", () => {
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMicrosecond("Europe/Paris"), [1_500n])))).toEqual([1]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMillisecond("UTC"), [-5n])))).toEqual([-5]);
  });

  it("reads Date32 days before and after 1970 and Date64 milliseconds", () => {
    const days = arrow.makeData({ type: new arrow.DateDay(), length: 3, data: Int32Array.of(-1, 0, 19723) });
    expect(Array.from(readNumbers(days))).toEqual([-86_400_000, 0, 19723 * 86_400_000]);
    expect(Array.from(readNumbers(wideColumn(new arrow.DateMillisecond(), [-86_400_000n, 1_704_067_200_000n])))).toEqual([-86_400_000, 1_704_067_200_000]);
  });

  it("raises for a valid time outside JavaScript's Date range, whatever its unit", () => {
    const outside: [arrow.Data, string][] = [
      [wideColumn(new arrow.TimestampMillisecond(), [8_640_000_000_000_001n]), "8640000000000001 ms"],
      [wideColumn(new arrow.TimestampSecond(), [-8_640_000_000_001n]), "-8640000000001000 ms"],
      // Beyond 2^53 ms the message shows the nearest double.
      [wideColumn(new arrow.TimestampMicrosecond(), [2n ** 63n - 1n]), "9223372036854774 ms"],
      [arrow.makeData({ type: new arrow.DateDay(), length: 1, data: Int32Array.of(100_000_001) }), "8640000086400000 ms"],
    ];
    for (const [data, text] of outside) {
      expect(() => readNumbers(data, "t")).toThrow(NumericRangeError);
      expect(() => readNumbers(data, "t")).toThrow(`time column "t" holds ${text}`);
    }
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMillisecond(), [8_640_000_000_000_000n, -8_640_000_000_000_000n])))).toEqual([8.64e15, -8.64e15]);
    expect(Array.from(readNumbers(wideColumn(new arrow.TimestampMillisecond(), [1n, 2n ** 62n], [1, 0])))).toEqual([1, 2 ** 62]);
  });
});

describe("builders", () => {
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

  it("int64WordsFromDoubles follows Java's (long) conversion: truncation, NaN to 0, saturation, exact beyond 2^53", () => {
    const words = int64WordsFromDoubles(Float64Array.of(-2.7, NaN, 1e19, -1e19, 2 ** 60, -(2 ** 63), Infinity, -Infinity));
    expect(Array.from(new BigInt64Array(words.buffer))).toEqual([-2n, 0n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 60n, -(2n ** 63n), 2n ** 63n - 1n, -(2n ** 63n)]);
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

  it("int64WordsOfProducts multiplies without rounding, past 2^53", () => {
    const ms = Float64Array.of(8.64e15, -8.64e15, -1, 1_700_000_000_123);
    expect(Array.from(new BigInt64Array(int64WordsOfProducts(ms, 1000).buffer))).toEqual([8_640_000_000_000_000_000n, -8_640_000_000_000_000_000n, -1000n, 1_700_000_000_123_000n]);
  });
});

describe("int64 text and parsing", () => {
  it("prints every int64 exactly without a BigInt, from the words", () => {
    const values = [0n, -1n, TWO_53 + 1n, -(TWO_53 + 1n), 10n ** 18n, 2n ** 63n - 1n, -(2n ** 63n), -4294967296n, 4294967295n];
    const words = new Int32Array(BigInt64Array.from(values).buffer);
    expect(values.map((_, i) => int64Text(words[2 * i]!, words[2 * i + 1]!))).toEqual(values.map(String));
  });

  it("parses integer text of any length within the int64 range", () => {
    const words = new Int32Array(6);
    expect(setInt64FromText(words, 0, "-9223372036854775808")).toBe(true);
    expect(setInt64FromText(words, 1, "9007199254740993")).toBe(true);
    expect(setInt64FromText(words, 2, "9223372036854775808")).toBe(false);
    expect(Array.from(new BigInt64Array(words.buffer)).slice(0, 2)).toEqual([-(2n ** 63n), TWO_53 + 1n]);
  });
});

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
