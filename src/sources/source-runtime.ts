import type { Batch } from "../batch/batch.js";
import type { TaskMetrics } from "../batch/task-metrics.js";
import type { MemoryStreamData } from "./memory/memory-stream.js";
import type { InputSplit } from "./input-split.js";
import type { SourceDesc } from "./source-desc.js";
import type { StreamSource } from "./source.js";

/** What opening a stream may need from the query. */
export interface StreamContext {
  readonly memoryStream: (id: string) => MemoryStreamData | undefined;
  /** Folder under the checkpoint where this source keeps its own log. */
  readonly sourceDir: string;
}

/** What a static read may need from the session. */
export interface StaticContext {
  /** The current batches of an in-memory table. */
  readonly tableBatches: (tableId: string) => readonly Batch[];
}

/**
 * How a kind of source is read: on the driver (a stream's offsets and splits, a static read's
 * splits) and in the worker that runs a task (one split into a columnar batch). Each source
 * folder exports one; `source-runtimes.ts` dispatches to them.
 */
export interface SourceRuntime<D extends SourceDesc, S extends InputSplit> {
  /** The kind of split `planSplits` / `staticSplits` hand out and `readSplit` reads. */
  readonly splitKind: S["kind"];
  openStream(desc: D, ctx: StreamContext): StreamSource<any, S>;
  staticSplits(desc: D, ctx: StaticContext): Promise<readonly S[]>;
  readSplit(desc: D, split: S, metrics: TaskMetrics): Promise<Batch>;
  /** What a split reads, in words, for errors that must say which input a failed task was given. */
  describeSplit(split: S): string;
  /**
   * Real-time mode's reader of a split whose end is open (see `StreamSource.realTimeSplits`):
   * present on the kinds real-time mode reads.
   */
  openTail?(desc: D, split: S, metrics: TaskMetrics): SplitTail;
  /** Closes connections kept for this kind of source (a session's stop). */
  closeConnections?(): Promise<void>;
}

/** Reads one split as its records arrive (real-time mode), in the task that owns it. */
export interface SplitTail {
  /** The records that arrived since the last call, waiting up to `waitMs` for some; null when none came. */
  next(waitMs: number): Promise<Batch | null>;
  /** Where the split has been read to, as the source's `realTimeEnd` takes it (plain data). */
  position(): unknown;
  /** Closes the connections the tail opened for itself. */
  close(): Promise<void>;
}
