export { nullProps } from "../batch/validity.js";

/**
 * Bit-level helpers shared by the kernels. Inside a kernel, validity and boolean values travel as
 * one byte per row (1 = valid / true): byte loops are branch-free and simple, and packing to
 * Arrow's bitmaps happens once, when a column is built.
 *
 * Arrow JS slicing convention (what `Data.slice` does and what its own readers assume): fixed-width
 * value buffers and Utf8 offsets are already sliced, so row i is `values[i]`; only bit-packed
 * buffers (validity bitmaps and Bool values) keep the whole buffer and start at bit `data.offset`.
 */

/** Bit `i` of a packed buffer, as 0 or 1. */
export function bitAt(bits: Uint8Array, i: number): number {
  return (bits[i >> 3] >> (i & 7)) & 1;
}

/** Packs one byte per row (non-zero = set) into an Arrow bitmap, without branches. */
export function packBits(bytes: Uint8Array, length: number = bytes.length): Uint8Array {
  const packed = new Uint8Array((length + 7) >> 3);
  for (let i = 0; i < length; i++) packed[i >> 3] |= (bytes[i] === 0 ? 0 : 1) << (i & 7);
  return packed;
}

/** One byte per row from `length` bits of a packed buffer starting at bit `bitOffset`. */
export function unpackBits(bits: Uint8Array, bitOffset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const j = bitOffset + i;
    out[i] = (bits[j >> 3] >> (j & 7)) & 1;
  }
  return out;
}

/** Copies `length` bits from `src` at bit `srcOffset` into `dst` at bit `dstOffset`. */
export function copyBits(src: Uint8Array, srcOffset: number, dst: Uint8Array, dstOffset: number, length: number): void {
  if ((srcOffset & 7) === 0 && (dstOffset & 7) === 0) {
    // Byte-aligned on both sides: copy whole bytes, then the tail bit by bit.
    const whole = length >> 3;
    dst.set(src.subarray(srcOffset >> 3, (srcOffset >> 3) + whole), dstOffset >> 3);
    for (let i = whole << 3; i < length; i++) setBit(dst, dstOffset + i, bitAt(src, srcOffset + i));
    return;
  }
  for (let i = 0; i < length; i++) setBit(dst, dstOffset + i, bitAt(src, srcOffset + i));
}

function setBit(bits: Uint8Array, i: number, bit: number): void {
  const mask = 1 << (i & 7);
  bits[i >> 3] = bit ? bits[i >> 3] | mask : bits[i >> 3] & ~mask;
}

/** Row-wise AND of two validity vectors; null means "all valid". */
export function andValidity(a: Uint8Array | null, b: Uint8Array | null): Uint8Array | null {
  if (a === null) return b;
  if (b === null) return a;
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] & b[i];
  return out;
}

/** Sets `length` bits of `dst` from bit `start` (marks a range of rows valid). */
export function fillBits(dst: Uint8Array, start: number, length: number): void {
  let i = start;
  const end = start + length;
  for (; i < end && (i & 7) !== 0; i++) dst[i >> 3] |= 1 << (i & 7);
  for (; i + 8 <= end; i += 8) dst[i >> 3] = 0xff;
  for (; i < end; i++) dst[i >> 3] |= 1 << (i & 7);
}
