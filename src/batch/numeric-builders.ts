import * as arrow from "apache-arrow";
import { NumericRangeError } from "../errors/errors.js";
import { timestampWords } from "./epoch-millis.js";
import { integerText, isExactInteger, MAX_EXACT_INTEGER, TWO_32 } from "./int64-words.js";
import { nullArgs, nullProps } from "./validity.js";

/**
 * Sluice's numeric and time columns built from typed arrays: zero-copy over values or int64 words
 * already in place, or from computed doubles by the rules stated in numeric-columns.ts (an int64
 * result is exact within ±(2^53 - 1) or raises, times are floored and range-checked).
 */

export function float64Column(values: Float64Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Float64> {
  return arrow.makeData({ type: new arrow.Float64(), length: values.length, data: values, ...nullArgs(nullBitmap, nullCount, values.length) });
}

export function int32Column(values: Int32Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Int32> {
  return arrow.makeData({ type: new arrow.Int32(), length: values.length, data: values, ...nullArgs(nullBitmap, nullCount, values.length) });
}

export function int64Column(values: BigInt64Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Int64> {
  return arrow.makeData({ type: new arrow.Int64(), length: values.length, data: values, ...nullArgs(nullBitmap, nullCount, values.length) });
}

/** An Int64 column over the first `length` word pairs of `words` (no copy). */
export function int64ColumnOfWords(words: Int32Array, length: number, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Int64> {
  return int64Column(new BigInt64Array(words.buffer, words.byteOffset, length), nullBitmap, nullCount);
}

/** A Timestamp(ms) column over the first `length` word pairs of `words`: epoch ms already in place. */
export function timestampColumnOfWords(words: Int32Array, length: number, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.TimestampMillisecond> {
  return arrow.makeData({
    type: new arrow.TimestampMillisecond(),
    length,
    data: new BigInt64Array(words.buffer, words.byteOffset, length),
    ...nullArgs(nullBitmap, nullCount, length),
  });
}

/** Row validity of a bitmap at offset 0 (or all valid), for the builders' slow paths. */
function bitmapValidity(nullBitmap: Uint8Array | undefined): (i: number) => boolean {
  return nullBitmap === undefined ? () => true : (i) => ((nullBitmap[i >> 3]! >> (i & 7)) & 1) === 1;
}

function int64ResultBeyondRange(value: number): NumericRangeError {
  const text = Number.isFinite(value) ? integerText(Math.trunc(value)) : String(value);
  return new NumericRangeError(
    `an int64 result of ${text} is beyond ±(2^53 - 1) = ±9007199254740991, where Sluice's float64 arithmetic stops being exact; ` +
      "cast an operand to float64 for an approximate result",
  );
}

/**
 * int64 words of computed doubles: truncated toward zero, exact. Raises NumericRangeError for a
 * valid value beyond ±(2^53 - 1) (or NaN), where the double may already be rounded.
 */
function exactInt64Words(values: Float64Array, isValid: (i: number) => boolean): Int32Array {
  const n = values.length;
  const words = new Int32Array(2 * n);
  let outside = false;
  const twoTo32 = TWO_32;
  const limit = MAX_EXACT_INTEGER;
  for (let i = 0; i < n; i++) {
    const x = Math.trunc(values[i]!);
    // Words for any value (garbage beyond the range, 0 for NaN), so the common path never branches.
    const hi = Math.floor(x / twoTo32);
    words[2 * i] = x - hi * twoTo32;
    words[2 * i + 1] = hi;
    if (!(Math.abs(x) <= limit)) outside = true;
  }
  if (outside) {
    for (let i = 0; i < n; i++) if (!isExactInteger(values[i]!) && isValid(i)) throw int64ResultBeyondRange(values[i]!);
  }
  return words;
}

/**
 * Raises NumericRangeError unless every valid value is an integer within ±(2^53 - 1) once
 * truncated: the rule of `int64FromNumbers`, for computed int64 values used without building a
 * column (printed, cast).
 */
export function requireExactIntegers(values: Float64Array, valid: Uint8Array | null): void {
  for (let i = 0; i < values.length; i++) if (!isExactInteger(values[i]!) && (valid === null || valid[i] === 1)) throw int64ResultBeyondRange(values[i]!);
}

/** int64 column from computed doubles (counts, sums): exact, or NumericRangeError beyond ±(2^53 - 1). */
export function int64FromNumbers(values: Float64Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Int64> {
  return int64ColumnOfWords(exactInt64Words(values, bitmapValidity(nullBitmap)), values.length, nullBitmap, nullCount);
}

/** Timestamp(ms) column from epoch-ms doubles (fractions floored). */
export function timestampColumn(millis: Float64Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.TimestampMillisecond> {
  return timestampColumnOfWords(timestampWords(millis, bitmapValidity(nullBitmap)), millis.length, nullBitmap, nullCount);
}

export type NumericDType = "float64" | "int32" | "int64" | "timestamp";

/**
 * The column of Sluice type `type` holding kernel values with validity bytes. int32 values are
 * integers already and the Int32Array store wraps them to 32 bits (Java's int arithmetic); int64
 * values take `words` when given (exact values beyond ±(2^53 - 1)), else the rule of
 * `int64FromNumbers`; timestamps that of `timestampColumn`.
 */
export function numberColumn(type: NumericDType, values: Float64Array, valid: Uint8Array | null, words: Int32Array | null = null): arrow.Data {
  const n = values.length;
  const { nullBitmap, nullCount } = nullProps(valid, n);
  const isValid = valid === null ? () => true : (i: number) => valid[i] === 1;
  switch (type) {
    case "float64":
      return float64Column(values, nullBitmap, nullCount);
    case "int32":
      return int32Column(Int32Array.from(values), nullBitmap, nullCount);
    case "int64":
      return int64ColumnOfWords(words ?? exactInt64Words(values, isValid), n, nullBitmap, nullCount);
    case "timestamp":
      return timestampColumnOfWords(timestampWords(values, isValid), n, nullBitmap, nullCount);
  }
}
