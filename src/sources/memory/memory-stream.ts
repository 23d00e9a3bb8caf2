import type { Batch } from "../../batch/batch.js";
import { rowsToBatch } from "../../batch/rows.js";
import type { RowOf, SchemaShape } from "../../types/dtype.js";
import type { Fields } from "../../types/dtype.js";
import { z } from "zod";
import { SluiceError } from "../../errors/errors.js";
import type { BatchSplit } from "../batch-split.js";
import type { Backlog, ReadLimit, StreamSource } from "../source.js";
import { memoryKind } from "./memory-kind.js";

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

/** A memory stream's offset: the number of blocks added. */
const blockCount = z.number().int().min(0);

export class MemoryStreamSource implements StreamSource<number, BatchSplit> {
  readonly description: string;

  constructor(private readonly data: MemoryStreamData) {
    this.description = memoryKind.describe({ format: "memory", streamId: data.id, fields: data.fields });
  }

  parseOffset(value: unknown): number {
    return blockCount.parse(value);
  }

  initialOffset(): number {
    return 0;
  }

  /** Set by an availableNow run: the blocks it reads (those added before it started). */
  private availableNowEnd: number | null = null;

  /** A row limit takes whole blocks: as many as fit, and always at least one (a block is never cut). */
  readonly limitsRows = true;

  async latestOffset(start: number, limit?: ReadLimit): Promise<number> {
    const end = this.availableNowEnd ?? this.data.latest;
    if (limit === undefined) return end;
    let rows = 0;
    let offset = start;
    for (const block of this.data.blocksBetween(start, end)) {
      rows += block.numRows;
      if (rows > limit.maxRows && offset > start) break;
      offset++;
    }
    return offset;
  }

  async prepareForTriggerAvailableNow(): Promise<void> {
    this.availableNowEnd = this.data.latest;
  }

  async reportLatestOffset(): Promise<number> {
    return this.data.latest;
  }

  async backlog(from: number): Promise<Backlog> {
    return { rows: this.data.blocksBetween(from, this.data.latest).reduce((n, b) => n + b.numRows, 0) };
  }

  async planSplits(s: number, e: number): Promise<readonly BatchSplit[]> {
    if (e > this.data.latest) {
      throw new SluiceError(`memory stream offset ${e} is beyond the data it holds (${this.data.latest} blocks); was the stream recreated?`);
    }
    return this.data.blocksBetween(s, e).map((batch) => ({ kind: "batch", batch }) as const);
  }

  commit(): void {}

  async stop(): Promise<void> {}
}
