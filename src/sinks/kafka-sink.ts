import { type Batch } from "../batch/batch.js";
import { AnalysisError, SluiceError } from "../errors/errors.js";
import { openCluster, trackTopics, type KafkaCluster } from "../sources/kafka/kafka-cluster.js";
import { encodeRecordRows } from "../sources/kafka/record-batch/encode-rows.js";
import type { Fields } from "../types/dtype.js";
import { IdempotentBatchProducer, type ProducerSettings } from "./kafka-producer.js";
import { planBatches, readSinkColumns, rowTopics, type StickyPartition, type TopicLayout } from "./kafka-sink-plan.js";
import type { Sink } from "./sink.js";

export interface KafkaSinkOptions {
  readonly bootstrapServers: string;
  readonly topic: string | null;
  readonly clientId: string;
}

/** Knobs with working defaults; tests and benchmarks may change them. */
export interface KafkaSinkTuning {
  /** A record batch is cut before it passes this size: under the broker's default max.message.bytes (1 MiB + 12). */
  readonly maxBatchBytes: number;
  readonly maxRequestBytes: number;
  readonly maxInFlightRequests: number;
  readonly retries: number;
  readonly retryBackoffMs: number;
  readonly maxRetryBackoffMs: number;
  /** How long the broker may take to replicate a Produce request (acks=all). */
  readonly timeoutMs: number;
}

const DEFAULT_TUNING: KafkaSinkTuning = {
  maxBatchBytes: 1_000_000,
  maxRequestBytes: 4_000_000,
  maxInFlightRequests: 4,
  retries: 10,
  retryBackoffMs: 100,
  maxRetryBackoffMs: 2_000,
  timeoutMs: 30_000,
};

/**
 * Writes rows to Kafka, as Spark's Kafka sink: a `value` column is required; `key`, `topic`,
 * `partition` and `headers` (JSON text of `[{"key":"k","value":"v"}]`) are used when present.
 * Keys are partitioned as Java clients partition them (murmur2). Rows are encoded straight from
 * the Arrow columns into record batches (no per-message objects) and sent as raw Produce
 * requests with acks=all by an idempotent producer (producer id + per-partition sequence
 * numbers), so retries inside one batch write no duplicates; a batch re-run after a crash is
 * written again, so the guarantee is at-least-once.
 */
export class KafkaSink implements Sink {
  readonly guarantee = "at-least-once" as const;
  readonly requiresCheckpoint = true;
  readonly description: string;
  private cluster: KafkaCluster | null = null;
  private producer: IdempotentBatchProducer | null = null;
  private readonly sticky = new Map<string, StickyPartition>();
  private readonly tuning: KafkaSinkTuning;

  constructor(
    private readonly options: KafkaSinkOptions,
    tuning: Partial<KafkaSinkTuning> = {},
  ) {
    this.description = `KafkaSink[${options.topic ?? "topic column"}]`;
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
  }

  describe(): string {
    return `${this.description} (at-least-once: idempotent producer within a batch; a batch re-run after a crash is written again)`;
  }

  /** Spark's checks on the query's output columns, at start(). */
  static checkSchema(fields: Fields, topicOption: string | null): void {
    const by = (n: string) => fields.find((f) => f.name === n);
    const value = by("value");
    if (!value) throw new AnalysisError("Required attribute 'value' not found");
    if (value.type !== "string") throw new AnalysisError(`value attribute type must be a string or binary, got ${value.type}`);
    const key = by("key");
    if (key && key.type !== "string") throw new AnalysisError(`key attribute type must be a string or binary, got ${key.type}`);
    const topic = by("topic");
    if (!topic && topicOption === null) {
      throw new AnalysisError("topic option required when no 'topic' attribute is present. Use the topic option for setting a topic.");
    }
    if (topic && topic.type !== "string") throw new AnalysisError(`topic attribute type must be a string, got ${topic.type}`);
    const partition = by("partition");
    if (partition && partition.type !== "int32") throw new AnalysisError(`partition attribute type must be an int, got ${partition.type}`);
    const headers = by("headers");
    if (headers && headers.type !== "string") throw new AnalysisError(`headers attribute must be JSON text of [{"key":..,"value":..}], got ${headers.type}`);
  }

