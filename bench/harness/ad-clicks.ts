/**
 * The ad-impression/click workload of bench/stream-join.ts, as a pure function of its size:
 * impressions (impressionAdId, impressionTime) and clicks (clickAdId, clickTime), each stream in
 * event-time order, cut into steps that cover the same span of event time on both streams (one
 * step is one micro-batch), and the exact number of rows each join must give.
 *
 * Every impression has its own ad id (its index), at evenly spaced times over `SPAN_MS`. A click
 * at evenly spaced times picks the impression shown some delay before it, drawn from 0 to 75
 * minutes by a hash of its index, so about 4 in 5 fall within the join's hour; 5% of clicks name
 * an ad no impression has (and the first clicks, with nothing shown that early, do too). The
 * answer is known without any join: a click matches exactly its impression when the true delay is
 * within [0, 1 h], an inner join gives one row per matching click, and a left outer join adds one
 * row per impression no click matched.
 */

/** Event time the streams cover, whatever their size: state holds a fixed share of the input. */
export const SPAN_MS = 8 * 3_600_000;
/** Clicks match the impression shown at most this long before them. */
export const MATCH_WINDOW_MS = 3_600_000;
/** Delays are drawn up to 75 minutes: a fifth of the clicks come too late to match. */
const MAX_DELAY_MS = 75 * 60_000;
/** Share of clicks (in percent) on an ad with no impression. */
const STRAY_PERCENT = 5;
/** Share of impressions among the events. */
const IMPRESSION_SHARE = 0.8;
const T0 = Date.UTC(2026, 0, 1);

export interface AdClickData {
  readonly impressions: number;
  readonly clicks: number;
  readonly impAdId: Int32Array;
  readonly impTime: Float64Array;
  readonly clickAdId: Int32Array;
  readonly clickTime: Float64Array;
  /** Step k holds impressions [impBounds[k], impBounds[k + 1]) and clicks [clickBounds[k], clickBounds[k + 1]). */
  readonly impBounds: Int32Array;
  readonly clickBounds: Int32Array;
  /** Rows of the inner join: clicks within the hour after their impression. */
  readonly expectedInner: number;
  /** Rows of the left outer join: the inner rows and one per impression no click matched. */
  readonly expectedLeftOuter: number;
}

/** A 32-bit integer hash (Chris Wellons' lowbias32): the draws depend on the index alone. */
function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

export function generateAdClicks(events: number, steps: number): AdClickData {
  const ni = Math.round(events * IMPRESSION_SHARE);
  const nc = events - ni;
  const impAdId = new Int32Array(ni);
  const impTime = new Float64Array(ni);
  for (let i = 0; i < ni; i++) {
    impAdId[i] = i;
    impTime[i] = T0 + Math.floor((i * SPAN_MS) / ni);
  }
  const clickAdId = new Int32Array(nc);
  const clickTime = new Float64Array(nc);
  const clicked = new Uint8Array(ni);
  let expectedInner = 0;
  for (let j = 0; j < nc; j++) {
    const t = T0 + Math.floor((j * SPAN_MS) / nc);
    clickTime[j] = t;
    const h = mix32(j);
    // A stray click names an ad past every impression's id.
    const stray = ni + j;
    const idx = h % 100 < STRAY_PERCENT ? -1 : Math.floor(((t - (h >>> 8) % MAX_DELAY_MS - T0) * ni) / SPAN_MS);
    if (idx < 0) {
      clickAdId[j] = stray;
      continue;
    }
    clickAdId[j] = idx;
    // impTime[idx] is at or before the drawn time, so the true delay is never negative.
    if (t - impTime[idx]! <= MATCH_WINDOW_MS) {
      expectedInner++;
      clicked[idx] = 1;
    }
  }
  let unclicked = 0;
  for (let i = 0; i < ni; i++) unclicked += 1 - clicked[i]!;
  return {
    impressions: ni,
    clicks: nc,
    impAdId,
    impTime,
    clickAdId,
    clickTime,
    impBounds: stepBounds(impTime, steps),
    clickBounds: stepBounds(clickTime, steps),
    expectedInner,
    expectedLeftOuter: expectedInner + unclicked,
  };
}

/** Where each step's span of event time starts in a time-ordered column (steps + 1 bounds). */
function stepBounds(times: Float64Array, steps: number): Int32Array {
  const bounds = new Int32Array(steps + 1);
  let i = 0;
  for (let k = 1; k < steps; k++) {
    const end = T0 + (k * SPAN_MS) / steps;
    while (i < times.length && times[i]! < end) i++;
    bounds[k] = i;
  }
  bounds[steps] = times.length;
  return bounds;
}

/**
 * One impression and one click on ads nobody else has, well past every event and the join's
 * hour: the watermark they move evicts all the real rows (a left outer join then emits every
 * unmatched impression), and they match nothing themselves.
 */
export function flushEvents(): { impAdId: number; clickAdId: number; time: number } {
  return { impAdId: -1, clickAdId: -2, time: T0 + SPAN_MS + 4 * MATCH_WINDOW_MS };
}
