import type { TopicPartition } from "./partition-offsets.js";
import { tpKey } from "./partition-offsets.js";

/** Offsets [start, end) of one partition that one task reads. */
export interface OffsetRange extends TopicPartition {
  readonly start: number;
  readonly end: number;
}

/**
 * Caps a batch at `limit` offsets in all, shared among partitions in proportion to their backlog
 * (as Spark's maxOffsetsPerTrigger): a partition with a tiny backlog still advances by at least
 * one offset, so none starves.
 */
export function limitByBacklog(
  partitions: readonly TopicPartition[],
  start: ReadonlyMap<string, number>,
  latest: ReadonlyMap<string, number>,
  limit: number,
): Map<string, number> {
  const backlog = partitions.map((tp) => Math.max(0, latest.get(tpKey(tp))! - start.get(tpKey(tp))!));
  const total = backlog.reduce((a, b) => a + b, 0);
  const out = new Map<string, number>();
  partitions.forEach((tp, i) => {
    const key = tpKey(tp);
    const from = start.get(key)!;
    const end = latest.get(key)!;
    if (total <= limit) {
      out.set(key, end);
      return;
    }
    const share = (limit * backlog[i]!) / total;
    const step = share < 1 ? Math.ceil(share) : Math.floor(share);
    out.set(key, Math.min(end, from + step));
  });
  return out;
}

/**
 * Splits ranges so that a batch has at least `minPartitions` tasks, cutting large ranges into
 * parts in proportion to their size (as Spark's KafkaOffsetRangeCalculator); with fewer needed,
 * one task per partition.
 */
export function splitRanges(ranges: readonly OffsetRange[], minPartitions: number | undefined): OffsetRange[] {
  const nonEmpty = ranges.filter((r) => r.end > r.start);
  if (!minPartitions || nonEmpty.length >= minPartitions) return nonEmpty;
  const total = nonEmpty.reduce((n, r) => n + (r.end - r.start), 0);
  return nonEmpty.flatMap((r) => {
    const size = r.end - r.start;
    const parts = Math.min(size, Math.max(1, Math.round((size / total) * minPartitions)));
    return Array.from({ length: parts }, (_, i) => ({
      topic: r.topic,
      partition: r.partition,
      start: r.start + Math.floor((size * i) / parts),
      end: r.start + Math.floor((size * (i + 1)) / parts),
    }));
  });
}

/** Lag figures Spark reports per Kafka source: offsets between a batch's end and the latest. */
export function lagMetrics(end: ReadonlyMap<string, number>, latest: ReadonlyMap<string, number>): Record<string, string> {
  const lags = [...latest.entries()].map(([k, l]) => Math.max(0, l - (end.get(k) ?? l)));
  if (lags.length === 0) return {};
  return {
    minOffsetsBehindLatest: String(Math.min(...lags)),
    maxOffsetsBehindLatest: String(Math.max(...lags)),
    avgOffsetsBehindLatest: String(lags.reduce((a, b) => a + b, 0) / lags.length),
  };
}