  private async connected(): Promise<{ cluster: KafkaCluster; producer: IdempotentBatchProducer }> {
    if (!this.cluster || !this.producer) {
      const { bootstrapServers, clientId } = this.options;
      // openCluster names the bootstrap address when it cannot connect. Topics are auto-created
      // only where the broker allows it (auto.create.topics.enable), as with Kafka's producers.
      const t = this.tuning;
      this.cluster = await openCluster({
        bootstrapServers,
        clientId,
        requestTimeoutMs: t.timeoutMs + 10_000,
        connectionTimeoutMs: 10_000,
        isolationLevel: "read_uncommitted",
        allowAutoTopicCreation: true,
        // As Kafka's producers: partition counts are re-read every 5 minutes, and after errors.
        metadataMaxAgeMs: 300_000,
      });
      const settings: ProducerSettings = { bootstrapServers, ...t };
      this.producer = new IdempotentBatchProducer(this.cluster, settings);
    }
    return { cluster: this.cluster, producer: this.producer };
  }

  async addBatch(_batchId: number, data: Batch): Promise<void> {
    if (data.numRows === 0) return;
    const columns = readSinkColumns(data);
    const { names, rowTopic } = rowTopics(columns, this.options.topic);
    const { cluster, producer } = await this.connected();
    const topics = await this.layouts(cluster, names);
    const batches = planBatches(columns, rowTopic, topics, (t) => this.stickyFor(t), this.tuning.maxBatchBytes);
    const timestamp = Date.now();
    const { value, key, headers } = columns;
    await producer.send(
      batches.map((b) => ({
        topic: b.topic,
        partition: b.partition,
        count: b.to - b.from,
        size: b.size,
        encode: (stamp) =>
          encodeRecordRows(
            { rows: b.rows, from: b.from, to: b.to, values: value, keys: key, headers, timestamp },
            { producer: { producerId: stamp.producerId, producerEpoch: stamp.producerEpoch }, baseSequence: stamp.baseSequence },
          ),
      })),
    );
  }

  private stickyFor(topic: string): StickyPartition {
    let s = this.sticky.get(topic);
    if (!s) this.sticky.set(topic, (s = { partition: -1, bytes: 0, count: 0, turn: Math.floor(Math.random() * 1024) }));
    return s;
  }

  /** Partition counts and leaders of the batch's topics; a topic the broker does not have is an error. */
  private async layouts(cluster: KafkaCluster, names: readonly string[]): Promise<TopicLayout[]> {
    try {
      await cluster.refreshMetadataIfNecessary();
      await trackTopics(cluster, [...names]);
    } catch (e) {
      const type = (e as { type?: string }).type;
      if (type === "UNKNOWN_TOPIC_OR_PARTITION" || type === "INVALID_TOPIC_EXCEPTION" || type === "TOPIC_AUTHORIZATION_FAILED") {
        const missing = await this.missingTopics(cluster, names);
        const which = missing.length > 0 ? missing : names;
        const reason =
          type === "UNKNOWN_TOPIC_OR_PARTITION"
            ? "does not exist and the broker did not create it (it creates topics on demand only with auto.create.topics.enable=true): create the topic first"
            : type === "INVALID_TOPIC_EXCEPTION"
              ? "is not a valid topic name"
              : "may not be written by this client (TOPIC_AUTHORIZATION_FAILED)";
        throw new SluiceError(`Kafka sink: topic ${which.map((n) => `"${n}"`).join(", ")} ${reason} (Kafka at ${this.options.bootstrapServers})`, { cause: e });
      }
      throw new SluiceError(`cannot read topic metadata from Kafka at ${this.options.bootstrapServers}: ${(e as Error).message}`, { cause: e });
    }
    return names.map((name) => {
      const partitions = cluster.findTopicPartitionMetadata(name);
      return { name, numPartitions: partitions.length, available: partitions.filter((p) => p.leader >= 0).map((p) => p.partitionId) };
    });
  }

  /** Which of several topics the broker lacks (one metadata lookup each; only on the error path). */
  private async missingTopics(cluster: KafkaCluster, names: readonly string[]): Promise<string[]> {
    if (names.length === 1) return [...names];
    const missing: string[] = [];
    for (const name of names) await trackTopics(cluster, [name]).catch(() => missing.push(name));
    return missing;
  }

  async close(): Promise<void> {
    const cluster = this.cluster;
    this.cluster = null;
    this.producer = null;
    await cluster?.disconnect().catch(() => undefined);
  }
}
