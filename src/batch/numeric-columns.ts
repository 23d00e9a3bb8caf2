import * as arrow from "apache-arrow";
import { InternalError, NumericRangeError } from "../errors/errors.js";
import { nullArgs, nullProps, readValidity } from "./validity.js";

/**
 * Numeric and temporal Arrow columns: the one place Sluice reads them into the form kernels
 * compute on and builds them back from typed arrays.
 *
 * Kernel form. A number, boolean or time column is a Float64Array (times in epoch milliseconds,
 * booleans 0 / 1) plus one validity byte per row (1 = valid), or null when no row is null. Values
 * at null rows are unspecified: no rule below ever looks at them.
 *
 * Sluice's own Arrow types are Float64, Int32, Int64, Bool and Timestamp(MILLISECOND) without a
 * time zone (schema/arrow-types.ts). `canonicalColumn` converts any other numeric or temporal type
 * into them once, where data enters (`session.fromArrow`); the readers accept every type anyway,
 * by the same rules.
 *
 * int64. Arrow JS backs Int64 with a BigInt64Array; Sluice reads it as little-endian (low, high)
 * pairs of 32-bit words, so no BigInt is made per value. A double holds every integer within
 * ±(2^53 - 1) (`Number.MAX_SAFE_INTEGER`) exactly, and there float64 kernels are exact. Beyond:
 *   - values that pass through untouched stay exact: projection (zero-copy), filter, sort and
 *     join output (gathered as words), concatenation, worker transfer, `toArrow()`;
 *   - grouping, dropDuplicates and join keys and sort order compare the words themselves, so
 *     2^53 and 2^53 + 1 are two keys (`readInt64` hands the words to them);
 *   - exact conversions read the words: cast to string, `to_json`, cast to int32 (the low word)
 *     and to boolean; cast to float64 rounds to the nearest double, as Spark's long -> double;
 *   - everything that computes with the value as a double (arithmetic, comparisons, aggregates,
 *     `collect()` into JavaScript numbers) raises NumericRangeError naming the column, rather
 *     than answering with a rounded value (`readNumbers`).
 * Results computed in float64 (sums, arithmetic) are written to int64 exactly while integral and
 * within ±(2^53 - 1). Past that the double may already have been rounded, so `int64FromNumbers`
 * raises NumericRangeError: where Spark's exact long overflows at 2^63 (ARITHMETIC_OVERFLOW in
 * ANSI mode), a double stops being exact at 2^53. Explicit casts from double follow Java's
 * `(long)` conversion instead (`int64WordsFromDoubles`): truncation toward zero, NaN to 0,
 * saturation at the int64 bounds, the double's integer written exactly.
 *
 * Times. Timestamps of every unit (with a time zone or without: the values are UTC instants) and
 * dates become epoch milliseconds once, when read: seconds are multiplied by 1000; microseconds
 * and nanoseconds are floored, toward negative infinity, as Spark's `DateTimeUtils.microsToMillis`
 * does with `Math.floorDiv` (1969-12-31T23:59:59.999999 is -1 ms, not 0); Date32 days are
 * multiplied by 86 400 000; Date64 is milliseconds already. The division runs on the word pairs,
 * so nanosecond values (beyond 2^53 for any date after 1970-04-15) convert exactly. Milliseconds
 * must lie within ±8.64e15, JavaScript's Date range (±100 000 000 days); a time outside it raises
 * NumericRangeError. Times are written back as Timestamp(MILLISECOND), fractions of a millisecond
 * floored.
 */

/*
 * Hot loops read these through locals (`const twoTo32 = TWO_32`): a module binding is checked for
 * initialization on every read inside a loop, a local is not (about 10% of a read loop, measured).
 */
const TWO_32 = 4294967296;
const TWO_63 = 9223372036854775808;

/** The largest integer every double below it represents exactly: Sluice's exact int64 range. */
export const MAX_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;
/** JavaScript's Date range in epoch milliseconds: the range of Sluice timestamps. */
export const MAX_TIMESTAMP_MS = 8.64e15;
export const MS_PER_DAY = 86_400_000;

/**
 * High words whose int64 values all lie within ±(2^53 - 1): [-SAFE_HIGH, SAFE_HIGH]. The high
 * word -2^21 also holds safe values (all but -2^53 itself), checked on the slow path.
 */
const SAFE_HIGH = 0x1fffff;
const LOWEST_HIGH = -0x200000;

// ---- int64 words ----

