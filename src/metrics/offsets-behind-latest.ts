import type { SourceProgress } from "../runtime/progress.js";

/** How far one partition of a source's topic is behind the newest offset the source saw. */
export interface PartitionLag {
  readonly topic: string;
  readonly partition: string;
  /** `latestOffset - endOffset`: records available but not yet read by the batch. */
  readonly behind: number;
}

type TopicOffsets = Record<string, Record<string, number>>;

/**
 * Per topic and partition, the offsets a batch ended behind the latest: read from a source's
 * progress where its offsets have Kafka's shape, `{ topic: { partition: offset } }` (other
 * sources' offsets give nothing). A partition only the latest offset knows (added meanwhile) is
 * left out until a batch reads from it.
 */
export function offsetsBehindLatest(source: SourceProgress): PartitionLag[] {
  const end = topicOffsets(source.endOffset);
  const latest = topicOffsets(source.latestOffset);
  if (!end || !latest) return [];
  const lags: PartitionLag[] = [];
  for (const [topic, partitions] of Object.entries(latest)) {
    for (const [partition, newest] of Object.entries(partitions)) {
      const read = end[topic]?.[partition];
      if (read !== undefined) lags.push({ topic, partition, behind: Math.max(0, newest - read) });
    }
  }
  return lags;
}

function topicOffsets(v: unknown): TopicOffsets | null {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
  for (const partitions of Object.values(v)) {
    if (partitions === null || typeof partitions !== "object" || Array.isArray(partitions)) return null;
    if (!Object.values(partitions).every((o) => typeof o === "number")) return null;
  }
  return v as TopicOffsets;
}
