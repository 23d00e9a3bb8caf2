/**
 * Finds the end of a run of "plain" string bytes - anything but '"', '\' and control characters -
 * four bytes at a time. Most of a JSON line is string content, and testing a 32-bit word for those
 * three kinds of byte at once costs about half as much as testing its bytes one by one.
 *
 * The word tests are the classic exact ones: `(v - 0x01010101) & ~v & 0x80808080` is non-zero
 * iff some byte of v is zero (applied to v = x ^ 0x22222222 and x ^ 0x5c5c5c5c), and
 * `(x - 0x20202020) & ~x & 0x80808080` is non-zero iff some byte of x is below 0x20. A word that
 * fails a test is finished byte by byte, so byte order does not matter.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Aligned 32-bit words over the bytes being scanned. */
export class WordView {
  words = new Int32Array(0);
  /** `src[i]` is byte `(i + shift) & 3` of word `(i + shift) >> 2`. */
  shift = 0;

  reset(src: Uint8Array): void {
    this.shift = src.byteOffset & 3;
    const start = src.byteOffset - this.shift;
    this.words = new Int32Array(src.buffer as ArrayBuffer, start, (this.shift + src.length) >> 2);
  }
}

function isPlain(c: number): boolean {
  return c !== QUOTE && c !== BACKSLASH && c >= 0x20;
}

/**
 * The first position at or after `p` that holds a quote, a backslash or a control byte, or `end`
 * (at most `src.length`); bytes at and after `end` are not read.
 */
export function plainRunEnd(src: Uint8Array, view: WordView, p: number, end: number): number {
  const shift = view.shift;
  while (((p + shift) & 3) !== 0) {
    if (p >= end || !isPlain(src[p]!)) return p;
    p++;
  }
  const words = view.words;
  // Words before this index lie wholly before `end`.
  const endWord = (shift + end) >> 2;
  let w = (p + shift) >> 2;
  while (w < endWord) {
    const x = words[w]!;
    const quotes = x ^ 0x22222222;
    const backslashes = x ^ 0x5c5c5c5c;
    const special = ((quotes - 0x01010101) & ~quotes) | ((backslashes - 0x01010101) & ~backslashes) | ((x - 0x20202020) & ~x);
    if ((special & 0x80808080) !== 0) break;
    w++;
  }
  p = (w << 2) - shift;
  while (p < end && isPlain(src[p]!)) p++;
  return p;
}
