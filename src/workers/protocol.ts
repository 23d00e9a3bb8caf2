import type { Batch } from "../batch/batch.js";
import type { TaskMetrics } from "../batch/task-metrics.js";
import type { OutputMode } from "../config/options.js";
import type { BatchInfo } from "../operators/exec.js";
import type { ProcessorTask, ProcessorTaskResult } from "../operators/processor-task.js";
import type { InputPipeline } from "../planner/physical.js";
import type { InputSplit } from "../sources/input-split.js";

/**
 * What travels between the driver and a worker. An input task is one input split pushed through
 * one input pipeline; its result is a batch plus the metrics the driver folds into progress. A
 * processor task runs a transformWithState processor over some grouping keys (see
 * operators/processor-task.ts).
 */
export type Task = InputTask | ProcessorTask;

export interface InputTask {
  readonly kind: "input";
  readonly pipeline: InputPipeline;
  readonly split: InputSplit;
  /** The micro-batch the task belongs to. */
  readonly context: BatchInfo;
  readonly outputMode: OutputMode;
  /** Static join tables by id, as shared-memory handles (see operators/static-join-exec). */
  readonly staticTables: Readonly<Record<string, unknown>>;
}

export interface InputTaskResult {
  readonly kind: "input";
  readonly batch: Batch;
  readonly metrics: TaskMetrics;
}

export type TaskResult = InputTaskResult | ProcessorTaskResult;

/** The result of a task of type T. */
export type ResultOf<T extends Task> = T extends ProcessorTask ? ProcessorTaskResult : InputTaskResult;