/** The (low, high) word pairs of a 64-bit column (Int64, Uint64, Timestamp, Date64), zero-copy. */
export function int64WordsOf(data: arrow.Data): Int32Array {
  const v = data.values as BigInt64Array;
  return new Int32Array(v.buffer, v.byteOffset, data.length * 2);
}

/** True when the signed int64 (lo, hi) lies within ±(2^53 - 1). */
export function isExactWords(lo: number, hi: number): boolean {
  return (hi + SAFE_HIGH) >>> 0 <= 2 * SAFE_HIGH || (hi === LOWEST_HIGH && lo !== 0);
}

/** The double nearest to the signed int64 (lo, hi): exact within ±(2^53 - 1). */
export function wordsToNumber(lo: number, hi: number): number {
  return hi * TWO_32 + (lo >>> 0);
}

/**
 * Writes the integral double `v`, which must lie in [-2^63, 2^63), as the int64 at row `i`.
 * Exact for every such double: the high word is `floor(v / 2^32)`, the low word the rest.
 */
export function setInt64Words(words: Int32Array, i: number, v: number): void {
  const hi = Math.floor(v / TWO_32);
  words[2 * i] = v - hi * TWO_32; // 0 .. 2^32 - 1, which the Int32Array store wraps into the word's bits
  words[2 * i + 1] = hi;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Writes an integer given as decimal text (an optional sign and digits) as the int64 at row `i`;
 * false when it does not fit int64. The slow path for text too long for a double's exact range:
 * it makes one BigInt.
 */
export function setInt64FromText(words: Int32Array, i: number, text: string): boolean {
  return setInt64FromBigInt(words, i, BigInt(text));
}

/** Writes a bigint as the int64 at row `i`; false when it does not fit int64. */
export function setInt64FromBigInt(words: Int32Array, i: number, value: bigint): boolean {
  if (value < INT64_MIN || value > INT64_MAX) return false;
  words[2 * i] = Number(BigInt.asIntN(32, value));
  words[2 * i + 1] = Number(BigInt.asIntN(32, value >> 32n));
  return true;
}

/**
 * `floor(value / divisor)` of the signed int64 (lo, hi), exactly, for a divisor below 2^22.
 * With 2^32 = q * divisor + r: value = hi * q * divisor + (hi * r + lo), where hi * r + lo stays
 * below 2^53 and so divides exactly in doubles. The result is exact while within ±2^53.
 */
function floorDivWords(lo: number, hi: number, divisor: number, q: number, r: number): number {
  const rest = hi * r + (lo >>> 0);
  let m = rest % divisor;
  if (m < 0) m += divisor;
  return hi * q + (rest - m) / divisor;
}

/** The exact decimal text of the signed int64 (lo, hi), without a BigInt. */
export function int64Text(lo: number, hi: number): string {
  if (isExactWords(lo, hi)) return String(wordsToNumber(lo, hi));
  const negative = hi < 0;
  // The magnitude as unsigned words (two's complement negation), at most 2^63.
  const mlo = negative ? (~lo + 1) >>> 0 : lo >>> 0;
  const mhi = negative ? (~hi + (mlo === 0 ? 1 : 0)) >>> 0 : hi >>> 0;
  // magnitude = millions * 10^6 + units, both exact doubles (see floorDivWords).
  const rest = mhi * 967_296 + mlo; // 2^32 = 4294 * 10^6 + 967296
  const units = rest % 1_000_000;
  const millions = mhi * 4294 + (rest - units) / 1_000_000;
  return `${negative ? "-" : ""}${millions}${String(units).padStart(6, "0")}`;
}

// ---- errors ----

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

function int64ResultBeyondRange(value: number): NumericRangeError {
  const text = Number.isFinite(value) ? integerText(Math.trunc(value)) : String(value);
  return new NumericRangeError(
    `an int64 result of ${text} is beyond ±(2^53 - 1) = ±9007199254740991, where Sluice's float64 arithmetic stops being exact; ` +
      "cast an operand to float64 for an approximate result",
  );
}

function timeOutOfRange(ms: number, column: string | undefined): NumericRangeError {
  const where = column === undefined ? "a time column" : `time column "${column}"`;
  return new NumericRangeError(
    `${where} holds ${Number.isNaN(ms) ? "NaN" : `${ms} ms since the epoch`}, outside ±8.64e15 ms (JavaScript's Date range, ` +
      "years -271821 to 275760) that Sluice timestamps cover; filter or correct such rows before they reach Sluice",
  );
}

/**
 * The digits of an integral double, all of them exact: JavaScript's own form rounds beyond 2^53
 * (2^60 prints as "1152921504606847000", not 1152921504606846976).
 */
export function integerText(x: number): string {
  if (Math.abs(x) <= MAX_EXACT_INTEGER) return String(x);
  if (x >= -TWO_63 && x < TWO_63) {
    const words = new Int32Array(2);
    setInt64Words(words, 0, x);
    return int64Text(words[0]!, words[1]!);
  }
  return BigInt(x).toString();
}

// ---- readers ----

/** The first valid row among rows [0, n) for which `bad(i)` holds, or -1. */
function firstValidWhere(data: arrow.Data, bad: (i: number) => boolean): number {
  const valid = readValidity(data);
  for (let i = 0; i < data.length; i++) if ((valid === null || valid[i] === 1) && bad(i)) return i;
  return -1;
}

/**
 * Any numeric, boolean or temporal column as doubles: times in epoch milliseconds (see the
 * module comment for units), booleans 0 / 1. Zero-copy for Float64. Raises NumericRangeError for a
 * valid int64 beyond ±(2^53 - 1) or a time outside the Date range; `column` names the column in
 * the message.
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
  if (arrow.DataType.isTimestamp(type)) {
    return type.unit === arrow.TimeUnit.MILLISECOND ? millisOfWords(data, column) : checkedTimes(timestampMillis(data, type.unit), data, column);
  }
  if (arrow.DataType.isDate(type)) {
    if (type.unit === arrow.DateUnit.MILLISECOND) return millisOfWords(data, column);
    const days = data.values as Int32Array;
    const out = new Float64Array(n);
    const msPerDay = MS_PER_DAY;
    for (let i = 0; i < n; i++) out[i] = days[i]! * msPerDay;
    return checkedTimes(out, data, column);
  }
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

/**
 * A column of 64-bit milliseconds (Timestamp(ms), Date64) as doubles, checked against the Date
 * range in the same pass: this is Sluice's own time column, read on every batch.
 */
function millisOfWords(data: arrow.Data, column: string | undefined): Float64Array {
  const n = data.length;
  const words = int64WordsOf(data);
  const out = new Float64Array(n);
  let outside = false;
  const twoTo32 = TWO_32;
  const limit = MAX_TIMESTAMP_MS;
  for (let i = 0; i < n; i++) {
    const t = words[2 * i + 1]! * twoTo32 + (words[2 * i]! >>> 0);
    out[i] = t;
    if (Math.abs(t) > limit) outside = true;
  }
  return outside ? checkedTimes(out, data, column) : out;
}

/** Epoch milliseconds of a Timestamp column in seconds, microseconds or nanoseconds. */
function timestampMillis(data: arrow.Data, unit: arrow.TimeUnit): Float64Array {
  const n = data.length;
  const words = int64WordsOf(data);
  switch (unit) {
    case arrow.TimeUnit.MILLISECOND:
    case arrow.TimeUnit.SECOND: {
      // Exact wherever the result is within the Date range; anything else fails the range check.
      const out = new Float64Array(n);
      const scale = unit === arrow.TimeUnit.SECOND ? 1000 : 1;
      const twoTo32 = TWO_32;
      for (let i = 0; i < n; i++) out[i] = (words[2 * i + 1]! * twoTo32 + (words[2 * i]! >>> 0)) * scale;
      return out;
    }
    case arrow.TimeUnit.MICROSECOND:
      return floorDivided(words, n, 1000);
    case arrow.TimeUnit.NANOSECOND:
      return floorDivided(words, n, 1_000_000);
  }
}

function floorDivided(words: Int32Array, n: number, divisor: number): Float64Array {
  const q = Math.floor(TWO_32 / divisor);
  const r = TWO_32 - q * divisor;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = floorDivWords(words[2 * i]!, words[2 * i + 1]!, divisor, q, r);
  return out;
}

/** True for an integral double within ±(2^53 - 1) once truncated (false for NaN). */
export function isExactInteger(x: number): boolean {
  const t = Math.trunc(x);
  return t >= -MAX_EXACT_INTEGER && t <= MAX_EXACT_INTEGER;
}

/** True for epoch milliseconds within the Date range (false for NaN). */
function isTime(t: number): boolean {
  return t >= -MAX_TIMESTAMP_MS && t <= MAX_TIMESTAMP_MS;
}

/** `millis`, after checking that every valid row lies within the Date range. */
function checkedTimes(millis: Float64Array, data: arrow.Data, column: string | undefined): Float64Array {
  let outside = false;
  for (let i = 0; i < millis.length; i++) {
    const t = millis[i]!;
    if (!(t >= -MAX_TIMESTAMP_MS && t <= MAX_TIMESTAMP_MS)) outside = true;
  }
  if (!outside) return millis;
  const row = firstValidWhere(data, (i) => !isTime(millis[i]!));
  if (row >= 0) throw timeOutOfRange(millis[row]!, column);
  return millis;
}

// ---- builders ----

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
 * int64 words of doubles by Java's `(long)` conversion (Spark's cast from double): truncation
 * toward zero, NaN to 0, saturation at -2^63 and 2^63 - 1; every other integral double exactly.
 */
