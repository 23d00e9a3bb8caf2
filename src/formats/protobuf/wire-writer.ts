import { copyBytes, ViewCache } from "../../kernels/copy-bytes.js";

/**
 * A growable byte buffer with Protobuf's primitive writes: varints from two 32-bit words (no
 * BigInt), little-endian fixed-width values, and raw bytes. Callers `ensure` room for a value's
 * largest form first; the writes themselves do not check.
 */

const TWO_32 = 4294967296;
/** The longest encoding of any one scalar: a 10-byte varint, with room for its tag. */
export const MAX_SCALAR_BYTES = 16;

export class WireWriter {
  bytes: Uint8Array;
  pos = 0;
  private view: DataView;
  /** The view of the source `raw` copies from (one per batch of records, not one per value). */
  private readonly sourceView = new ViewCache();

  constructor(capacity: number) {
    this.bytes = new Uint8Array(Math.max(64, capacity));
    this.view = new DataView(this.bytes.buffer);
  }

  /** Room for `n` more bytes; growth at least doubles, so appends stay amortized. */
  ensure(n: number): void {
    const needed = this.pos + n;
    if (needed <= this.bytes.length) return;
    const next = new Uint8Array(Math.max(needed, this.bytes.length * 2));
    next.set(this.bytes.subarray(0, this.pos));
    this.bytes = next;
    this.view = new DataView(next.buffer);
  }

  /** An unsigned varint of at most 32 bits (`v` is read as unsigned). */
  varint32(v: number): void {
    let x = v >>> 0;
    const bytes = this.bytes;
    let p = this.pos;
    while (x >= 0x80) {
      bytes[p++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    bytes[p++] = x;
    this.pos = p;
  }

  /** The varint of the 64-bit value with words (lo, hi); a negative int32 is (v, -1): ten bytes. */
  varint64(lo: number, hi: number): void {
    if (hi === 0) {
      this.varint32(lo);
      return;
    }
    const bytes = this.bytes;
    let p = this.pos;
    let l = lo >>> 0;
    let h = hi >>> 0;
    // Seven bits at a time from the 64-bit value h * 2^32 + l.
    while (h !== 0 || l >= 0x80) {
      bytes[p++] = (l & 0x7f) | 0x80;
      l = ((l >>> 7) | (h << 25)) >>> 0;
      h >>>= 7;
    }
    bytes[p++] = l;
    this.pos = p;
  }

  /** A double known to be an integer in [-2^63, 2^63) (such as Timestamp seconds), as a varint. */
  varintOfInteger(v: number): void {
    const hi = Math.floor(v / TWO_32);
    this.varint64(v - hi * TWO_32, hi);
  }

  fixed32(v: number): void {
    this.view.setInt32(this.pos, v | 0, true);
    this.pos += 4;
  }

  fixed64(lo: number, hi: number): void {
    this.view.setInt32(this.pos, lo | 0, true);
    this.view.setInt32(this.pos + 4, hi | 0, true);
    this.pos += 8;
  }

  float32(v: number): void {
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }

  float64(v: number): void {
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  raw(src: Uint8Array, start: number, end: number): void {
    const length = end - start;
    copyBytes(src, this.sourceView.of(src), start, this.bytes, this.view, this.pos, length);
    this.pos += length;
  }
}
