import { copyBytes, ViewCache } from "./copy-bytes.js";

/**
 * UTF-8 byte-range helpers. Comparing UTF-8 bytes lexicographically orders strings by code point,
 * which is exactly Spark's binary string order, so comparisons never need to decode.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeUtf8(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Decodes bytes [start, end); short ASCII strings skip the TextDecoder call overhead. */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= 24) {
    let s = "";
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (b >= 0x80) return decoder.decode(bytes.subarray(start, end));
      s += String.fromCharCode(b);
    }
    return s;
  }
  return decoder.decode(bytes.subarray(start, end));
}

/** Lexicographic byte comparison of two ranges: negative, zero or positive. */
export function compareUtf8(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const aLen = aEnd - aStart;
  const bLen = bEnd - bStart;
  const n = aLen < bLen ? aLen : bLen;
  for (let i = 0; i < n; i++) {
    const d = a[aStart + i] - b[bStart + i];
    if (d !== 0) return d;
  }
  return aLen - bLen;
}

/**
 * True when the ranges hold the same bytes. The length check rejects most rows at once; the bytes
 * are then compared from the end, because values of one column tend to share prefixes ("user-0001",
 * "user-0002"), which makes a forward scan slow and its exit unpredictable.
 */
export function equalUtf8(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): boolean {
  const len = aEnd - aStart;
  if (len !== bEnd - bStart) return false;
  for (let i = len - 1; i >= 0; i--) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

/** Number of code points in a range: every byte that is not a continuation byte starts one. */
export function countCodePoints(bytes: Uint8Array, start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i++) count += (bytes[i] & 0xc0) !== 0x80 ? 1 : 0;
  return count;
}

/** Byte position where code point `k` (0-based) of the range starts; `end` when k is past the end. */
export function codePointOffset(bytes: Uint8Array, start: number, end: number, k: number): number {
  let seen = -1;
  for (let i = start; i < end; i++) {
    if ((bytes[i] & 0xc0) !== 0x80 && ++seen === k) return i;
  }
  return end;
}

/** True when every byte in the range is ASCII, so byte index = character index. */
export function isAscii(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] >= 0x80) return false;
  return true;
}

/**
 * Accumulates a Utf8 (or Binary) column's offsets + bytes row by row, growing its byte buffer geometrically so
 * appending stays amortised O(1) per byte.
 */
export class Utf8Builder {
  private bytes: Uint8Array;
  private readonly offsets: Int32Array;
  private pos = 0;
  private row = 0;
  /** Views for `copyBytes`: of the source rows come from (usually one per builder) and of `bytes`. */
  private readonly sourceView = new ViewCache();
  private readonly bytesView = new ViewCache();

  constructor(rows: number, byteHint = rows * 8) {
    this.offsets = new Int32Array(rows + 1);
    this.bytes = new Uint8Array(Math.max(16, byteHint));
  }

  /** Appends bytes [start, end) of `src` as the next row. */
  appendRange(src: Uint8Array, start: number, end: number): void {
    this.appendPart(src, start, end);
    this.endRow();
  }

  /** Appends part of the current row without ending it (for concat). */
  appendPart(src: Uint8Array, start: number, end: number): void {
    const len = end - start;
    this.reserve(len);
    copyBytes(src, this.sourceView.of(src), start, this.bytes, this.bytesView.of(this.bytes), this.pos, len);
    this.pos += len;
  }

  /** Appends a JavaScript string as the next row. */
  appendString(s: string): void {
    this.reserve(s.length * 3);
    this.pos += encoder.encodeInto(s, this.bytes.subarray(this.pos)).written;
    this.endRow();
  }

  /** Ends the current row (an empty row when nothing was appended: nulls take no bytes). */
  endRow(): void {
    this.offsets[++this.row] = this.pos;
  }

  finish(): { offsets: Int32Array; bytes: Uint8Array } {
    if (this.row !== this.offsets.length - 1) throw new Error(`Utf8Builder: ${this.row} of ${this.offsets.length - 1} rows written`);
    return { offsets: this.offsets, bytes: this.bytes.subarray(0, this.pos) };
  }

  private reserve(extra: number): void {
    if (this.pos + extra <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.pos + extra));
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
  }
}
