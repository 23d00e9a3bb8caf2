import type { Batch } from "../batch/batch.js";
import type { OutputMode } from "../config/options.js";

/**
 * What a sink promises when a batch id comes again (a restart re-runs the last batch whose
 * commit was not written):
 * - `idempotent`: a repeated batch id has no effect (the memory sink replaces the batch's rows,
 *   the file sink skips a batch its manifest already lists);
 * - `transactional`: each batch is written atomically and the sink itself records which batch it
 *   wrote last, so a re-run batch that already reached it is skipped (Kafka with transactions);
 * - `at-least-once`: a re-run batch is written again (console, plain Kafka, foreachBatch unless
 *   the function itself uses the batch id to skip work it did).
 * `idempotent` and `transactional` give exactly-once output across crashes.
 */
export type SinkGuarantee = "idempotent" | "transactional" | "at-least-once";

/** What a sink learns when the query starts, before its first `addBatch`. */
export interface SinkContext {
  /** The query's id: stable across restarts on one checkpoint (a transactional id derives from it). */
  readonly queryId: string;
  /** The query's checkpoint folder. */
  readonly checkpointLocation: string;
  readonly outputMode: OutputMode;
}

/**
 * Where a streaming query's results go. `addBatch` may be called again with a batch id it has
 * already seen; `guarantee` says what then happens.
 */
export interface Sink {
  /** Shown as `sink.description` in progress, as Spark's (e.g. `KafkaSink[topic]`). */
  readonly description: string;
  readonly guarantee: SinkGuarantee;
  /**
   * Whether the sink's guarantee rests on the checkpoint (its output outlives the process), so
   * a query must name a `checkpointLocation`, as Spark requires for its file, Kafka and
   * foreachBatch sinks: without one a restart could not tell which batches were written.
   */
  readonly requiresCheckpoint: boolean;
  /** One line for users: the sink, its guarantee and how it keeps it. */
  describe(): string;
  /** Called once per run before the first batch (connects, recovers its own bookkeeping). */
  open?(context: SinkContext): Promise<void>;
  addBatch(batchId: number, data: Batch, mode: OutputMode): Promise<void>;
  /** Releases connections when the query stops. */
  close?(): Promise<void>;
}
