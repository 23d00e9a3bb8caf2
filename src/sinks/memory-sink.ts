import type { Batch } from "../batch/batch.js";
import type { OutputMode } from "../config/options.js";
import type { Fields } from "../types/dtype.js";
import type { Sink } from "./sink.js";

/**
 * Keeps results in memory under the query name, readable as `session.table(name)`, as Spark's
 * memory sink: append and update modes add the batch's rows, complete mode replaces them.
 * Idempotent by batch id: a re-run batch replaces its own earlier rows instead of adding twice.
 */
export class MemorySink implements Sink {
  readonly guarantee = "idempotent" as const;
  readonly requiresCheckpoint = false;
  private readonly batches = new Map<number, Batch>();
  private replaceOnWrite = false;

  constructor(
    readonly name: string,
    readonly fields: Fields,
  ) {}

  get description(): string {
    return `MemorySink[${this.name}]`;
  }

  describe(): string {
    return `${this.description} (idempotent: a re-run batch replaces the rows its batch id wrote before)`;
  }

  async addBatch(batchId: number, data: Batch, mode: OutputMode): Promise<void> {
    this.replaceOnWrite = mode === "complete";
    if (this.replaceOnWrite) this.batches.clear();
    this.batches.set(batchId, data);
  }

  /** The table's rows as batches, in batch order. */
  contents(): Batch[] {
    return [...this.batches.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
  }

  /** Rows added by one batch id (for tests and `checkLastBatch`). */
  batch(batchId: number): Batch | undefined {
    return this.batches.get(batchId);
  }

  get lastBatchId(): number | null {
    const ids = [...this.batches.keys()];
    return ids.length ? Math.max(...ids) : null;
  }
}
