import type { Batch } from "../batch/batch.js";
import type { InputPipeline } from "../planner/physical.js";
import type { KafkaConnectionOptions } from "../sources/kafka/kafka-cluster.js";
import type { ReadMode } from "../plan/logical.js";
import type { Fields } from "../types/dtype.js";

/**
 * What travels between the driver and a worker. A task is one input split pushed through one
 * input pipeline; its result is a batch plus the metrics the driver folds into progress.
 */

export type InputSplit =
  /** Rows the driver already holds (memory source, in-memory tables). */
  | { readonly kind: "batch"; readonly batch: Batch }
  /** Rate source: values [firstValue, firstValue + count) of one partition. */
  | {
      readonly kind: "rate";
      readonly partition: number;
      readonly numPartitions: number;
      /** Global sequence numbers start..end (exclusive) are spread round-robin over partitions. */
      readonly startSeq: number;
      readonly endSeq: number;
      readonly rowsPerSecond: number;
      readonly startTimeMs: number;
    }
  /** A byte range of a JSON-lines file; a line belongs to the split in which it starts. */
  | { readonly kind: "file"; readonly path: string; readonly start: number; readonly end: number }
  /** Offsets [startOffset, endOffset) of one Kafka partition, fetched by the worker itself. */
  | {
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
    };

export interface KafkaValueDecoding {
  readonly fields: Fields;
  readonly mode: ReadMode;
  readonly columnNameOfCorruptRecord: string;
  /** Malformed records are also written, as they came, to this topic. */
  readonly deadLetterTopic: string | null;
}

export interface TaskContext {
  readonly batchId: number;
  /** Watermark in force for this batch (epoch ms); null before any watermark exists. */
  readonly watermarkMs: number | null;
  readonly batchTimestampMs: number;
}

export interface Task {
  readonly pipeline: InputPipeline;
  readonly split: InputSplit;
  readonly context: TaskContext;
  /** Static join tables by id, as shared-memory handles (see operators/static-join). */
  readonly staticTables: Readonly<Record<string, unknown>>;
}

export interface EventTimeStats {
  min: number;
  max: number;
  sum: number;
  count: number;
}

export interface TaskMetrics {
  /** Rows read from the source split, before any step. */
  numInputRows: number;
  numRowsDroppedByWatermark: number;
  /** Malformed records dropped (DROPMALFORMED) or kept as corrupt (PERMISSIVE). */
  numMalformedRecords: number;
  /** Per watermark index: event-time statistics of the rows observed; null when none. */
  eventTime: (EventTimeStats | null)[];
}

export interface TaskResult {
  readonly batch: Batch;
  readonly metrics: TaskMetrics;
}

export function emptyMetrics(numWatermarks: number): TaskMetrics {
  return {
    numInputRows: 0,
    numRowsDroppedByWatermark: 0,
    numMalformedRecords: 0,
    eventTime: Array.from({ length: numWatermarks }, () => null),
  };
}
