import type { Batch } from "../batch/batch.js";
import type { Sink } from "./sink.js";
import { formatTable } from "./format-table.js";

/** Prints each batch as Spark's console sink does. At-least-once: a re-run batch prints again. */
export class ConsoleSink implements Sink {
  readonly description = "ConsoleSink";
  readonly guarantee = "at-least-once" as const;
  readonly requiresCheckpoint = false;

  constructor(
    private readonly options: { numRows: number; truncate: boolean },
    private readonly write: (text: string) => void = (t) => process.stdout.write(t),
  ) {}

  describe(): string {
    return "ConsoleSink (at-least-once: a batch re-run after a restart is printed again)";
  }

  async addBatch(batchId: number, data: Batch): Promise<void> {
    const rule = "-------------------------------------------";
    this.write(`${rule}\nBatch: ${batchId}\n${rule}\n${formatTable(data, this.options.numRows, this.options.truncate)}\n`);
  }
}
