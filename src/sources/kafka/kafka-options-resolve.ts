import type { KafkaSourceOptions } from "../../config/kafka-options.js";
import { OptionError } from "../../errors/errors.js";
import type { ResolvedValues } from "./kafka-value-format.js";
import type { KafkaSplit, KafkaValueDecoding } from "./kafka-split.js";
import type { KafkaConnectionOptions } from "./kafka-cluster.js";
import { resolveKafkaSecurity } from "./kafka-security.js";
import type { KafkaMetadata, LookupPolicy, SubscriptionStrategy } from "./kafka-metadata.js";
import { type OffsetRange, splitRanges } from "./offset-ranges.js";
import { EARLIEST, LATEST, offsetOf, parsePartitionOffsets, type TopicPartition, tpKey } from "./partition-offsets.js";

/** The parts of validated Kafka options that the driver and workers use. */

export function connectionOf(o: KafkaSourceOptions): KafkaConnectionOptions {
  return {
    bootstrapServers: o["kafka.bootstrap.servers"],
    clientId: o["kafka.client.id"],
    requestTimeoutMs: o["kafka.request.timeout.ms"],
    connectionTimeoutMs: o["kafka.connection.timeout.ms"],
    isolationLevel: o["kafka.isolation.level"],
    security: resolveKafkaSecurity(o),
  };
}

export function lookupPolicyOf(o: KafkaSourceOptions): LookupPolicy {
  return {
    numRetries: o["fetchOffset.numRetries"],
    retryIntervalMs: o["fetchOffset.retryIntervalMs"],
    apiTimeoutMs: o["kafka.default.api.timeout.ms"],
  };
}

export function strategyOf(o: KafkaSourceOptions): SubscriptionStrategy {
  if (o.subscribe !== undefined) return { kind: "subscribe", topics: o.subscribe.split(",").map((t) => t.trim()) };
  if (o.subscribePattern !== undefined) return { kind: "pattern", pattern: o.subscribePattern };
  let parsed: unknown;
  try {
    parsed = JSON.parse(o.assign!);
  } catch {
    parsed = null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new OptionError(`assign: expected JSON such as {"topicA":[0,1],"topicB":[2,4]}, got ${o.assign}`);
  }
  const partitions: TopicPartition[] = [];
  for (const [topic, parts] of Object.entries(parsed as Record<string, unknown>)) {
    if (!Array.isArray(parts) || parts.some((p) => !Number.isInteger(p) || p < 0)) {
      throw new OptionError(`assign: topic "${topic}" needs an array of partition numbers such as [0,1], got ${JSON.stringify(parts)}`);
    }
    for (const p of parts as number[]) partitions.push({ topic, partition: p });
  }
  return { kind: "assign", partitions };
}

/**
 * Resolves where reading starts for `partitions`: startingOffsetsByTimestamp, startingTimestamp
 * or startingOffsets (earliest, latest or JSON with -2/-1), in Spark's order of precedence.
 */
export async function resolveStartingOffsets(
  o: KafkaSourceOptions,
  partitions: readonly TopicPartition[],
  metadata: KafkaMetadata,
  defaultStart: "earliest" | "latest",
): Promise<Map<string, number>> {
  const byTimestamp = o.startingOffsetsByTimestamp ? parsePartitionOffsets(o.startingOffsetsByTimestamp, "startingOffsetsByTimestamp") : null;
  if (byTimestamp || o.startingTimestamp !== undefined) {
    const out = new Map<string, number>();
    const latest = await metadata.latest(partitions);
    for (const tp of partitions) {
      const ts = byTimestamp ? offsetOf(byTimestamp, tp) : o.startingTimestamp;
      if (ts === undefined) {
        throw new OptionError(`startingOffsetsByTimestamp: no timestamp for ${tp.topic}-${tp.partition}; every partition read needs one`);
      }
      const found = (await metadata.atTimestamp([tp], ts)).get(tpKey(tp)) ?? -1;
      if (found < 0) {
        if (o.startingOffsetsByTimestampStrategy === "error") {
          throw new OptionError(
            `No offset matched the timestamp ${ts} for ${tp.topic}-${tp.partition}; set startingOffsetsByTimestampStrategy to "latest" to start from the latest offset instead`,
          );
        }
        out.set(tpKey(tp), latest.get(tpKey(tp))!);
      } else {
        out.set(tpKey(tp), found);
      }
    }
    return out;
  }
  const spec = o.startingOffsets ?? defaultStart;
  return resolveOffsetSpec(spec, "startingOffsets", partitions, metadata);
}

/** "earliest" / "latest" / per-partition JSON (-2, -1 or an offset) to concrete offsets. */
export async function resolveOffsetSpec(
  spec: string,
  option: string,
  partitions: readonly TopicPartition[],
  metadata: KafkaMetadata,
): Promise<Map<string, number>> {
  if (spec === "earliest") return metadata.earliest(partitions);
  if (spec === "latest") return metadata.latest(partitions);
  const json = parsePartitionOffsets(spec, option);
  const [earliest, latest] = await Promise.all([metadata.earliest(partitions), metadata.latest(partitions)]);
  const out = new Map<string, number>();
  for (const tp of partitions) {
    const o = offsetOf(json, tp);
    if (o === undefined) {
      throw new OptionError(`${option}: ${spec} does not give an offset for ${tp.topic}-${tp.partition}; specify every partition read`);
    }
    out.set(tpKey(tp), o === EARLIEST ? earliest.get(tpKey(tp))! : o === LATEST ? latest.get(tpKey(tp))! : o);
  }
  return out;
}

/**
 * One split per offset range, cut into at least `minPartitions` (the option, or the query's
 * `minSplits` if larger); `values` with the format resolved on the driver (resolveValues).
 */
export function kafkaSplits(o: KafkaSourceOptions, ranges: readonly OffsetRange[], values: ResolvedValues | null, minSplits?: number): KafkaSplit[] {
  const connection = connectionOf(o);
  const decoding: KafkaValueDecoding | null = values && {
    fields: values.fields,
    format: values.format,
    mode: o.mode,
    columnNameOfCorruptRecord: o.columnNameOfCorruptRecord,
    deadLetterTopic: o.deadLetterTopic ?? null,
    registry: values.spec.registry,
  };
  const minPartitions = Math.max(o.minPartitions ?? 0, minSplits ?? 0) || undefined;
  return splitRanges(ranges, minPartitions).map((r) => ({
    kind: "kafka" as const,
    topic: r.topic,
    partition: r.partition,
    startOffset: r.start,
    endOffset: r.end,
    connection,
    failOnDataLoss: o.failOnDataLoss,
    includeHeaders: o.includeHeaders,
    maxPartitionFetchBytes: o["kafka.max.partition.fetch.bytes"],
    pollTimeoutMs: o["kafkaConsumer.pollTimeoutMs"],
    values: decoding,
  }));
}