export function int64WordsFromDoubles(values: Float64Array): Int32Array {
  const n = values.length;
  const words = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const x = Math.trunc(values[i]!);
    if (x >= -TWO_63 && x < TWO_63) setInt64Words(words, i, x);
    else if (x >= TWO_63) {
      words[2 * i] = -1;
      words[2 * i + 1] = 0x7fffffff;
    } else if (x < -TWO_63) words[2 * i + 1] = -0x80000000;
    // NaN: both words stay 0.
  }
  return words;
}

/**
 * Timestamp words of epoch-ms doubles, fractions floored; a valid time outside the Date range
 * raises. What null rows hold is unspecified.
 */
function timestampWords(millis: Float64Array, isValid: (i: number) => boolean): Int32Array {
  const n = millis.length;
  const words = new Int32Array(2 * n);
  let outside = false;
  const twoTo32 = TWO_32;
  const limit = MAX_TIMESTAMP_MS;
  for (let i = 0; i < n; i++) {
    const t = Math.floor(millis[i]!);
    const hi = Math.floor(t / twoTo32);
    words[2 * i] = t - hi * twoTo32;
    words[2 * i + 1] = hi;
    if (!(Math.abs(t) <= limit)) outside = true;
  }
  if (outside) {
    for (let i = 0; i < n; i++) if (!isTime(Math.floor(millis[i]!)) && isValid(i)) throw timeOutOfRange(millis[i]!, undefined);
  }
  return words;
}

