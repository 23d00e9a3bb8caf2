import type { BatchSizingProgress } from "./batch-sizer.js";

/**
 * Spark's `StreamingQueryProgress`, field for field, so dashboards and habits carry over. Event
 * times are ISO-8601 strings in UTC, durations milliseconds, rates rows per second.
 */
export interface StreamingQueryProgress {
  readonly id: string;
  readonly runId: string;
  readonly name: string | null;
  readonly timestamp: string;
  readonly batchId: number;
  readonly batchDuration: number;
  readonly numInputRows: number;
  readonly inputRowsPerSecond: number;
  readonly processedRowsPerSecond: number;
  readonly durationMs: DurationMs;
  readonly eventTime: EventTimeProgress;
  readonly stateOperators: readonly StateOperatorProgress[];
  readonly sources: readonly SourceProgress[];
  readonly sink: SinkProgress;
  readonly observedMetrics: Readonly<Record<string, unknown>>;
  /** Sluice's: how a `latencyTarget` trigger sized this batch; absent under other triggers. */
  readonly batchSizing?: BatchSizingProgress;
}

export interface DurationMs {
  readonly latestOffset?: number;
  readonly queryPlanning?: number;
  readonly walCommit?: number;
  readonly getBatch?: number;
  readonly addBatch?: number;
  readonly commitOffsets?: number;
  readonly triggerExecution: number;
}

/** `min`/`max`/`avg` of the batch's event times and the watermark in force; absent fields have no value. */
export interface EventTimeProgress {
  readonly avg?: string;
  readonly max?: string;
  readonly min?: string;
  readonly watermark?: string;
}

export interface StateOperatorProgress {
  readonly operatorName: string;
  readonly numRowsTotal: number;
  readonly numRowsUpdated: number;
  readonly numRowsRemoved: number;
  readonly allUpdatesTimeMs: number;
  readonly allRemovalsTimeMs: number;
  readonly commitTimeMs: number;
  readonly memoryUsedBytes: number;
  readonly numRowsDroppedByWatermark: number;
  readonly numShufflePartitions: number;
  readonly numStateStoreInstances: number;
  readonly customMetrics: Readonly<Record<string, number>>;
}

export interface SourceProgress {
  readonly description: string;
  readonly startOffset: unknown;
  readonly endOffset: unknown;
  readonly latestOffset: unknown;
  readonly numInputRows: number;
  readonly inputRowsPerSecond: number;
  readonly processedRowsPerSecond: number;
  /** Source-specific figures as strings, as Spark's; Sluice adds `numMalformedRecords`. */
  readonly metrics: Readonly<Record<string, string>>;
}

export interface SinkProgress {
  readonly description: string;
  readonly numOutputRows: number;
  readonly metrics: Readonly<Record<string, string>>;
}

/** Spark's `StreamingQueryStatus`. */
export interface StreamingQueryStatus {
  readonly message: string;
  readonly isDataAvailable: boolean;
  readonly isTriggerActive: boolean;
}

export function isoOrUndefined(ms: number | null | undefined): string | undefined {
  return ms === null || ms === undefined || !Number.isFinite(ms) ? undefined : new Date(ms).toISOString();
}

/** Rows per second over `ms`, 0 when no time passed (as Spark reports it). */
export function rate(rows: number, ms: number): number {
  return ms > 0 ? (rows * 1000) / ms : 0;
}
