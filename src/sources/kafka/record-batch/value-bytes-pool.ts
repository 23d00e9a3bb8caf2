/**
 * Value byte buffers kept across tasks, per thread. A task reading a Kafka range copies every
 * record's value into one buffer (tens of MB: W1's 250,000-record tasks hold 61 MB of JSON), and
 * when a record schema decodes the values into columns of their own, that buffer is garbage as
 * soon as the task has decoded them. Allocating it afresh for every task costs a zero-filled
 * allocation and a major collection's share (fresh 1 MB buffers cost 60-140 us each, DESIGN §11);
 * a buffer taken from here is reused as it is, its old bytes overwritten by the next task's.
 *
 * Only a buffer that nothing else can still see may be given back: not one behind a column the
 * task returns (it would be transferred to the driver or outlive the task). A buffer that was
 * transferred anyway reads as empty (detached) and is dropped on the next take.
 */

/** Buffers kept per thread: one per task a worker runs at once, plus one. */
const MAX_KEPT = 2;
/** Larger buffers are left to the collector rather than held while idle. */
export const MAX_KEPT_BYTES = 256 * 1024 * 1024;

const kept: Uint8Array[] = [];

/** A buffer of at least `bytes` bytes (contents undefined), from the pool when one is large enough. */
export function takeValueBytes(bytes: number): Uint8Array {
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
export function giveBackValueBytes(buffer: Uint8Array): void {
  if (buffer.length === 0 || buffer.length > MAX_KEPT_BYTES || buffer.byteOffset !== 0 || kept.includes(buffer)) return;
  kept.push(buffer);
  if (kept.length > MAX_KEPT) kept.sort((a, b) => b.length - a.length).pop();
}

/** How many buffers and bytes the pool holds (for tests and diagnostics). */
export function keptValueBytes(): { buffers: number; bytes: number } {
  return { buffers: kept.length, bytes: kept.reduce((n, b) => n + b.length, 0) };
}
