/**
 * Counts of latencies in milliseconds, cheap to add to per record and to merge across tasks:
 * 1 ms buckets up to 1 s (where real-time latencies live), then 16 buckets per doubling (6%
 * wide) up to about 2^16 s. Plain arrays, so a histogram crosses the thread boundary as is.
 */
const LINEAR_MS = 1024;
const PER_DOUBLING = 16;
const BUCKETS = LINEAR_MS + PER_DOUBLING * 16;

export interface LatencyCounts {
  readonly counts: number[];
  count: number;
  maxMs: number;
}

export function emptyLatencies(): LatencyCounts {
  return { counts: new Array<number>(BUCKETS).fill(0), count: 0, maxMs: 0 };
}

function bucketOf(ms: number): number {
  if (ms < LINEAR_MS) return Math.max(0, Math.floor(ms));
  return Math.min(BUCKETS - 1, LINEAR_MS + Math.floor(Math.log2(ms / LINEAR_MS) * PER_DOUBLING));
}

/** The smallest latency bucket `b` holds. */
function lowerBound(b: number): number {
  return b < LINEAR_MS ? b : Math.round(LINEAR_MS * 2 ** ((b - LINEAR_MS) / PER_DOUBLING));
}

/** Adds `doneMs - startedMs[i]` for each of the first `n` start times (epoch ms). */
export function addLatencies(h: LatencyCounts, startedMs: ArrayLike<number>, n: number, doneMs: number): void {
  for (let i = 0; i < n; i++) {
    const ms = doneMs - startedMs[i]!;
    h.counts[bucketOf(ms)]!++;
    if (ms > h.maxMs) h.maxMs = ms;
  }
  h.count += n;
}

/** Adds one latency, `ms`, `n` times (records that spent the same time in a stage together). */
export function addLatency(h: LatencyCounts, ms: number, n: number): void {
  h.counts[bucketOf(ms)]! += n;
  if (ms > h.maxMs) h.maxMs = ms;
  h.count += n;
}

export function mergeLatencies(into: LatencyCounts, from: LatencyCounts): void {
  for (let b = 0; b < BUCKETS; b++) into.counts[b]! += from.counts[b]!;
  into.count += from.count;
  into.maxMs = Math.max(into.maxMs, from.maxMs);
}

/** The `p`th percentile (0-100), as the lower bound of its bucket; null when nothing was counted. */
export function latencyPercentile(h: LatencyCounts, p: number): number | null {
  if (h.count === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * h.count));
  let seen = 0;
  for (let b = 0; b < BUCKETS; b++) {
    seen += h.counts[b]!;
    if (seen >= rank) return lowerBound(b);
  }
  return h.maxMs;
}
