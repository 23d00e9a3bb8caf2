/**
 * Event-time window assignment for Spark's `window(time, size, slide, start)`: a row at time t
 * belongs to every window [s, s + size) with s ≡ start (mod slide) and s <= t < s + size.
 * Tumbling windows are the case slide === size. Times are float64 epoch milliseconds.
 */
export interface TimeWindowSpec {
  readonly sizeMs: number;
  readonly slideMs: number;
  readonly startMs: number;
}

/** The latest window start at or before t. Correct for negative times, where `%` is negative. */
export function lastWindowStart(t: number, slideMs: number, startMs: number): number {
  let rem = (t - startMs) % slideMs;
  if (rem < 0) rem += slideMs;
  return t - rem;
}

/** The most windows one row can fall into. */
export function maxWindowsPerRow(w: TimeWindowSpec): number {
  return Math.ceil(w.sizeMs / w.slideMs);
}

/**
 * The (row, window) pairs of a column of times: `rows[k]` is the source row of pair k and
 * `starts[k]` its window start. Pairs come row by row, each row's windows earliest first; rows
 * whose time is null belong to no window (as in Spark, where a null time yields no window).
 */
export interface WindowAssignment {
  readonly count: number;
  readonly rows: Int32Array;
  readonly starts: Float64Array;
}

export function assignWindows(times: Float64Array, valid: Uint8Array | null, w: TimeWindowSpec): WindowAssignment {
  const n = times.length;
  const perRow = maxWindowsPerRow(w);
  const rows = new Int32Array(n * perRow);
  const starts = new Float64Array(n * perRow);
  const { sizeMs, slideMs, startMs } = w;
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const t = times[i]!;
    const last = lastWindowStart(t, slideMs, startMs);
    for (let j = perRow - 1; j >= 0; j--) {
      const s = last - j * slideMs;
      if (t < s + sizeMs) {
        rows[k] = i;
        starts[k] = s;
        k++;
      }
    }
  }
  return { count: k, rows: rows.subarray(0, k), starts: starts.subarray(0, k) };
}

/**
 * Spark's late-data rule, shared by workers and the driver: a row is late once the event-time
 * value that decides its state (a window's end, a session's end, a timestamp key) is at or before
 * the watermark. Null values (NaN) are never late.
 */
export function isLate(eventTimeMs: number, watermarkMs: number | null): boolean {
  return watermarkMs !== null && eventTimeMs <= watermarkMs;
}