/** Raises NumericRangeError unless every valid value is an integer within ±(2^53 - 1) once truncated. */
export function requireExactIntegers(values: Float64Array, valid: Uint8Array | null): void {
  for (let i = 0; i < values.length; i++) if (!isExactInteger(values[i]!) && (valid === null || valid[i] === 1)) throw int64ResultBeyondRange(values[i]!);
}

/** The first valid row whose int64 words lie beyond ±(2^53 - 1), or -1. */
export function firstInexactRow(words: Int32Array, valid: Uint8Array | null): number {
  const n = words.length >> 1;
  for (let i = 0; i < n; i++) if ((valid === null || valid[i] === 1) && !isExactWords(words[2 * i]!, words[2 * i + 1]!)) return i;
  return -1;
}

/**
 * Per row, the int64 of `words` minus its nearest double `nearest[i]`: exact (both lie within 2^11
 * of each other, and hi * 2^32 - nearest is exact by Sterbenz's lemma), so the pair (double,
 * residual) names every int64 exactly.
 */
export function int64Residuals(words: Int32Array, nearest: Float64Array): Int32Array {
  const out = new Int32Array(nearest.length);
  const twoTo32 = TWO_32;
  for (let i = 0; i < out.length; i++) out[i] = words[2 * i + 1]! * twoTo32 - nearest[i]! + (words[2 * i]! >>> 0);
  return out;
}

/** The doubles nearest to each int64 of `words` (exact within ±(2^53 - 1)). */
export function wordsToNumbers(words: Int32Array): Float64Array {
  const out = new Float64Array(words.length >> 1);
  const twoTo32 = TWO_32;
  for (let i = 0; i < out.length; i++) out[i] = words[2 * i + 1]! * twoTo32 + (words[2 * i]! >>> 0);
  return out;
}

/**
 * int64 words of `values[i] * factor`, exactly, for integers within ±(2^53 - 1) and a factor
 * below 2^20 whose products stay within int64 (milliseconds to microseconds): the low word's
 * product (below 2^52) carries into the high word's, so no product is rounded.
 */
export function int64WordsOfProducts(values: Float64Array, factor: number): Int32Array {
  const words = new Int32Array(2 * values.length);
  for (let i = 0; i < values.length; i++) {
    setInt64Words(words, i, values[i]!);
    const low = (words[2 * i]! >>> 0) * factor;
    const carry = Math.floor(low / TWO_32);
    words[2 * i] = low - carry * TWO_32;
    words[2 * i + 1] = words[2 * i + 1]! * factor + carry;
  }
  return words;
}

