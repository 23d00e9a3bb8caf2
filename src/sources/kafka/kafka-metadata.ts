import { AnalysisError, OptionError, SluiceError } from "../../errors/errors.js";
import { KafkaSecurityError } from "./security-hints.js";
import { describeKafkaError, disconnectLater, openCluster, trackTopics, type KafkaCluster, type KafkaConnectionOptions } from "./kafka-cluster.js";
import type { TopicPartition } from "./partition-offsets.js";
import { tpKey } from "./partition-offsets.js";
import { timeLimit } from "./time-limit.js";

/** Which partitions a query reads: Spark's subscribe, subscribePattern and assign. */
export type SubscriptionStrategy =
  | { readonly kind: "subscribe"; readonly topics: readonly string[] }
  | { readonly kind: "pattern"; readonly pattern: string }
  | { readonly kind: "assign"; readonly partitions: readonly TopicPartition[] };

/** How the driver's lookups are bounded and retried (see the options in config/kafka-options.ts). */
export interface LookupPolicy {
  /** Retries after a failed first attempt (fetchOffset.numRetries). */
  readonly numRetries: number;
  /** Wait before each retry (fetchOffset.retryIntervalMs). */
  readonly retryIntervalMs: number;
  /** Longest one attempt may take, connecting included (kafka.default.api.timeout.ms). */
  readonly apiTimeoutMs: number;
}

const UNKNOWN_TOPIC = 3;
/** Leadership moves answer with retriable broker errors: asked again within an attempt, this often. */
const LEADER_RETRIES = 20;
const LEADER_RETRY_MS = 250;

/**
 * The driver's view of the cluster: which partitions exist now and their earliest and latest
 * offsets. Latest offsets honour the isolation level: under read_committed they stop at the last
 * stable offset, so a batch never waits for an open transaction.
 *
 * Every lookup is bounded and retried as Spark's Kafka offset reader does: an attempt that fails or
 * takes longer than kafka.default.api.timeout.ms is retried fetchOffset.numRetries times,
 * fetchOffset.retryIntervalMs apart, each time over a new connection (a broker that was killed,
 * frozen or restarted leaves the old ones closed or stuck). Then the lookup fails with an error
 * that names the broker, what did not answer, and the options that bound the wait. The driver's
 * connection is its own, not shared with tasks: dropping it never disturbs a fetch.
 */
export class KafkaMetadata {
  private connected: Promise<KafkaCluster> | null = null;

  constructor(
    private readonly connection: KafkaConnectionOptions,
    private readonly policy: LookupPolicy,
  ) {}

  private cluster(): Promise<KafkaCluster> {
    if (!this.connected) {
      const opening = openCluster(this.connection);
      this.connected = opening;
      // A failed connection is not kept: the next attempt connects again.
      opening.catch(() => {
        if (this.connected === opening) this.connected = null;
      });
    }
    return this.connected;
  }

  /** Drops the connection; the next lookup opens a new one. */
  private reset(): void {
    if (this.connected) disconnectLater(this.connected);
    this.connected = null;
  }

  /** Closes the connection (query stop, end of a static read), without waiting on a broker that does not answer. */
  close(): void {
    this.reset();
  }

  /**
   * Runs one lookup within the policy. `what` completes "cannot ... from Kafka": it names the
   * lookup in the error, e.g. "get the latest offsets of topic t".
   */
  private async lookup<T>(what: string, body: (cluster: KafkaCluster) => Promise<T>): Promise<T> {
    const { numRetries, retryIntervalMs, apiTimeoutMs } = this.policy;
    const attempts = numRetries + 1;
    const where = `Kafka at ${this.connection.bootstrapServers}`;
    let last: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const work = this.cluster().then(body);
        return await timeLimit(work, apiTimeoutMs, () => new SluiceError(`no answer within ${apiTimeoutMs} ms (kafka.default.api.timeout.ms)`));
      } catch (e) {
        // Sluice's own verdicts on options and plans come out the same however often they are asked.
        // So are a broker's refusals of this client's credentials or certificates.
        if (e instanceof OptionError || e instanceof AnalysisError || e instanceof KafkaSecurityError) throw e;
        last = e;
        this.reset();
        if (attempt < attempts) {
          console.warn(`cannot ${what} from ${where} (attempt ${attempt} of ${attempts}): ${describeKafkaError(e, this.connection)}; trying again in ${retryIntervalMs} ms`);
          await new Promise((r) => setTimeout(r, retryIntervalMs));
        }
      }
    }
    throw new SluiceError(
      `cannot ${what} from ${where} after ${attempts} attempt(s) ${retryIntervalMs} ms apart: ${describeKafkaError(last, this.connection)}. ` +
        `Check that the broker runs and answers; to wait longer for it, raise the source options fetchOffset.numRetries (${numRetries}) ` +
        `or fetchOffset.retryIntervalMs (${retryIntervalMs})`,
      { cause: last },
    );
  }

  /** Partitions the strategy selects, as they exist now (a deleted topic has none). */
  partitions(strategy: SubscriptionStrategy): Promise<TopicPartition[]> {
    const target =
      strategy.kind === "subscribe" ? `topic(s) ${strategy.topics.join(", ")}` : strategy.kind === "pattern" ? `topics matching ${strategy.pattern}` : "assigned partitions";
    return this.lookup(`list the partitions of ${target}`, (cluster) => this.partitionsOn(cluster, strategy));
  }

  private async partitionsOn(cluster: KafkaCluster, strategy: SubscriptionStrategy): Promise<TopicPartition[]> {
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
    return this.listOffsets(tps, { fromBeginning: true }, "earliest offsets");
  }

  latest(tps: readonly TopicPartition[]): Promise<Map<string, number>> {
    return this.listOffsets(tps, { fromBeginning: false }, "latest offsets");
  }

  /** The first offset whose timestamp is at or after `timestampMs`; -1 where there is none. */
  atTimestamp(tps: readonly TopicPartition[], timestampMs: number): Promise<Map<string, number>> {
    return this.listOffsets(tps, { fromTimestamp: timestampMs }, `offsets at timestamp ${timestampMs}`);
  }

  private async listOffsets(tps: readonly TopicPartition[], at: { fromBeginning?: boolean; fromTimestamp?: number }, what: string): Promise<Map<string, number>> {
    if (tps.length === 0) return new Map();
    const topics = [...new Set(tps.map((tp) => tp.topic))];
    return this.lookup(`get the ${what} of ${topics.join(", ")}`, (cluster) => this.listOffsetsOn(cluster, tps, topics, at));
  }

  private async listOffsetsOn(
    cluster: KafkaCluster,
    tps: readonly TopicPartition[],
    topics: readonly string[],
    at: { fromBeginning?: boolean; fromTimestamp?: number },
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    // Leadership moves (new partitions, broker restarts) answer with retriable broker errors:
    // refresh the metadata and ask again, for a few seconds at most. Failures of the connection
    // itself are the caller's to retry, over a new one.
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
        const brokerError = (e as { type?: string; retriable?: boolean }).type !== undefined && (e as { retriable?: boolean }).retriable;
        if (brokerError && attempt < LEADER_RETRIES) {
          await new Promise((r) => setTimeout(r, LEADER_RETRY_MS));
          continue;
        }
        throw e;
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
