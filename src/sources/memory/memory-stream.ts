import type { Batch } from "../../batch/batch.js";
import { rowsToBatch } from "../../batch/rows.js";
import type { RowOf, SchemaShape } from "../../types/dtype.js";
import type { Fields } from "../../types/dtype.js";
import type { InputSplit } from "../../workers/protocol.js";
import type { Offset, StreamSource } from "../source.js";
import { SluiceError } from "../../errors/errors.js";

let nextStreamId = 0;

/**
 * In-memory stream for tests and examples, as Spark's `MemoryStream`: each `addData` call appends
 * one block of rows and advances the offset by one. Offsets are block counts, so a query that
 * restarts from its checkpoint re-reads exactly the blocks after its last commit.
 */
export class MemoryStreamData<S extends SchemaShape = SchemaShape> {
  readonly id = `memory-${nextStreamId++}`;
  private readonly blocks: Batch[] = [];

  constructor(readonly fields: Fields) {}

  /** Appends rows as one block; returns the offset that includes them. */
  addData(rows: readonly RowOf<S>[]): number {
    this.blocks.push(rowsToBatch(rows as readonly Record<string, unknown>[], this.fields));
    return this.blocks.length;
  }

  /** Appends an already columnar batch as one block. */
  addBatch(batch: Batch): number {
    this.blocks.push(batch);
    return this.blocks.length;
  }

  get latest(): number {
    return this.blocks.length;
  }

  blocksBetween(start: number, end: number): readonly Batch[] {
    return this.blocks.slice(start, end);
  }
}

export class MemoryStreamSource implements StreamSource {
  readonly description: string;

  constructor(private readonly data: MemoryStreamData) {
    this.description = `MemoryStream[${data.fields.map((f) => f.name).join(",")}]`;
  }

  initialOffset(): Offset {
    return 0;
  }

  async latestOffset(): Promise<Offset> {
    return this.data.latest;
  }

  async reportLatestOffset(): Promise<Offset> {
    return this.data.latest;
  }

  async planSplits(start: Offset, end: Offset): Promise<readonly InputSplit[]> {
    const s = start as number;
    const e = end as number;
    if (e > this.data.latest) {
      throw new SluiceError(`memory stream offset ${e} is beyond the data it holds (${this.data.latest} blocks); was the stream recreated?`);
    }
    return this.data.blocksBetween(s, e).map((batch) => ({ kind: "batch", batch }) as const);
  }

  commit(): void {}

  async stop(): Promise<void> {}
}
