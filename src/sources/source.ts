import type { InputSplit } from "./input-split.js";

/** A source offset as the runtime holds it: JSON data whose shape only its source knows. */
export type Offset = unknown;

/** How much data a source holds beyond an offset; a unit the source cannot count is absent. */
export interface Backlog {
  /** Files with data (empty files are never read), and their bytes. */
  readonly files?: number;
  readonly bytes?: number;
  /** Rows, or for Kafka offsets (an upper bound where topics are compacted or transactional). */
  readonly rows?: number;
}

/**
 * How much the next batch may read, decided by the query rather than the source's own options
 * (Spark's `ReadLimit`): a `latencyTarget` trigger sizes every batch. A source applies it on top
 * of its own limits (the smaller wins).
 */
export interface ReadLimit {
  /** The most rows (Kafka offsets) the batch may read from this source. */
  readonly maxRows: number;
}

/**
 * A streaming source as the micro-batch loop sees it (Spark's `SupportsAdmissionControl` shape),
 * typed by its own offset `O` and split `S`: the driver asks for the latest offset it may read up
 * to, records it in the offsets log, and asks for the splits between two offsets. Reading the
 * data happens in workers, from the splits.
 */
export interface StreamSource<O = Offset, S extends InputSplit = InputSplit> {
  /** Shown as `sources[].description` in progress. */
  readonly description: string;
  /**
   * An offset read back from the checkpoint, checked for this source's shape; throws an Error
   * saying what is wrong (the caller names the file).
   */
  parseOffset(value: unknown): O;
  /**
   * The offset before any data; batch 0 reads from here. Sources that resolve it against live
   * data (Kafka's "latest") record it in their folder under the checkpoint, so a query that
   * restarts before its first commit starts from the same place.
   */
  initialOffset(): O | Promise<O>;
  /**
   * The offset the next batch should end at, honouring rate limits (maxFilesPerTrigger...) and,
   * where `limitsRows` is set, the query's `limit`. Equal to `start` when there is nothing new.
   */
  latestOffset(start: O, limit?: ReadLimit): Promise<O>;
  /** True when `latestOffset` honours a row `ReadLimit` (Spark's SupportsAdmissionControl with maxRows). */
  readonly limitsRows?: boolean;
  /** The newest offset available regardless of rate limits, for lag and progress. */
  reportLatestOffset(): Promise<O>;
  /**
   * Spark's `prepareForTriggerAvailableNow`: called once when an availableNow run starts, before
   * its first batch. From then on `latestOffset` never goes past what the source holds now, so the
   * run ends once that is read (rate limits still split it into batches), however fast new data
   * keeps arriving. Absent only where the query refuses availableNow (the rate source).
   */
  prepareForTriggerAvailableNow?(): Promise<void>;
  /**
   * What is waiting after `from`, rate limits aside, in the units this source knows: the total
   * an availableNow drain's console progress bar counts towards. Optional.
   */
  backlog?(from: O): Promise<Backlog>;
  /**
   * Input splits covering (start, end]; one task each. A source that can cut its data finer
   * makes at least `minSplits` when asked (a sized batch spreads over the workers).
   */
  planSplits(start: O, end: O, minSplits?: number): Promise<readonly S[]>;
  /**
   * Real-time mode (Spark's SupportsRealTimeMode): one split per partition from `start`, open at
   * the end (each is read as records arrive until the checkpoint interval ends). Present on the
   * sources real-time mode reads.
   */
  realTimeSplits?(start: O): Promise<readonly S[]>;
  /** Where a real-time batch ended: `start` moved to the `positions` its `splits` were read to (Spark's mergeOffsets). */
  realTimeEnd?(start: O, splits: readonly S[], positions: readonly unknown[]): O;
  /** Called after batch `end` committed: data before it will not be asked for again. */
  commit(end: O): void;
  /** Source-specific progress metrics for a batch that ended at `end` (Spark's `metrics` map). */
  metrics?(end: O): Readonly<Record<string, string>>;
  /** Releases connections; called when the query stops. */
  stop(): Promise<void>;
}

export function sameOffset(a: Offset, b: Offset): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
