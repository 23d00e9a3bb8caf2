import { type Batch } from "../batch/batch.js";
import { AnalysisError, SluiceError } from "../errors/errors.js";
import { openCluster, trackTopics, type KafkaCluster } from "../sources/kafka/kafka-cluster.js";
import type { KafkaSecurityOptions } from "../config/kafka-security-options.js";
import { PLAINTEXT_SECURITY, resolveKafkaSecurity, type KafkaSecurity } from "../sources/kafka/kafka-security.js";
import { encodeRecordRows } from "../sources/kafka/record-batch/encode-rows.js";
import type { Fields } from "../types/dtype.js";
import { IdempotentBatchProducer, type OutgoingBatch, type ProducerSettings } from "./kafka-producer.js";
import { planBatches, readSinkColumns, rowTopics, type StickyPartition, type TopicLayout } from "./kafka-sink-plan.js";
import { TransactionalTaskWriter } from "./kafka-transactional-writer.js";
import type { Sink, SinkContext, SinkGuarantee } from "./sink.js";

/** The exactly-once mode's settings (`kafka.transactional.id.prefix`, `exactlyOnce`, `kafka.transaction.timeout.ms`). */
export interface KafkaSinkTransactions {
  /** Task t writes under transactional id `<idPrefix>-<t>`; null: `sluice-<queryId>`. */
  readonly idPrefix: string | null;
  readonly timeoutMs: number;
}

export interface KafkaSinkOptions {
  readonly bootstrapServers: string;
  readonly topic: string | null;
  readonly clientId: string;
  /** Exactly-once through Kafka transactions; absent or null: at-least-once. */
  readonly transactional?: KafkaSinkTransactions | null;
  /** TLS and SASL (read, with their files, when the sink is made: at the query's start); absent: PLAINTEXT. */
  readonly security?: KafkaSecurityOptions;
  /** TLS and SASL already read (a Kafka source's connection, writing its dead-letter topic); wins over `security`. */
  readonly resolvedSecurity?: KafkaSecurity;
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
  /** Exactly-once mode: how long one coordinator request may take, retries included (Kafka's max.block.ms). */
  readonly maxBlockMs: number;
}

const DEFAULT_TUNING: KafkaSinkTuning = {
  maxBatchBytes: 1_000_000,
  maxRequestBytes: 4_000_000,
  maxInFlightRequests: 4,
  retries: 10,
  retryBackoffMs: 100,
  maxRetryBackoffMs: 2_000,
  timeoutMs: 30_000,
  maxBlockMs: 60_000,
};

/**
 * The sink's one task: it runs on the driver. Transactional ids carry the task number so that a
 * sink writing from several tasks gives each its own id (and its own fencing and batch record).
 */
const DRIVER_TASK = 0;

/**
 * Writes rows to Kafka, as Spark's Kafka sink: a `value` column (string or binary: either is
 * written as the bytes it holds) is required; `key` (string or binary), `topic`,
 * `partition` and `headers` (a headers column, or JSON text of `[{"key":"k","value":"v"}]`) are used
 * when present.
 * Keys are partitioned as Java clients partition them (murmur2). Rows are encoded straight from
 * the Arrow columns into record batches (no per-message objects) and sent as raw Produce
 * requests with acks=all by an idempotent producer (producer id + per-partition sequence
 * numbers), so retries inside one batch write no duplicates.
 *
 * By default a batch re-run after a crash is written again: the guarantee is at-least-once.
 *
 * Exactly-once (`exactlyOnce=true` or `kafka.transactional.id.prefix`): each micro-batch is one
 * Kafka transaction holding all its records and, through the same transaction, the batch id (see
 * kafka-committed-batch.ts); task t writes under transactional id `<prefix>-<t>`, the prefix
 * defaulting to `sluice-<queryId>`, which is stable across restarts from one checkpoint. Opening
 * the sink fences every older producer of the id (zombie runs of the query fail with a
 * ProducerFencedError) and aborts the transaction a crashed run left open; a re-run batch whose
 * transaction had committed is skipped. Consumers see each batch once, and only whole, with
 * isolation.level=read_committed (read_uncommitted consumers also see aborted records).
 *
 * - `kafka.transaction.timeout.ms` (default 60000, as Kafka's producer) must exceed the longest a
 *   batch's write can take, from its first record to its commit: the broker aborts a transaction
 *   older than that, and the batch fails. It may not exceed the broker's
 *   transaction.max.timeout.ms (15 minutes by default). No transaction is open between batches,
 *   so the trigger interval does not count.
 * - Transactions need the broker's transaction state topic: on a single broker set
 *   transaction.state.log.replication.factor=1 and transaction.state.log.min.isr=1 (and
 *   offsets.topic.replication.factor=1 for the offsets that record batch ids), as
 *   scripts/kafka.sh does.
 * - A query must keep its transactional id prefix across restarts, and no two running queries
 *   may share one: the newer fences the older.
 * - Kafka forgets a transactional id after transactional.id.expiration.ms without a transaction,
 *   and a group's offsets after offsets.retention.minutes without a commit (7 days each by
 *   default): a query whose batches are further apart fails its next batch, and a query stopped
 *   for longer may write its last batch again when it restarts.
 */
