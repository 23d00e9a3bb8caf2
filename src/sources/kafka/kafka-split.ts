import type { ReadMode } from "../../formats/read-mode.js";
import type { ValueFormat } from "../../formats/value-format.js";
import type { SchemaRegistryOptions } from "../../schema-registry/registry-options.js";
import type { Fields } from "../../types/dtype.js";
import type { KafkaConnectionOptions } from "./kafka-cluster.js";

/** Offsets [startOffset, endOffset) of one Kafka partition, fetched by the worker itself. */
export interface KafkaSplit {
  readonly kind: "kafka";
  readonly topic: string;
  readonly partition: number;
  readonly startOffset: number;
  readonly endOffset: number;
  readonly connection: KafkaConnectionOptions;
  readonly failOnDataLoss: boolean;
  readonly includeHeaders: boolean;
  readonly maxPartitionFetchBytes: number;
  /** Longest wait for one fetch response (kafkaConsumer.pollTimeoutMs). */
  readonly pollTimeoutMs: number;
  /** With a record schema: values are decoded (JSON, Avro or Protobuf) into these columns in the worker. */
  readonly values: KafkaValueDecoding | null;
}

export interface KafkaValueDecoding {
  readonly fields: Fields;
  readonly format: ValueFormat;
  readonly mode: ReadMode;
  /** JSON's string column, Protobuf's binary one, for malformed records in PERMISSIVE mode; Avro has none. */
  readonly columnNameOfCorruptRecord: string;
  /** Malformed records are also written, as they came, to this topic. */
  readonly deadLetterTopic: string | null;
  /** Where the writer schemas of values in the Confluent wire format come from (secrets included: never shown). */
  readonly registry: SchemaRegistryOptions | null;
}

/** The end offset of a real-time split: none; it is read as records arrive (kafka-partition-tail.ts). */
export const OPEN_END = Number.MAX_SAFE_INTEGER;
