import type * as arrow from "apache-arrow";

/**
 * int64 as little-endian (low, high) pairs of 32-bit words: the form in which Sluice reads and
 * writes 64-bit columns without a BigInt per value, and exact arithmetic and text on it. The rules
 * it serves are stated in numeric-columns.ts.
 */

/*
 * Hot loops read these through locals (`const twoTo32 = TWO_32`): a module binding is checked for
 * initialization on every read inside a loop, a local is not (about 10% of a read loop, measured).
 * An imported binding is checked the same way, so the modules that import TWO_32 copy it too.
 */
export const TWO_32 = 4294967296;
const TWO_63 = 9223372036854775808;

/** The largest integer every double below it represents exactly: Sluice's exact int64 range. */
export const MAX_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * High words whose int64 values all lie within ±(2^53 - 1): [-SAFE_HIGH, SAFE_HIGH]. The high
 * word -2^21 also holds safe values (all but -2^53 itself), checked on the slow path.
 */
const SAFE_HIGH = 0x1fffff;
const LOWEST_HIGH = -0x200000;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The (low, high) word pairs of a 64-bit column (Int64, Uint64, Timestamp, Date64), zero-copy. */
export function int64WordsOf(data: arrow.Data): Int32Array {
  const v = data.values as BigInt64Array;
  return new Int32Array(v.buffer, v.byteOffset, data.length * 2);
}

/** True when the signed int64 (lo, hi) lies within ±(2^53 - 1). */
export function isExactWords(lo: number, hi: number): boolean {
  return (hi + SAFE_HIGH) >>> 0 <= 2 * SAFE_HIGH || (hi === LOWEST_HIGH && lo !== 0);
}

/** True for an integral double within ±(2^53 - 1) once truncated (false for NaN). */
export function isExactInteger(x: number): boolean {
  const t = Math.trunc(x);
  return t >= -MAX_EXACT_INTEGER && t <= MAX_EXACT_INTEGER;
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
export function floorDivWords(lo: number, hi: number, divisor: number, q: number, r: number): number {
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

/** The first valid row whose int64 words lie beyond ±(2^53 - 1), or -1. */
export function firstInexactRow(words: Int32Array, valid: Uint8Array | null): number {
  const n = words.length >> 1;
  for (let i = 0; i < n; i++) if ((valid === null || valid[i] === 1) && !isExactWords(words[2 * i]!, words[2 * i + 1]!)) return i;
  return -1;
}

/** The doubles nearest to each int64 of `words` (exact within ±(2^53 - 1)). */
export function wordsToNumbers(words: Int32Array): Float64Array {
  const out = new Float64Array(words.length >> 1);
  const twoTo32 = TWO_32;
  for (let i = 0; i < out.length; i++) out[i] = words[2 * i + 1]! * twoTo32 + (words[2 * i]! >>> 0);
  return out;
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
