import type { Batch } from "../batch/batch.js";
import type { LogicalPlan } from "../plan/logical.js";
import type { WriterConfig } from "../runtime/writer-config.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { DataFrame } from "./data-frame.js";

/** Spark's explain modes; the embedded engine has one description of a plan, its logical plan. */
export type ExplainMode = "simple" | "extended" | "codegen" | "cost" | "formatted";

/** What DataFrames and writers need from their session; implemented by `Session`. */
export interface SessionInternals {
  /** `action` names the work on the console progress bar (`collect`, `show`...). */
  executeStatic(plan: LogicalPlan, action?: string): Promise<Batch>;
  startStream(plan: LogicalPlan, config: WriterConfig): StreamingQuery;
  /** `df.explain(mode)`: the plan as the backend that would run it describes it. */
  explain(plan: LogicalPlan, mode: ExplainMode): Promise<string>;
  /** Registers a temporary view SQL can read (`df.createTempView` / `createOrReplaceTempView`). */
  createTempView(name: string, df: DataFrame<any>, replace: boolean): void;
}
