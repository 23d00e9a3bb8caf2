import { BytesPool } from "../../../kernels/bytes-pool.js";

/**
 * The thread's pool of value byte buffers (../../../kernels/bytes-pool.ts). A task reading a
 * Kafka range copies every record's value into one buffer (tens of MB: W1's 250,000-record tasks
 * hold 61 MB of JSON), and when a record schema decodes the values into columns of their own,
 * that buffer is garbage as soon as the task has decoded them.
 */

/** Larger buffers are left to the collector rather than held while idle. */
export const MAX_KEPT_BYTES = 256 * 1024 * 1024;

/** Buffers kept per thread: one per task a worker runs at once, plus one. */
const pool = new BytesPool(2, MAX_KEPT_BYTES);

/** A buffer of at least `bytes` bytes (contents undefined), from the pool when one is large enough. */
export const takeValueBytes = (bytes: number): Uint8Array => pool.take(bytes);

/** Gives `buffer` back once nothing refers to it any more (not one behind a column the task returns). */
export const giveBackValueBytes = (buffer: Uint8Array): void => pool.giveBack(buffer);

/** How many buffers and bytes the pool holds (for tests and diagnostics). */
export const keptValueBytes = (): { buffers: number; bytes: number } => pool.size();
