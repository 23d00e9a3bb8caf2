/**
 * Selection vectors: the indices of the rows a filter keeps, built without branches (the index is
 * always written, the cursor only advances for kept rows), which is several times faster than an
 * `if` per row on unpredictable data.
 */
export function selectionFromMask(mask: Uint8Array, valid: Uint8Array | null, n: number = mask.length, scratch?: Int32Array): Int32Array {
  const selection = scratch && scratch.length >= n ? scratch : new Int32Array(n);
  let k = 0;
  if (valid === null) {
    for (let i = 0; i < n; i++) {
      selection[k] = i;
      k += mask[i] & 1;
    }
  } else {
    for (let i = 0; i < n; i++) {
      selection[k] = i;
      k += mask[i] & valid[i] & 1;
    }
  }
  return k === selection.length ? selection : selection.subarray(0, k);
}

/**
 * A reusable buffer for selection vectors that do not outlive the call that made them (a filter
 * gathers with its selection, then drops it). Reusing it spares a fresh multi-megabyte allocation,
 * and the garbage collection it triggers, per batch.
 */
export class SelectionScratch {
  private buffer = new Int32Array(0);

  get(n: number): Int32Array {
    if (this.buffer.length < n) this.buffer = new Int32Array(Math.max(n, this.buffer.length * 2));
    return this.buffer;
  }
}
