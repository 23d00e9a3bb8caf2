import type { Batch } from "../batch/batch.js";

/** Rows the driver already holds (a memory stream's block, an in-memory table), sent to the task as they are. */
export interface BatchSplit {
  readonly kind: "batch";
  readonly batch: Batch;
}
