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

// int64 values are written as word pairs by batch/numeric-columns.ts (setInt64Words for numbers
// the scanner read exactly, setInt64FromText for longer integer text).
