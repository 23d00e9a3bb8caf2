import type { Batch } from "../batch/batch.js";
import type { LogicalPlan } from "../plan/logical.js";
import type { WriterConfig } from "../runtime/writer-config.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { DataFrame } from "./data-frame.js";

/** What DataFrames and writers need from their session; implemented by `Session`. */
export interface SessionInternals {
  /** `action` names the work on the console progress bar (`collect`, `show`...). */
  executeStatic(plan: LogicalPlan, action?: string): Promise<Batch>;
  startStream(plan: LogicalPlan, config: WriterConfig): StreamingQuery;
  /** Registers a temporary view SQL can read (`df.createTempView` / `createOrReplaceTempView`). */
  createTempView(name: string, df: DataFrame<any>, replace: boolean): void;
}