/** int64 column from computed doubles (counts, sums): exact, or NumericRangeError beyond ±(2^53 - 1). */
export function int64FromNumbers(values: Float64Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Int64> {
  return int64ColumnOfWords(exactInt64Words(values, bitmapValidity(nullBitmap)), values.length, nullBitmap, nullCount);
}

/**
 * Timestamp words of epoch-ms doubles (fractions floored), checking the rows that `valid` marks
 * (all when null): for columns whose rows are null through a parent, such as window bounds.
 */
export function timestampWordsOf(millis: Float64Array, valid: Uint8Array | null): Int32Array {
  return timestampWords(millis, valid === null ? () => true : (i) => valid[i] === 1);
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

// ---- the boundary: any numeric or temporal Arrow type into Sluice's own ----

/** `data`'s rows and validity over new values (row 0 at index 0, as Arrow JS keeps sliced values). */
function withValues(data: arrow.Data, type: arrow.DataType, values: ArrayBufferView): arrow.Data {
  const buffers = [undefined, values, data.nullCount > 0 ? data.nullBitmap : undefined] as unknown as ConstructorParameters<typeof arrow.Data>[4];
  return new arrow.Data(type, data.offset, data.length, data.nullCount > 0 ? data.nullCount : 0, buffers);
}

/** The kinds of column `canonicalColumn` converts (strings, binary, headers and booleans pass through as they are). */
export type CanonicalKind = NumericDType | "window" | "string" | "boolean" | "binary" | "headers";

/**
 * A column of any supported Arrow type in Sluice's Arrow type for `type` (see
 * schema/arrow-types.ts): the column itself when it has that type, the same buffers under the
 * canonical type where the bits agree (Timestamp(ms) with a time zone, Date64, Uint64 within the
 * int64 range), else converted once by the rules of the module comment. Int8, Int16, Uint8 and
 * Uint16 widen to int32, Uint32 to int64, Float16 and Float32 to float64.
 */
export function canonicalColumn(data: arrow.Data, type: CanonicalKind, column?: string): arrow.Data {
  const t = data.type;
  switch (type) {
    case "float64":
      return arrow.DataType.isFloat(t) && t.precision === arrow.Precision.DOUBLE ? data : withValues(data, new arrow.Float64(), readNumbers(data, column));
    case "int32":
      return arrow.DataType.isInt(t) && t.bitWidth === 32 && t.isSigned ? data : withValues(data, new arrow.Int32(), Int32Array.from(readNumbers(data, column)));
    case "int64": {
      if (arrow.DataType.isInt(t) && t.bitWidth === 64) {
        if (t.isSigned) return data;
        readInt64(data, column); // raises for a value above the int64 maximum
        return withValues(data, new arrow.Int64(), new BigInt64Array((data.values as BigUint64Array).buffer, (data.values as BigUint64Array).byteOffset, data.length));
      }
      const values = readNumbers(data, column);
      const words = new Int32Array(2 * values.length);
      for (let i = 0; i < values.length; i++) setInt64Words(words, i, values[i]!);
      return withValues(data, new arrow.Int64(), new BigInt64Array(words.buffer));
    }
    case "timestamp": {
      if ((arrow.DataType.isTimestamp(t) && t.unit === arrow.TimeUnit.MILLISECOND) || (arrow.DataType.isDate(t) && t.unit === arrow.DateUnit.MILLISECOND)) {
        return arrow.DataType.isTimestamp(t) && t.timezone == null ? data : withValues(data, new arrow.TimestampMillisecond(), data.values as BigInt64Array);
      }
      const millis = readNumbers(data, column);
      const words = new Int32Array(2 * millis.length);
      for (let i = 0; i < millis.length; i++) setInt64Words(words, i, millis[i]!);
      return withValues(data, new arrow.TimestampMillisecond(), new BigInt64Array(words.buffer));
    }
    case "window": {
      const children = data.children.map((c, k) => canonicalColumn(c, "timestamp", column === undefined ? undefined : `${column}.${k === 0 ? "start" : "end"}`));
      if (children.every((c, k) => c === data.children[k])) return data;
      const struct = new arrow.Struct((data.type as arrow.Struct).children.map((f, k) => new arrow.Field(f.name, children[k]!.type, f.nullable)));
      return new arrow.Data(struct, data.offset, data.length, data.nullCount > 0 ? data.nullCount : 0, [undefined, undefined, data.nullCount > 0 ? data.nullBitmap : undefined] as unknown as ConstructorParameters<typeof arrow.Data>[4], children);
    }
    case "string":
    case "binary":
    case "headers":
    case "boolean":
      return data;
  }
}
