import { z } from "zod";
import { OptionError } from "../errors/errors.js";
import { parseDuration } from "./duration.js";
import { checkKafkaSecurityOptions, kafkaSecurityOptions } from "./kafka-security-options.js";
import { kafkaValueOptions } from "./kafka-value-options.js";
import { badRecordOptions } from "./options.js";

/**
 * Options of the Kafka source, with Spark's names, defaults and rules. Options prefixed with
 * `kafka.` configure the client; the few Spark rejects are rejected here with Spark's reasons.
 */

const bool = (name: string) =>
  z.union([z.boolean(), z.enum(["true", "false"]).transform((s) => s === "true")], { error: `${name} must be true or false` });
const positiveLong = (name: string) => z.coerce.number().int(`${name} must be a whole number`).positive(`${name} must be greater than 0`);
const nonNegativeInt = (name: string) => z.coerce.number().int(`${name} must be a whole number`).nonnegative(`${name} must be 0 or more`);

export const kafkaSourceSchema = z
  .object({
    "kafka.bootstrap.servers": z.string({ error: "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer" }).min(1),
    subscribe: z.string().min(1).optional(),
    subscribePattern: z.string().min(1).optional(),
    assign: z.string().min(1).optional(),
    startingOffsets: z.string().min(1).optional(),
    startingOffsetsByTimestamp: z.string().min(1).optional(),
    startingTimestamp: z.coerce.number().int().nonnegative().optional(),
    startingOffsetsByTimestampStrategy: z.enum(["error", "latest"], { error: 'startingOffsetsByTimestampStrategy must be "error" or "latest"' }).default("error"),
    endingOffsets: z.string().min(1).optional(),
    maxOffsetsPerTrigger: positiveLong("maxOffsetsPerTrigger").optional(),
    minOffsetsPerTrigger: positiveLong("minOffsetsPerTrigger").optional(),
    maxTriggerDelay: z
      .union([z.string(), z.number()])
      .transform((v) => parseDuration(v, "maxTriggerDelay"))
      .default(15 * 60_000),
    minPartitions: positiveLong("minPartitions").optional(),
    failOnDataLoss: bool("failOnDataLoss").default(true),
    includeHeaders: bool("includeHeaders").default(false),
    /** Sluice: also commit each batch's end offsets to this consumer group, for lag tools. */
    commitOffsetsToGroup: z.string().min(1).optional(),
    "kafka.isolation.level": z
      .enum(["read_uncommitted", "read_committed"], { error: "kafka.isolation.level must be read_uncommitted or read_committed" })
      .default("read_uncommitted"),
    "kafka.client.id": z.string().min(1).default("sluice"),
    /** Longest wait for the answer to one request to a broker (the Java client's request.timeout.ms). */
    "kafka.request.timeout.ms": positiveLong("kafka.request.timeout.ms").default(30_000),
    /**
     * Longest wait for one offset or metadata lookup of the driver, connecting and the client's own
     * retries included (the Java client's default.api.timeout.ms, 60 s); then it is retried.
     */
    "kafka.default.api.timeout.ms": positiveLong("kafka.default.api.timeout.ms").default(60_000),
    "kafka.connection.timeout.ms": positiveLong("kafka.connection.timeout.ms").default(10_000),
    /**
     * Longest wait for one fetch in a task (Spark's kafkaConsumer.pollTimeoutMs; its default is
     * spark.network.timeout, 120 s). A fetch that takes longer fails the task, which the worker
     * pool retries (Session option maxTaskAttempts).
     */
    "kafkaConsumer.pollTimeoutMs": positiveLong("kafkaConsumer.pollTimeoutMs").default(120_000),
    /**
     * Retries of a failed offset or metadata lookup before the query fails, and the wait before
     * each (Spark's fetchOffset.numRetries, 3, and fetchOffset.retryIntervalMs, 1000). Sluice
     * counts retries as the name says: 3 means 4 attempts (Spark's own loop makes 3 in all). The
     * same budget re-asks for partitions that seem gone or behind before a batch reports data loss.
     */
    "fetchOffset.numRetries": nonNegativeInt("fetchOffset.numRetries").default(3),
    "fetchOffset.retryIntervalMs": nonNegativeInt("fetchOffset.retryIntervalMs").default(1_000),
    /** Largest fetch response per partition, in bytes (the Kafka consumer's max.partition.fetch.bytes). */
    "kafka.max.partition.fetch.bytes": positiveLong("kafka.max.partition.fetch.bytes").default(8 * 1024 * 1024),
    /** With a schema: how values are encoded (JSON by default, Avro, Protobuf). */
    ...kafkaValueOptions,
    /** With a schema: what to do with values that cannot be decoded into it (as the JSON source). */
    ...badRecordOptions,
    /** With a schema: malformed records are also written, unchanged, to this topic. */
    deadLetterTopic: z.string().min(1).optional(),
    ...kafkaSecurityOptions,
  })
  .strict();

export type KafkaSourceOptions = z.output<typeof kafkaSourceSchema>;

/** Kafka client options Spark refuses, with its reasons. */
const REFUSED: Record<string, string> = {
  "kafka.group.id": "Sluice keeps offsets in its checkpoint, not in a consumer group; use commitOffsetsToGroup to publish them to a group",
  "kafka.auto.offset.reset":
    "Kafka option 'auto.offset.reset' is not supported. Instead set the source option 'startingOffsets' to 'earliest' or 'latest' to specify where to start.",
  "kafka.key.deserializer":
    "Kafka option 'key.deserializer' is not supported as keys are deserialized as byte arrays. Use DataFrame operations to explicitly deserialize the keys.",
  "kafka.value.deserializer":
    "Kafka option 'value.deserializer' is not supported as values are deserialized as byte arrays. Use DataFrame operations to explicitly deserialize the values.",
  "kafka.enable.auto.commit": "Kafka option 'enable.auto.commit' is not supported.",
  "kafka.interceptor.classes": "Kafka option 'interceptor.classes' is not supported as it may cause unexpected behavior.",
};

