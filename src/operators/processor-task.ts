import type { Batch } from "../batch/batch.js";
import type { TransformWithStateSpec } from "../planner/physical.js";
import type { ProcessorCounters, StateKind } from "./processor-state.js";
import type { StateRows } from "./state-rows.js";

/**
 * A `transformWithState` batch's user code as tasks: the driver keeps the operator's state and
 * decides which grouping keys the batch touches (keys with rows, with a timer due, with an initial
 * state); each task carries some of those keys with their rows and stored state to a worker, which
 * imports the processor, runs it over them (processor-run.ts) and sends back the rows it emitted
 * and the state rows it wrote. As in Spark, where each partition's task has its own processor
 * instance, a task constructs the processor, calls `init`, works through its keys and calls `close`.
 */
export interface ProcessorTask {
  readonly kind: "processor";
  readonly spec: TransformWithStateSpec;
  readonly batchId: number;
  /** The batch's timestamp: processing-time timers and TTL are judged by it. */
  readonly batchTimestampMs: number;
  /** The operator's eviction watermark (event-time timers fire before it); null before any. */
  readonly watermarkMs: number | null;
  /** Timers before this fire (the batch timestamp or the watermark, by time mode); null: none do. */
  readonly timerThresholdMs: number | null;
  /** The task's grouping keys, each as its canonical text (canonical-key.ts), decoded where the processor sees them. */
  readonly keys: readonly string[];
  /** How many rows of `input` each key has (a key's rows follow the previous keys' rows). */
  readonly inputCounts: Int32Array;
  /** Each key's row in `initialState`, or -1. */
  readonly initialRows: Int32Array;
  /** The rows of the keys that have some, key after key, each key's in arrival order. */
  readonly input: Batch | null;
  /** The initial state's rows of these keys (the query's first batch only). */
  readonly initialState: Batch | null;
  /** Every state row the keys have. */
  readonly state: StateRows;
}

/** A state variable the processor declared in `init`, for the operator's custom metrics. */
export interface DeclaredVariable {
  readonly name: string;
  readonly kind: StateKind;
  readonly ttlMs: number | null;
}

export interface ProcessorTaskResult {
  readonly kind: "processor";
  /** The rows the processor emitted, in the output schema. */
  readonly batch: Batch;
  /** The state rows the processor wrote or removed, each once, as they ended. */
  readonly writes: StateRows;
  /** Former variables `init` dropped with `deleteIfExists`: every key's rows of them go. */
  readonly deletedVariables: readonly string[];
  readonly declared: readonly DeclaredVariable[];
  readonly counters: ProcessorCounters;
}

/** How the driver's operator runs its tasks: in the worker pool, or inline with `workers: 0`. */
export interface ProcessorTaskRunner {
  /** Tasks a batch's keys are split into at most (the pool's workers; 1 inline). */
  readonly parallelism: number;
  run(tasks: readonly ProcessorTask[]): Promise<ProcessorTaskResult[]>;
}
