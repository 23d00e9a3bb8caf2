import { SluiceError } from "../../errors/errors.js";
import { clusterFor, trackTopics, type KafkaCluster, type KafkaConnectionOptions } from "./kafka-cluster.js";
import type { TopicPartition } from "./partition-offsets.js";
import { tpKey } from "./partition-offsets.js";

/** Which partitions a query reads: Spark's subscribe, subscribePattern and assign. */
export type SubscriptionStrategy =
  | { readonly kind: "subscribe"; readonly topics: readonly string[] }
  | { readonly kind: "pattern"; readonly pattern: string }
  | { readonly kind: "assign"; readonly partitions: readonly TopicPartition[] };

const UNKNOWN_TOPIC = 3;
const RETRIES = 20;
const RETRY_MS = 250;

/**
 * The driver's view of the cluster: which partitions exist now and their earliest and latest
 * offsets. Latest offsets honour the isolation level: under read_committed they stop at the last
 * stable offset, so a batch never waits for an open transaction.
 */
export class KafkaMetadata {
  constructor(private readonly connection: KafkaConnectionOptions) {}

  private cluster(): Promise<KafkaCluster> {
    return clusterFor(this.connection);
  }

  /** Partitions the strategy selects, as they exist now (a deleted topic has none). */
  async partitions(strategy: SubscriptionStrategy): Promise<TopicPartition[]> {
    const cluster = await this.cluster();
    if (strategy.kind === "assign") return [...strategy.partitions];
    const regex = strategy.kind === "pattern" ? new RegExp(`^(?:${strategy.pattern})$`) : null;
    const topicMetadata =
      strategy.kind === "subscribe"
        ? (await Promise.all(strategy.topics.map((t) => topicMetadataOf(cluster, [t])))).flat()
        : await topicMetadataOf(cluster, []);
    const out: TopicPartition[] = [];
    for (const t of topicMetadata) {
      if (t.topicErrorCode === UNKNOWN_TOPIC) continue;
      if (regex && !regex.test(t.topic)) continue;
      if (t.topic.startsWith("__")) continue;
      for (const p of t.partitionMetadata) out.push({ topic: t.topic, partition: p.partitionId });
    }
    return out.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  }

  /** Offsets of partitions that exist; a vanished partition is simply absent from the result. */
  earliest(tps: readonly TopicPartition[]): Promise<Map<string, number>> {
    return this.listOffsets(tps, { fromBeginning: true });
  }

  latest(tps: readonly TopicPartition[]): Promise<Map<string, number>> {
    return this.listOffsets(tps, { fromBeginning: false });
  }

  /** The first offset whose timestamp is at or after `timestampMs`; -1 where there is none. */
  atTimestamp(tps: readonly TopicPartition[], timestampMs: number): Promise<Map<string, number>> {
    return this.listOffsets(tps, { fromTimestamp: timestampMs });
  }

  private async listOffsets(tps: readonly TopicPartition[], at: { fromBeginning?: boolean; fromTimestamp?: number }): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (tps.length === 0) return out;
    const cluster = await this.cluster();
    const topics = [...new Set(tps.map((tp) => tp.topic))];
    // Leadership moves (new partitions, broker restarts) answer with retriable errors: refresh the
    // metadata and ask again, for a few seconds at most.
    for (let attempt = 1; ; attempt++) {
      try {
        await trackTopics(cluster, topics);
        await cluster.refreshMetadata();
        const result = await cluster.fetchTopicsOffset(
          topics.map((topic) => ({ topic, ...at, partitions: tps.filter((tp) => tp.topic === topic).map((tp) => ({ partition: tp.partition })) })),
        );
        for (const t of result) for (const p of t.partitions) out.set(tpKey({ topic: t.topic, partition: p.partition }), Number(p.offset));
        break;
      } catch (e) {
        if ((e as { type?: string }).type === "UNKNOWN_TOPIC_OR_PARTITION" && attempt >= 2) {
          // A topic deleted under a running query: its partitions have no offsets. Forget it, so
          // later metadata refreshes of the other topics keep working; the caller decides whether
          // that is data loss.
          for (const t of topics) (cluster as unknown as { targetTopics?: Set<string> }).targetTopics?.delete(t);
          return out;
        }
        if ((e as { retriable?: boolean }).retriable && attempt < RETRIES) {
          await new Promise((r) => setTimeout(r, RETRY_MS));
          continue;
        }
        throw new SluiceError(`cannot read offsets of ${topics.join(", ")} from Kafka at ${this.connection.bootstrapServers}: ${(e as Error).message}`, { cause: e });
      }
    }
    return out;
  }
}

type TopicMetadata = Awaited<ReturnType<KafkaCluster["metadata"]>>["topicMetadata"];

/** Metadata of `topics` (all topics when empty); a topic that does not exist has none. */
async function topicMetadataOf(cluster: KafkaCluster, topics: string[]): Promise<TopicMetadata> {
  try {
    const result = await cluster.metadata({ topics });
    return result?.topicMetadata ?? [];
  } catch (e) {
    if ((e as { type?: string }).type === "UNKNOWN_TOPIC_OR_PARTITION") return [];
    throw e;
  }
}
