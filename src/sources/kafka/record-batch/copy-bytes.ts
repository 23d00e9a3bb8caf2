/**
 * Copies `length` bytes from `src[srcPos]` to `dst[dstPos]` without allocating. For short runs a
 * byte loop wins; beyond that, 32-bit words through DataViews (unaligned reads are fine on every
 * platform Node runs on) move four bytes per step. `set(subarray())` costs an allocation and a
 * native call (~70 ns) and only pays for itself on long values.
 */
export function copyBytes(
  src: Uint8Array,
  srcView: DataView,
  srcPos: number,
  dst: Uint8Array,
  dstView: DataView,
  dstPos: number,
  length: number,
): void {
  if (length < 16) {
    for (let i = 0; i < length; i++) dst[dstPos + i] = src[srcPos + i]!;
    return;
  }
  if (length >= 512) {
    dst.set(src.subarray(srcPos, srcPos + length), dstPos);
    return;
  }
  const words = length & ~3;
  let i = 0;
  for (; i < words; i += 4) dstView.setInt32(dstPos + i, srcView.getInt32(srcPos + i, true), true);
  for (; i < length; i++) dst[dstPos + i] = src[srcPos + i]!;
}

export function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
