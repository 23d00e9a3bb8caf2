import type { Checkpoint } from "../checkpoint/checkpoint.js";
import type { CheckpointLock } from "../checkpoint/checkpoint-lock.js";
import type { OutputMode, Trigger } from "../config/options.js";
import type { PhysicalPlan } from "../planner/physical.js";
import type { Sink } from "../sinks/sink.js";
import type { StreamSource } from "../sources/source.js";
import type { StateStoreProvider } from "../state/state-store.js";
import type { TaskPool } from "../workers/pool.js";
import type { Clock } from "./clock.js";
import type { ConsoleProgressBar } from "./console-progress.js";
import type { StreamingQueryProgress } from "./progress.js";
import type { RelayedConf } from "./relayed-conf.js";

/** What a query's execution (micro-batch or real-time) is given when the query starts. */
export interface ExecutionDeps {
  readonly id: string;
  readonly runId: string;
  readonly name: string | null;
  readonly plan: PhysicalPlan;
  readonly sources: readonly StreamSource[];
  readonly sink: Sink;
  readonly outputMode: OutputMode;
  readonly trigger: Trigger;
  /** spark.sql.streaming.noDataMicroBatches.enabled, as the session had it when the query started. */
  readonly noDataMicroBatches: boolean;
  /** The settings a new checkpoint keeps (the session's when the query started); an existing checkpoint's own prevail. */
  readonly relayedConf: RelayedConf;
  readonly checkpoint: Checkpoint;
  /** Held by this run; checked before every log write, so two runs never both write a batch. */
  readonly lock: CheckpointLock;
  readonly pool: TaskPool;
  /** Where the state of the query's stateful operators is kept. */
  readonly stateStores: StateStoreProvider;
  /** Log entries of the last this many batches are kept; older ones are deleted after each commit. */
  readonly minBatchesToRetain: number;
  readonly staticTables: Readonly<Record<string, unknown>>;
  readonly onProgress: (p: StreamingQueryProgress) => void;
  readonly onIdle: () => void;
  /** The trigger clock; the system clock unless a test drives time. */
  readonly clock?: Clock;
  /** Where an availableNow drain shows its progress (the session's bar on stderr). */
  readonly consoleProgress?: ConsoleProgressBar;
}
