/**
 * What the work on one input split reports, read by the driver into progress: the source's
 * reader fills the input figures, operators add rows dropped as late and event-time statistics.
 */

/** Min, max, sum and count of one event-time column's values (nulls left out). */
export interface EventTimeStats {
  min: number;
  max: number;
  sum: number;
  count: number;
}

export interface TaskMetrics {
  /** Rows read from the source split, before any operator. */
  numInputRows: number;
  numRowsDroppedByWatermark: number;
  /** Malformed records dropped (DROPMALFORMED) or kept as corrupt (PERMISSIVE). */
  numMalformedRecords: number;
  /** Per watermark index: event-time statistics of the rows observed; null when none. */
  eventTime: (EventTimeStats | null)[];
}

export function emptyMetrics(numWatermarks: number): TaskMetrics {
  return {
    numInputRows: 0,
    numRowsDroppedByWatermark: 0,
    numMalformedRecords: 0,
    eventTime: Array.from({ length: numWatermarks }, () => null),
  };
}

/** Merges event-time statistics of one watermark input. */
export function mergeStats(a: EventTimeStats | null, b: EventTimeStats | null): EventTimeStats | null {
  if (!a) return b;
  if (!b) return a;
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max), sum: a.sum + b.sum, count: a.count + b.count };
}

/** Merges two lists of event-time statistics, watermark input by watermark input. */
export function mergeAllStats(a: readonly (EventTimeStats | null)[], b: readonly (EventTimeStats | null)[]): (EventTimeStats | null)[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => mergeStats(a[i] ?? null, b[i] ?? null));
}
