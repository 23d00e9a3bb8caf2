/**
 * Byte buffers kept across tasks, per thread, for buffers that are large, allocated once per task
 * or per fetch, and garbage as soon as their bytes have been read: a Kafka range's value bytes
 * once their JSON is decoded, a fetch response once its record batches are. A fresh buffer costs
 * a zero-filled allocation and, as external memory, a share of a full collection (V8 starts one
 * each time external memory has grown by 64 MB; fresh 1 MB buffers cost 60-140 us each, DESIGN
 * §11). A buffer taken from a pool is reused as it is, its old bytes overwritten by the next user.
 *
 * Only a buffer that nothing else can still see may be given back: not one behind a column a task
 * returns (it would be transferred to the driver or outlive the task). A buffer that was
 * transferred anyway reads as empty (detached) and is dropped on the next take.
 */
export class BytesPool {
  private readonly kept: Uint8Array[] = [];

  /**
   * @param maxKept buffers kept at most (the largest stay)
   * @param maxKeptBytes larger buffers are left to the collector rather than held while idle
   */
  constructor(
    readonly maxKept: number,
    readonly maxKeptBytes: number,
  ) {}

  /** A buffer of at least `bytes` bytes (contents undefined), from the pool when one is large enough. */
  take(bytes: number): Uint8Array {
    const kept = this.kept;
    let best = -1;
    for (let i = 0; i < kept.length; i++) {
      const length = kept[i]!.length;
      if (length >= bytes && length > 0 && (best < 0 || length < kept[best]!.length)) best = i;
    }
    if (best >= 0) return kept.splice(best, 1)[0]!;
    // None fits: a smaller kept buffer would only be outgrown again, so it goes too.
    if (kept.length > 0) kept.sort((a, b) => a.length - b.length).shift();
    return new Uint8Array(bytes);
  }

  /** Gives `buffer` back once nothing refers to it any more; the smallest kept buffer makes room. */
  giveBack(buffer: Uint8Array): void {
    const kept = this.kept;
    if (buffer.length === 0 || buffer.length > this.maxKeptBytes || buffer.byteOffset !== 0 || kept.includes(buffer)) return;
    kept.push(buffer);
    if (kept.length > this.maxKept) kept.sort((a, b) => b.length - a.length).pop();
  }

  /** How many buffers and bytes the pool holds (for tests and diagnostics). */
  size(): { buffers: number; bytes: number } {
    return { buffers: this.kept.length, bytes: this.kept.reduce((n, b) => n + b.length, 0) };
  }
}
