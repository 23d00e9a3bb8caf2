import type { Batch } from "../batch/batch.js";
import type { TaskMetrics } from "../batch/task-metrics.js";
import type { OutputMode } from "../config/options.js";
import type { BatchInfo } from "../operators/exec.js";
import type { InputPipeline } from "../planner/physical.js";
import type { InputSplit } from "../sources/input-split.js";

/**
 * What travels between the driver and a worker. A task is one input split pushed through one
 * input pipeline; its result is a batch plus the metrics the driver folds into progress.
 */

export interface Task {
  readonly pipeline: InputPipeline;
  readonly split: InputSplit;
  /** The micro-batch the task belongs to. */
  readonly context: BatchInfo;
  readonly outputMode: OutputMode;
  /** Static join tables by id, as shared-memory handles (see operators/static-join-exec). */
  readonly staticTables: Readonly<Record<string, unknown>>;
}

export interface TaskResult {
  readonly batch: Batch;
  readonly metrics: TaskMetrics;
}
