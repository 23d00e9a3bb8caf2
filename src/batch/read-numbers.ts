import * as arrow from "apache-arrow";
import { InternalError, NumericRangeError } from "../errors/errors.js";
import { readMillis } from "./epoch-millis.js";
import { int64Text, int64WordsOf, isExactWords, MAX_EXACT_INTEGER, TWO_32 } from "./int64-words.js";
import { firstValidWhere } from "./validity.js";

/**
 * Any numeric, boolean or temporal column read into the kernel form, doubles: `readNumbers` for
 * kernels that compute, `readInt64` for those that keep int64 exact. The rules are stated in
 * numeric-columns.ts.
 */

/**
 * Any numeric, boolean or temporal column as doubles: times in epoch milliseconds (see
 * numeric-columns.ts for units), booleans 0 / 1. Zero-copy for Float64. Raises NumericRangeError
 * for a valid int64 beyond ±(2^53 - 1) or a time outside the Date range; `column` names the
 * column in the message.
 *
 * Arrow JS slices value buffers when it slices `Data`, but not validity bitmaps or bit-packed
 * booleans: `data.offset` applies only to the latter.
 */
export function readNumbers(data: arrow.Data, column?: string): Float64Array {
  const type = data.type;
  const n = data.length;
  if (arrow.DataType.isFloat(type)) {
    if (type.precision === arrow.Precision.DOUBLE) {
      const v = data.values as Float64Array;
      return v.length === n ? v : v.subarray(0, n);
    }
    if (type.precision === arrow.Precision.HALF) return halfFloats(data.values as Uint16Array, n);
    return copyNumbers(data.values as Float32Array, n);
  }
  if (arrow.DataType.isInt(type)) {
    if (type.bitWidth !== 64) return copyNumbers(data.values as ArrayLike<number>, n);
    const { values, words } = readInt64(data, column);
    if (words !== null) throw int64BeyondRangeError(words, firstValidWhere(data, (i) => !isExactWords(words[2 * i]!, words[2 * i + 1]!)), column);
    return values;
  }
  if (arrow.DataType.isTimestamp(type) || arrow.DataType.isDate(type)) return readMillis(data, column);
  if (arrow.DataType.isBool(type)) {
    const bytes = data.values as Uint8Array;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const j = data.offset + i;
      out[i] = (bytes[j >> 3]! >> (j & 7)) & 1;
    }
    return out;
  }
  throw new InternalError(`column of Arrow type ${type} read as numbers`);
}

function copyNumbers(values: ArrayLike<number>, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = values[i]!;
  return out;
}

function halfFloats(bits: Uint16Array, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = arrow.util.uint16ToFloat64(bits[i]!);
  return out;
}

function int64BeyondRange(text: string, column: string | undefined): NumericRangeError {
  const where = column === undefined ? "an int64 column" : `int64 column "${column}"`;
  return new NumericRangeError(
    `${where} holds ${text}, beyond ±(2^53 - 1) = ±9007199254740991 where a float64 is exact. Sluice keeps such values exact where ` +
      "they pass through (select, filter, orderBy, groupBy / join / dropDuplicates keys, toArrow(), cast to string, to_json) but " +
      "computes and collects numbers as float64: cast the column to string, or to float64 to accept rounding",
  );
}

/** The error for an int64 value beyond ±(2^53 - 1) that a kernel was about to use as a double. */
export function int64BeyondRangeError(words: Int32Array, row: number, column?: string): NumericRangeError {
  return int64BeyondRange(int64Text(words[2 * row]!, words[2 * row + 1]!), column);
}

/** An int64 column as the nearest doubles, with its exact words when some valid value needs them. */
export interface Int64Read {
  readonly values: Float64Array;
  /**
   * The column's own (low, high) words (zero-copy: never write them) when a valid value lies
   * beyond ±(2^53 - 1); null when every valid value is exact in `values`.
   */
  readonly words: Int32Array | null;
}

/**
 * An integer column for consumers that keep int64 exact (keys, ordering, exact casts): the values
 * as doubles plus, when needed, the words. Non-64-bit columns come back with `words` null. A
 * Uint64 value above the int64 maximum raises NumericRangeError (Sluice's int64 cannot hold it).
 */
export function readInt64(data: arrow.Data, column?: string): Int64Read {
  const type = data.type;
  if (!arrow.DataType.isInt(type) || type.bitWidth !== 64) return { values: readNumbers(data, column), words: null };
  const n = data.length;
  const words = int64WordsOf(data);
  const values = new Float64Array(n);
  // The test is on the double: rounding is monotonic and 2^53 is a double, so a value beyond
  // ±(2^53 - 1) never reads as less than 2^53 in magnitude. One flag, one compare per row (the
  // cheapest of the tests measured: compares on the words cost as much).
  const inexact = type.isSigned ? signedNumbers(words, values) : unsignedNumbers(words, values);
  if (!inexact) return { values, words: null };
  if (!type.isSigned) {
    const above = firstValidWhere(data, (i) => words[2 * i + 1]! < 0);
    if (above >= 0) {
      const text = (BigInt(words[2 * above + 1]! >>> 0) * 2n ** 32n + BigInt(words[2 * above]! >>> 0)).toString();
      throw new NumericRangeError(
        `Uint64 column${column === undefined ? "" : ` "${column}"`} holds ${text}, above the int64 maximum 9223372036854775807 that Sluice's int64 holds; ` +
          "cast the column to Float64 or Int64 in Arrow first",
      );
    }
  }
  const beyond = firstValidWhere(data, (i) => !isExactWords(words[2 * i]!, words[2 * i + 1]!));
  return { values, words: beyond >= 0 ? words : null };
}

/** Fills `values` with the nearest doubles of signed int64 words; true when one is beyond ±(2^53 - 1). */
function signedNumbers(words: Int32Array, values: Float64Array): boolean {
  let inexact = false;
  const twoTo32 = TWO_32;
  const limit = MAX_EXACT_INTEGER;
  for (let i = 0; i < values.length; i++) {
    const v = words[2 * i + 1]! * twoTo32 + (words[2 * i]! >>> 0);
    values[i] = v;
    if (Math.abs(v) > limit) inexact = true;
  }
  return inexact;
}

/** As `signedNumbers`, for Uint64 words. */
function unsignedNumbers(words: Int32Array, values: Float64Array): boolean {
  let inexact = false;
  const twoTo32 = TWO_32;
  const limit = MAX_EXACT_INTEGER;
  for (let i = 0; i < values.length; i++) {
    const v = (words[2 * i + 1]! >>> 0) * twoTo32 + (words[2 * i]! >>> 0);
    values[i] = v;
    if (v > limit) inexact = true;
  }
  return inexact;
}