export class KafkaSink implements Sink {
  readonly guarantee: SinkGuarantee;
  readonly requiresCheckpoint = true;
  readonly description: string;
  private cluster: KafkaCluster | null = null;
  private producer: IdempotentBatchProducer | null = null;
  private readonly sticky = new Map<string, StickyPartition>();
  private readonly tuning: KafkaSinkTuning;
  private readonly transactional: KafkaSinkTransactions | null;
  private context: SinkContext | null = null;
  private readonly writers = new Map<number, TransactionalTaskWriter>();

  /** TLS and SASL of every connection the sink makes. */
  private readonly security: KafkaSecurity;

  constructor(
    private readonly options: KafkaSinkOptions,
    tuning: Partial<KafkaSinkTuning> = {},
  ) {
    this.description = `KafkaSink[${options.topic ?? "topic column"}]`;
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
    this.transactional = options.transactional ?? null;
    this.guarantee = this.transactional ? "transactional" : "at-least-once";
    this.security = options.resolvedSecurity ?? (options.security ? resolveKafkaSecurity(options.security) : PLAINTEXT_SECURITY);
  }

  describe(): string {
    if (!this.transactional) return `${this.description} (at-least-once: idempotent producer within a batch; a batch re-run after a crash is written again)`;
    const ids = this.context ? `"${this.transactionalIdOf(this.context, DRIVER_TASK)}"` : `"${this.transactional.idPrefix ?? "sluice-<queryId>"}-<task>"`;
    return (
      `${this.description} (exactly-once: one Kafka transaction per batch under transactional id ${ids}, committing the batch id with the records, ` +
      "so a batch re-run after a crash that already reached Kafka is skipped; consumers must read with isolation.level=read_committed)"
    );
  }

  /** The transactional id of a sink task: `<prefix>-<task>`. */
  transactionalIdOf(context: SinkContext, task: number): string {
    return `${this.transactional?.idPrefix ?? `sluice-${context.queryId}`}-${task}`;
  }

  /** Exactly-once: fences older producers of the transactional id, aborts what they left open, reads the last committed batch id. */
  async open(context: SinkContext): Promise<void> {
    this.context = context;
    if (this.transactional) await (await this.writerFor(DRIVER_TASK)).open();
  }

  /** The last batch id whose transaction committed (exactly-once mode, after `open`); -1 when none. */
  lastCommittedBatchId(): number {
    const writer = this.writers.get(DRIVER_TASK);
    if (!writer) throw new SluiceError("KafkaSink.lastCommittedBatchId: the sink is not open in exactly-once mode");
    return writer.lastCommittedBatchId;
  }

