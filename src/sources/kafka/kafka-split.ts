import type { ReadMode } from "../../formats/read-mode.js";
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
  /** With a record schema: values are decoded from JSON into these columns in the worker. */
  readonly values: KafkaValueDecoding | null;
}

export interface KafkaValueDecoding {
  readonly fields: Fields;
  readonly mode: ReadMode;
  readonly columnNameOfCorruptRecord: string;
  /** Malformed records are also written, as they came, to this topic. */
  readonly deadLetterTopic: string | null;
}
