import type { Batch } from "../batch/batch.js";
import type { Sink } from "./sink.js";

/**
 * Hands each batch to a function on the driver, as Spark's `foreachBatch`. At-least-once: after a
 * crash the last uncommitted batch is handed over again with the same batch id and the same
 * rows, so a function that records the ids it finished (in the same transaction as its writes)
 * can skip a repeat and make the whole query exactly-once.
 */
export class ForeachBatchSink implements Sink {
  readonly description = "ForeachBatchSink";
  readonly guarantee = "at-least-once" as const;
  readonly requiresCheckpoint = true;

  constructor(private readonly fn: (batch: Batch, batchId: number) => unknown) {}

  describe(): string {
    return "ForeachBatchSink (at-least-once: a re-run batch is handed over again with the same batchId; skip ids already done to make it exactly-once)";
  }

  async addBatch(batchId: number, data: Batch): Promise<void> {
    await this.fn(data, batchId);
  }
}
