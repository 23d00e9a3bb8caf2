import { OptionError } from "../../errors/errors.js";

/**
 * Offsets per topic and partition, as Spark's Kafka source writes them: `{"topic":{"0":23,"1":7}}`.
 * In options, -2 stands for earliest and -1 for latest.
 */
export type PartitionOffsets = Readonly<Record<string, Readonly<Record<string, number>>>>;

export const EARLIEST = -2;
export const LATEST = -1;

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export const tpKey = (tp: TopicPartition): string => `${tp.topic}-${tp.partition}`;

/** Parses per-partition JSON from an option, naming the option on error. */
export function parsePartitionOffsets(json: string, option: string): PartitionOffsets {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new OptionError(`${option}: expected "earliest", "latest" or JSON such as {"topicA":{"0":23,"1":-2}}, got ${json}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new OptionError(`${option}: expected a JSON object of topics such as {"topicA":{"0":23,"1":-1}}, got ${json}`);
  }
  for (const [topic, parts] of Object.entries(parsed as Record<string, unknown>)) {
    if (!parts || typeof parts !== "object" || Array.isArray(parts)) {
      throw new OptionError(`${option}: topic "${topic}" needs an object of partition offsets such as {"0":23}`);
    }
    for (const [p, o] of Object.entries(parts as Record<string, unknown>)) {
      if (!/^\d+$/.test(p) || typeof o !== "number" || !Number.isInteger(o) || o < -2) {
        throw new OptionError(`${option}: ${topic} partition "${p}" has offset ${JSON.stringify(o)}; use a whole number, -2 (earliest) or -1 (latest)`);
      }
    }
  }
  return parsed as PartitionOffsets;
}

export function offsetOf(offsets: PartitionOffsets, tp: TopicPartition): number | undefined {
  return offsets[tp.topic]?.[String(tp.partition)];
}

/** Builds offsets from (partition, offset) pairs, sorted so the JSON is stable. */
export function toPartitionOffsets(entries: Iterable<readonly [TopicPartition, number]>): PartitionOffsets {
  const out: Record<string, Record<string, number>> = {};
  const sorted = [...entries].sort(([a], [b]) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  for (const [tp, o] of sorted) (out[tp.topic] ??= {})[String(tp.partition)] = o;
  return out;
}

export function partitionsOf(offsets: PartitionOffsets): TopicPartition[] {
  return Object.entries(offsets).flatMap(([topic, parts]) => Object.keys(parts).map((p) => ({ topic, partition: Number(p) })));
}