  /** Spark's checks on the query's output columns, at start(). */
  static checkSchema(fields: Fields, topicOption: string | null): void {
    const by = (n: string) => fields.find((f) => f.name === n);
    const value = by("value");
    if (!value) throw new AnalysisError("Required attribute 'value' not found");
    const bytes = (f: { type: string }) => f.type === "string" || f.type === "binary";
    if (!bytes(value)) throw new AnalysisError(`value attribute type must be a string or binary, got ${value.type}`);
    const key = by("key");
    if (key && !bytes(key)) throw new AnalysisError(`key attribute type must be a string or binary, got ${key.type}`);
    const topic = by("topic");
    if (!topic && topicOption === null) {
      throw new AnalysisError("topic option required when no 'topic' attribute is present. Use the topic option for setting a topic.");
    }
    if (topic && topic.type !== "string") throw new AnalysisError(`topic attribute type must be a string, got ${topic.type}`);
    const partition = by("partition");
    if (partition && partition.type !== "int32") throw new AnalysisError(`partition attribute type must be an int, got ${partition.type}`);
    const headers = by("headers");
    if (headers && headers.type !== "headers" && headers.type !== "string") {
      throw new AnalysisError(`headers attribute must be headers (a Kafka source's, array<struct<key: string, value: binary>>) or JSON text of [{"key":..,"value":..}], got ${headers.type}`);
    }
  }

  private async connectedCluster(): Promise<KafkaCluster> {
    if (!this.cluster) {
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
        security: this.security,
        allowAutoTopicCreation: true,
        // As Kafka's producers: partition counts are re-read every 5 minutes, and after errors.
        metadataMaxAgeMs: 300_000,
      });
    }
    return this.cluster;
  }

  private settings(): ProducerSettings {
    return { bootstrapServers: this.options.bootstrapServers, ...this.tuning };
  }

  private async idempotentProducer(): Promise<IdempotentBatchProducer> {
    const cluster = await this.connectedCluster();
    this.producer ??= new IdempotentBatchProducer(cluster, this.settings());
    return this.producer;
  }

  private async writerFor(task: number): Promise<TransactionalTaskWriter> {
    let writer = this.writers.get(task);
    if (!writer) {
      const context = this.context;
      if (!context) throw new SluiceError("KafkaSink in exactly-once mode: open(context) must be called before the first batch (it derives the transactional id from the query)");
      const cluster = await this.connectedCluster();
      writer = new TransactionalTaskWriter(cluster, {
        ...this.settings(),
        transactionalId: this.transactionalIdOf(context, task),
        queryId: context.queryId,
        transactionTimeoutMs: this.transactional!.timeoutMs,
        maxBlockMs: this.tuning.maxBlockMs,
      });
      this.writers.set(task, writer);
    }
    return writer;
  }

  async addBatch(batchId: number, data: Batch): Promise<void> {
    if (data.numRows === 0) return;
    const writer = this.transactional ? await this.writerFor(DRIVER_TASK) : null;
    // Exactly-once: a re-run batch whose transaction committed is in Kafka already.
    if (writer && (await writer.hasCommitted(batchId))) return;
    const columns = readSinkColumns(data);
    const { names, rowTopic } = rowTopics(columns, this.options.topic);
    const cluster = await this.connectedCluster();
    const topics = await this.layouts(cluster, names);
    const batches = planBatches(columns, rowTopic, topics, (t) => this.stickyFor(t), this.tuning.maxBatchBytes);
    const timestamp = Date.now();
    const { value, key, headers } = columns;
    const transactional = writer !== null;
    const outgoing: OutgoingBatch[] = batches.map((b) => ({
      topic: b.topic,
      partition: b.partition,
      count: b.to - b.from,
      size: b.size,
      encode: (stamp) => {
        const producer = { producerId: stamp.producerId, producerEpoch: stamp.producerEpoch };
        return encodeRecordRows(
          { rows: b.rows, from: b.from, to: b.to, values: value, keys: key, headers, timestamp },
          transactional ? { transactional: producer, baseSequence: stamp.baseSequence } : { producer, baseSequence: stamp.baseSequence },
        );
      },
    }));
    if (writer) await writer.write(batchId, outgoing, names[0]!);
    else await (await this.idempotentProducer()).send(outgoing);
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
    // Between batches no transaction is open: there is nothing to abort.
    this.writers.clear();
    await cluster?.disconnect().catch(() => undefined);
  }
}
