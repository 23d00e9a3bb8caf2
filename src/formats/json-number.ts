/**
 * Helpers for JSON numbers read straight from bytes. The scanner accumulates the decimal digits
 * itself; these cover the exact conversions and the rare slow paths.
 */

/** Powers of ten that are exact doubles: with a mantissa below 2^53 one multiply or divide by
 * these rounds correctly (Clinger's fast path), so most numbers never touch `Number(text)`. */
export const EXACT_POWERS_OF_TEN = Float64Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Digits accumulated in a double are exact while the value stays below 2^53; at or above it the
 * sum may have been rounded (9007199254740993 accumulates to 2^53), so the bound is exclusive.
 */
export const EXACT_MANTISSA_LIMIT = 2 ** 53;

/** ASCII bytes as a string: number tokens and literals only (error and slow paths). */
export function asciiText(src: Uint8Array, start: number, end: number): string {
  let s = "";
  for (let p = start; p < end; p++) s += String.fromCharCode(src[p]!);
  return s;
}

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TWO_32 = 4294967296;

/** Writes a safe integer as the little-endian 32-bit word pair of an int64 at row `row`. */
export function writeInt64Words(words: Int32Array, row: number, value: number): void {
  const high = Math.floor(value / TWO_32);
  words[2 * row] = value - high * TWO_32; // ToInt32 wraps 0..2^32-1 into the low word's bits
  words[2 * row + 1] = high;
}

/**
 * Integer text too long for a double's exact range: parsed with BigInt (slow path, 16+ digits).
 * Returns false when it does not fit int64.
 */
export function writeBigInt64Words(words: Int32Array, row: number, text: string): boolean {
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) return false;
  words[2 * row] = Number(BigInt.asIntN(32, value));
  words[2 * row + 1] = Number(BigInt.asIntN(32, value >> 32n));
  return true;
}
