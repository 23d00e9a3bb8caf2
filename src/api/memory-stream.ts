import type { Batch } from "../batch/batch.js";
import type { MemoryStreamData } from "../sources/memory/memory-stream.js";
import type { RowOf, SchemaShape } from "../types/dtype.js";
import { DataFrame } from "./data-frame.js";
import type { SessionInternals } from "./session-internals.js";

/**
 * A stream fed from code, for tests and examples (Spark's `MemoryStream`). Each `addData` call is
 * one unit of the stream's offset: a batch reads whole calls, never part of one.
 */
export class MemoryStream<S extends SchemaShape> {
  /** @internal */
  constructor(
    private readonly session: SessionInternals,
    /** @internal */ readonly data: MemoryStreamData<S>,
  ) {}

  /** Appends rows; returns the stream offset that includes them. */
  addData(...rows: RowOf<S>[]): number {
    return this.data.addData(rows);
  }

  /** Appends a columnar batch whose fields match the stream's schema. */
  addBatch(batch: Batch): number {
    return this.data.addBatch(batch);
  }

  /** The stream as a DataFrame, to query with `writeStream`. */
  toDF(): DataFrame<S> {
    return new DataFrame<S>(this.session, {
      kind: "source",
      streaming: true,
      source: { format: "memory", streamId: this.data.id, fields: this.data.fields },
      fields: this.data.fields,
    });
  }
}