/** Client options Spark refuses, checked before anything else so the user gets Spark's reason. */
export function refuseKafkaClientOptions(raw: Record<string, unknown>): void {
  for (const key of Object.keys(raw)) {
    const reason = REFUSED[key];
    if (reason) throw new OptionError(reason);
  }
}

/** Spark's rules across options, after each option was validated on its own. */
export function checkKafkaSourceOptions(raw: Record<string, unknown>, o: KafkaSourceOptions, streaming: boolean): void {
  checkKafkaSecurityOptions(o, "kafka source");
  const strategies = ["subscribe", "subscribePattern", "assign"].filter((k) => raw[k] !== undefined);
  if (strategies.length === 0) {
    throw new OptionError("One of the following options must be specified for Kafka source: subscribe, subscribePattern, assign. See the docs for more details.");
  }
  if (strategies.length > 1) {
    throw new OptionError("Only one of the following options can be specified for Kafka source: subscribe, subscribePattern, assign. See the docs for more details.");
  }
  if (o.subscribe !== undefined && o.subscribe.split(",").some((t) => t.trim() === "")) {
    throw new OptionError(`No topics to subscribe to as specified topics are empty: subscribe=${o.subscribe}`);
  }
  if (o.subscribePattern !== undefined) {
    try {
      new RegExp(o.subscribePattern);
    } catch (e) {
      throw new OptionError(`subscribePattern: ${(e as Error).message}`);
    }
  }
  if (streaming && o.endingOffsets !== undefined) {
    throw new OptionError("Ending offset not valid in streaming queries: remove endingOffsets, or read the topic with read instead of readStream");
  }
  if (!streaming && o.startingOffsets === "latest") {
    throw new OptionError("starting offset can't be latest for batch queries on Kafka");
  }
  if (o.endingOffsets === "earliest") {
    throw new OptionError("ending offset can't be earliest for batch queries on Kafka");
  }
  if (o.minOffsetsPerTrigger !== undefined && o.maxOffsetsPerTrigger !== undefined && o.minOffsetsPerTrigger > o.maxOffsetsPerTrigger) {
    throw new OptionError(
      `The value of minOffsetPerTrigger(${o.minOffsetsPerTrigger}) is higher than the maxOffsetsPerTrigger(${o.maxOffsetsPerTrigger}).`,
    );
  }
}

/** What Kafka's producer uses for transaction.timeout.ms. */
const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * Options of the Kafka sink. `exactlyOnce=true` or `kafka.transactional.id.prefix` writes each
 * batch in a Kafka transaction (see sinks/kafka-sink.ts); `kafka.transaction.timeout.ms` is the
 * Kafka producer's setting of that name.
 */
export const kafkaSinkOptionsSchema = z
  .object({
    "kafka.bootstrap.servers": z.string({ error: "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer" }).min(1),
    topic: z.string().min(1).optional(),
    "kafka.client.id": z.string().min(1).default("sluice-sink"),
    exactlyOnce: bool("exactlyOnce").optional(),
    "kafka.transactional.id.prefix": z
      .string({ error: "kafka.transactional.id.prefix must be text" })
      .min(1, "kafka.transactional.id.prefix must not be empty: name the query's transactions (e.g. the query's name), or remove it for at-least-once writes")
      .optional(),
    "kafka.transaction.timeout.ms": positiveLong("kafka.transaction.timeout.ms").optional(),
    "kafka.transactional.id": z
      .never({
        error:
          "Kafka option 'transactional.id' is not supported: the sink gives each of its tasks a transactional id of its own; set kafka.transactional.id.prefix (or exactlyOnce=true) instead",
      })
      .optional(),
    ...kafkaSecurityOptions,
  })
  .strict()
  .superRefine((o, ctx) => {
    const prefix = o["kafka.transactional.id.prefix"] !== undefined;
    if (o.exactlyOnce === false && prefix) {
      ctx.addIssue({
        code: "custom",
        path: ["exactlyOnce"],
        message: "exactlyOnce is false but kafka.transactional.id.prefix asks for exactly-once writes: remove one of the two",
      });
    }
    if (o["kafka.transaction.timeout.ms"] !== undefined && o.exactlyOnce !== true && !prefix) {
      ctx.addIssue({
        code: "custom",
        path: ["kafka.transaction.timeout.ms"],
        message: "kafka.transaction.timeout.ms applies only to exactly-once writes: set exactlyOnce=true or kafka.transactional.id.prefix, or remove it",
      });
    }
  });

export type KafkaSinkOptionsInput = z.output<typeof kafkaSinkOptionsSchema>;

/** The exactly-once settings the options ask for, or null for at-least-once writes. */
export function kafkaSinkTransactions(o: KafkaSinkOptionsInput): { readonly idPrefix: string | null; readonly timeoutMs: number } | null {
  const idPrefix = o["kafka.transactional.id.prefix"] ?? null;
  if (o.exactlyOnce !== true && idPrefix === null) return null;
  return { idPrefix, timeoutMs: o["kafka.transaction.timeout.ms"] ?? DEFAULT_TRANSACTION_TIMEOUT_MS };
}
