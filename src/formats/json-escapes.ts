import { describeByte, syntaxProblem } from "./record-problem.js";

/**
 * JSON string escapes, on UTF-8 bytes. Strings without a backslash never come here: they are
 * copied as raw bytes. Validation (`escapeEnd`) and decoding (`unescapeInto`) are separate so
 * that skipping an unknown field validates its strings without writing them anywhere.
 */

const BACKSLASH = 0x5c;

/** Value of one hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function hex4(src: Uint8Array, p: number): number {
  let v = 0;
  for (let i = 0; i < 4; i++) {
    const h = hexValue(src[p + i] ?? -1);
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

/** Checks the escape whose backslash is at `p`; returns the position after it. Nothing at or after `end` is read. */
export function escapeEnd(src: Uint8Array, p: number, end: number): number {
  const c = p + 1 < end ? src[p + 1] : undefined;
  switch (c) {
    case 0x22: // "
    case 0x5c: // \
    case 0x2f: // /
    case 0x62: // b
    case 0x66: // f
    case 0x6e: // n
    case 0x72: // r
    case 0x74: // t
      return p + 2;
    case 0x75: // u
      if (p + 6 > end || hex4(src, p + 2) < 0) throw syntaxProblem("invalid \\u escape in string: expected four hex digits");
      return p + 6;
    default:
      throw syntaxProblem(`invalid escape in string: backslash followed by ${describeByte(c)}`);
  }
}

function simpleEscapeByte(c: number): number {
  switch (c) {
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    default:
      return c; // \" \\ \/ stand for themselves
  }
}

/** Writes code point `cp` as UTF-8 at `o`; returns the new end. */
export function writeUtf8(dst: Uint8Array, o: number, cp: number): number {
  if (cp < 0x80) {
    dst[o] = cp;
    return o + 1;
  }
  if (cp < 0x800) {
    dst[o] = 0xc0 | (cp >> 6);
    dst[o + 1] = 0x80 | (cp & 0x3f);
    return o + 2;
  }
  if (cp < 0x10000) {
    dst[o] = 0xe0 | (cp >> 12);
    dst[o + 1] = 0x80 | ((cp >> 6) & 0x3f);
    dst[o + 2] = 0x80 | (cp & 0x3f);
    return o + 3;
  }
  dst[o] = 0xf0 | (cp >> 18);
  dst[o + 1] = 0x80 | ((cp >> 12) & 0x3f);
  dst[o + 2] = 0x80 | ((cp >> 6) & 0x3f);
  dst[o + 3] = 0x80 | (cp & 0x3f);
  return o + 4;
}

const REPLACEMENT_CHARACTER = 0xfffd;

/**
 * Decodes the already validated string content `src[start, end)` into `dst` at `o`; returns the
 * new end. The output is never longer than the input (an escape of n bytes yields at most n
 * bytes), so callers reserve `end - start` bytes. A `\uD83D\uDE00` pair becomes one 4-byte
 * character; a lone surrogate, which UTF-8 cannot carry, becomes U+FFFD as TextEncoder does.
 */
export function unescapeInto(src: Uint8Array, start: number, end: number, dst: Uint8Array, o: number): number {
  let p = start;
  while (p < end) {
    const c = src[p]!;
    if (c !== BACKSLASH) {
      dst[o++] = c;
      p++;
      continue;
    }
    const kind = src[p + 1]!;
    if (kind !== 0x75) {
      dst[o++] = simpleEscapeByte(kind);
      p += 2;
      continue;
    }
    let cp = hex4(src, p + 2);
    p += 6;
    if (cp >= 0xd800 && cp <= 0xdbff) {
      const low = src[p] === BACKSLASH && src[p + 1] === 0x75 ? hex4(src, p + 2) : -1;
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        p += 6;
      } else {
        cp = REPLACEMENT_CHARACTER;
      }
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
      cp = REPLACEMENT_CHARACTER;
    }
    o = writeUtf8(dst, o, cp);
  }
  return o;
}
