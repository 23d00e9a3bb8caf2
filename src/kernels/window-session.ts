/**
 * Session windows, as Spark's `session_window(time, gap)`: each event opens the window
 * [t, t + gap); windows of the same key that overlap or touch merge into one session spanning
 * them all. A session therefore closes once no event of its key arrives within `gap` of the last.
 */
export interface Sessions {
  /** Input positions sorted by (key group, time, position): the order events enter sessions. */
  readonly order: Int32Array;
  /** Session of each entry of `order`. */
  readonly sessionOf: Int32Array;
  readonly count: number;
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  /** Position (in `order`) of each session's first event. */
  readonly firstEntry: Int32Array;
}

/**
 * Splits events into sessions. `groupOf[i]` is event i's key group and `times[i]` its (non-null)
 * event time. Sessions are numbered in (group, start) order.
 */
export function sessionize(groupOf: Int32Array, times: Float64Array, gapMs: number): Sessions {
  const n = groupOf.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => groupOf[a]! - groupOf[b]! || times[a]! - times[b]! || a - b);
  const sessionOf = new Int32Array(n);
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  const firstEntry = new Int32Array(n);
  let count = 0;
  let group = -1;
  let end = -Infinity;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const t = times[i]!;
    // A new event's window [t, t + gap) joins the open session when it overlaps or touches it.
    if (groupOf[i] !== group || t > end) {
      group = groupOf[i]!;
      starts[count] = t;
      firstEntry[count] = k;
      end = t + gapMs;
      count++;
    } else if (t + gapMs > end) end = t + gapMs;
    ends[count - 1] = end;
    sessionOf[k] = count - 1;
  }
  return {
    order,
    sessionOf,
    count,
    starts: starts.subarray(0, count),
    ends: ends.subarray(0, count),
    firstEntry: firstEntry.subarray(0, count),
  };
}
