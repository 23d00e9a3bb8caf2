import type { Batch } from "../batch/batch.js";
import type { OutputMode } from "../config/options.js";

/**
 * Where a streaming query's results go. `addBatch` may be called again with a batch id it has
 * already seen (after a restart that re-runs the last uncommitted batch); each sink declares how
 * it deals with that.
 */
export interface Sink {
  /** Shown as `sink.description` in progress. */
  readonly description: string;
  /** idempotent: a repeated batch id has no effect; at-least-once: it may be written twice. */
  readonly guarantee: "idempotent" | "at-least-once";
  addBatch(batchId: number, data: Batch, mode: OutputMode): Promise<void>;
  /** Releases connections when the query stops. */
  close?(): Promise<void>;
}
