import type { Batch } from "../batch/batch.js";
import type { LatencyCounts } from "../batch/latency-histogram.js";
import type { EventTimeStats, TaskMetrics } from "../batch/task-metrics.js";
import type { KafkaSinkOptions } from "../sinks/kafka-sink.js";
import type { Fields } from "../types/dtype.js";
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
export type Task = InputTask | ProcessorTask | RealTimeTask;

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

export type TaskResult = InputTaskResult | ProcessorTaskResult | RealTimeTaskResult;

/** The result of a task of type T. */
export type ResultOf<T extends Task> = T extends ProcessorTask ? ProcessorTaskResult : T extends RealTimeTask ? RealTimeTaskResult : InputTaskResult;

/**
 * A long-running task of real-time mode (runtime/real-time-execution.ts): it reads its splits as
 * records arrive, runs each one's pipeline on what arrived, and writes the output at once, until
 * the batch's deadline or a stop. Each split's position is reported only once its output is in
 * the sink.
 */
export interface RealTimeTask {
  readonly kind: "realTime";
  /** The open-ended splits this task owns, each with the pipeline that reads it. */
  readonly splits: readonly { readonly pipeline: InputPipeline; readonly split: InputSplit }[];
  readonly context: BatchInfo;
  readonly outputMode: OutputMode;
  readonly staticTables: Readonly<Record<string, unknown>>;
  /** Epoch ms at which the batch ends (its checkpoint interval after it started). */
  readonly deadlineMs: number;
  /** Set to non-zero (Atomics) by the driver to end the task early: a stop, or another task's failure. */
  readonly stop: Int32Array;
  readonly numWatermarks: number;
  /** Where the output goes: written by the task as it is produced, or collected for the driver's sink at the batch's end. */
  readonly sink: RealTimeSinkSpec;
  readonly outputFields: Fields;
}

export type RealTimeSinkSpec = { readonly kind: "kafka"; readonly options: KafkaSinkOptions } | { readonly kind: "collect" };

export interface RealTimeTaskResult {
  readonly kind: "realTime";
  /** The collected output (a "collect" sink); empty otherwise. */
  readonly batch: Batch;
  /** Per split, in task order: where it was read to (all output before it is in the sink) and its figures. */
  readonly splits: readonly RealTimeSplitResult[];
  readonly eventTime: readonly (EventTimeStats | null)[];
  readonly numOutputRows: number;
  readonly latency: RealTimeLatencies;
}

/** Per input record, in ms: where its time went between its Kafka timestamp and its output in the sink. */
export interface RealTimeLatencies {
  /** Its timestamp to its output acknowledged by the sink (rows filtered out: to their processing). */
  readonly endToEnd: LatencyCounts;
  /** Its timestamp to its processing starting: the broker's delivery of the fetch, and the decode. */
  readonly fetched: LatencyCounts;
  /** Its output handed to the sink to the sink's acknowledgement (rows with output only). */
  readonly written: LatencyCounts;
}

export interface RealTimeSplitResult {
  readonly position: unknown;
  readonly numInputRows: number;
  readonly numMalformedRecords: number;
}
