import type * as arrow from "apache-arrow";

/**
 * Validity in the two forms Sluice uses: Arrow's bitmaps (bit i of the column at bit
 * `data.offset + i`, 1 = valid) on columns, one byte per row (1 = valid, or null when no row is
 * null) inside kernels, where byte loops stay branch-free.
 */

/** Per-row validity as bytes (1 = valid), or null when the column has no nulls. */
export function readValidity(data: arrow.Data): Uint8Array | null {
  if (!data.nullBitmap || data.nullCount === 0) return null;
  const out = new Uint8Array(data.length);
  const bm = data.nullBitmap;
  for (let i = 0; i < data.length; i++) {
    const j = data.offset + i;
    out[i] = (bm[j >> 3]! >> (j & 7)) & 1;
  }
  return out;
}

/** The first valid row of `data` for which `bad(i)` holds, or -1: the slow path that finds the row a check failed at. */
export function firstValidWhere(data: arrow.Data, bad: (i: number) => boolean): number {
  const valid = readValidity(data);
  for (let i = 0; i < data.length; i++) if ((valid === null || valid[i] === 1) && bad(i)) return i;
  return -1;
}

/** Validity bitmap from a per-row "is valid" byte array; no bitmap when every row is valid. */
export function validityFromBytes(valid: Uint8Array, length: number): { bitmap: Uint8Array | undefined; nullCount: number } {
  let nullCount = 0;
  const bitmap = new Uint8Array((length + 7) >> 3);
  for (let i = 0; i < length; i++) {
    if (valid[i]) bitmap[i >> 3]! |= 1 << (i & 7);
    else nullCount++;
  }
  return nullCount === 0 ? { bitmap: undefined, nullCount: 0 } : { bitmap, nullCount };
}

export function countNulls(bitmap: Uint8Array, length: number): number {
  let valid = 0;
  for (let i = 0; i < length; i++) valid += (bitmap[i >> 3]! >> (i & 7)) & 1;
  return length - valid;
}

/** The `nullBitmap` / `nullCount` props of `arrow.makeData` for a bitmap at offset 0 (or none). */
export function nullArgs(nullBitmap: Uint8Array | undefined, nullCount: number | undefined, length: number): { nullBitmap?: Uint8Array; nullCount: number } {
  if (!nullBitmap) return { nullCount: 0 };
  return { nullBitmap, nullCount: nullCount ?? countNulls(nullBitmap, length) };
}

/** The `nullBitmap` / `nullCount` props of `arrow.makeData` from per-row validity bytes. */
export function nullProps(valid: Uint8Array | null, length: number): { nullBitmap?: Uint8Array; nullCount: number } {
  if (valid === null) return { nullCount: 0 };
  const { bitmap, nullCount } = validityFromBytes(valid, length);
  return bitmap ? { nullBitmap: bitmap, nullCount } : { nullCount: 0 };
}
