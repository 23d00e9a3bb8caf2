/** The high bit of each of four bytes: a word without them is four ASCII characters. */
const HIGH_BITS = 0x80808080 | 0;

/**
 * Whether `src[start, end)` is well-formed UTF-8, as protobuf-java checks proto3 strings: no
 * overlong forms, no surrogates (U+D800..U+DFFF), nothing past U+10FFFF. ASCII, the common case,
 * is skipped four bytes at a time through `view` (a DataView over `src`'s bytes): one unaligned
 * load and one test per four bytes.
 */
export function isValidUtf8(src: Uint8Array, view: DataView, start: number, end: number): boolean {
  let i = start;
  const high = HIGH_BITS;
  while (i + 4 <= end && (view.getInt32(i, true) & high) === 0) i += 4;
  while (i < end) {
    const b = src[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    if (b < 0xc2) return false; // a continuation byte first, or an overlong 2-byte form
    if (b < 0xe0) {
      if (i + 1 >= end || !isContinuation(src[i + 1]!)) return false;
      i += 2;
      continue;
    }
    if (b < 0xf0) {
      if (i + 2 >= end) return false;
      const b1 = src[i + 1]!;
      if (!isContinuation(b1) || !isContinuation(src[i + 2]!)) return false;
      if ((b === 0xe0 && b1 < 0xa0) || (b === 0xed && b1 >= 0xa0)) return false; // overlong; surrogate
      i += 3;
      continue;
    }
    if (b < 0xf5) {
      if (i + 3 >= end) return false;
      const b1 = src[i + 1]!;
      if (!isContinuation(b1) || !isContinuation(src[i + 2]!) || !isContinuation(src[i + 3]!)) return false;
      if ((b === 0xf0 && b1 < 0x90) || (b === 0xf4 && b1 >= 0x90)) return false; // overlong; past U+10FFFF
      i += 4;
      continue;
    }
    return false;
  }
  return true;
}

function isContinuation(b: number): boolean {
  return (b & 0xc0) === 0x80;
}
