import type { Batch } from "../batch/batch.js";
import type { SqlConf } from "../config/sql-conf.js";
import type { MemorySink } from "../sinks/memory-sink.js";
import type { MemoryStreamData } from "../sources/memory/memory-stream.js";
import type { Fields } from "../types/dtype.js";
import type { TaskPool } from "../workers/pool.js";
import type { ConsoleProgressBar } from "./console-progress.js";
import type { StreamingQueryManager } from "./query-manager.js";

/** How much of a query's history its checkpoint keeps (Spark's names). */
export interface RetentionSettings {
  /** Batches whose logs and state stay recoverable; older ones are deleted. */
  readonly minBatchesToRetain: number;
  /** State versions between two state snapshots; the versions between are delta files. */
  readonly minDeltasForSnapshot: number;
}

/**
 * What the runtime needs from the session that started a query: the worker pool, the query
 * manager, and the data a session holds in memory (memory streams, in-memory tables and the
 * tables of memory sinks).
 */
export interface EngineContext {
  readonly pool: TaskPool;
  readonly retention: RetentionSettings;
  /** The session's default checkpoint root (Spark's spark.sql.streaming.checkpointLocation), if any. */
  readonly checkpointRoot: string | null;
  /** How long `stop()` waits for the batch in flight, in ms. */
  readonly stopTimeoutMs: number;
  /** The session's Spark SQL settings now: a query reads them once, when it starts. */
  readonly conf: SqlConf;
  readonly streams: StreamingQueryManager;
  /** The session's progress bar on stderr: long static actions and availableNow drains report to it. */
  readonly consoleProgress: ConsoleProgressBar;
  memoryStream(id: string): MemoryStreamData | undefined;
  /** The current batches of an in-memory table (`createDataFrame`, `fromArrow`, `session.table`). */
  tableBatches(tableId: string): readonly Batch[];
  /** The memory sink named `name`, created with `fields` on first use. */
  memorySink(name: string, fields: Fields): MemorySink;
}
