import { SluiceError } from "../../../errors/errors.js";
import { compressionCode, compressRecords, type KafkaCompression } from "./compression.js";
import { crc32c } from "./crc32c.js";
import { ATTR, BATCH, LOG_OVERHEAD, MAGIC_V2, NO_PRODUCER_ID, writeInt64 } from "./layout.js";

/** How a batch is stamped: what a producer (or a broker, for markers) puts in the header. */
export interface EncodeBatchOptions {
  /** Offset of the first record. Brokers reassign offsets on produce, so 0 is fine there. Default 0. */
  readonly baseOffset?: number;
  /** Default "none". */
  readonly compression?: KafkaCompression;
  /** Default -1 (unknown), what producers write; the broker fills it in. */
  readonly partitionLeaderEpoch?: number;
  /** "LogAppendTime" batches carry the broker's append time as maxTimestamp. Default "CreateTime". */
  readonly timestampType?: "CreateTime" | "LogAppendTime";
  /** The append time of a "LogAppendTime" batch (default: the largest record timestamp). */
  readonly logAppendTime?: number;
  /** A transactional producer's batch: sets the producer id and epoch and the transactional bit. */
  readonly transactional?: { readonly producerId: bigint | number; readonly producerEpoch: number };
  /** An idempotent, non-transactional producer's id and epoch. */
  readonly producer?: { readonly producerId: bigint | number; readonly producerEpoch: number };
  /** Sequence number of the first record: default 0 with a producer id, else -1. */
  readonly baseSequence?: number;
  /** Makes a transaction marker (a control batch) instead of a data batch; needs `transactional`. */
  readonly control?: "commit" | "abort";
  /** The transaction coordinator's epoch, stored in a marker's value. Default 0. */
  readonly coordinatorEpoch?: number;
  /** Timestamp of a marker's record. Default `Date.now()`. */
  readonly controlTimestamp?: number;
  /** Offset delta of the last record, when it is not the largest record delta (default). */
  readonly lastOffsetDelta?: number;
}

/** What the header needs to know about the records section. */
export interface RecordsSummary {
  readonly count: number;
  readonly lastOffsetDelta: number;
  readonly baseTimestamp: number;
  readonly maxTimestamp: number;
  readonly control?: boolean;
}

/**
 * Completes a batch whose uncompressed records section was written at `buffer[BATCH.RECORDS..]`:
 * compresses the section if asked, fills in the header and the CRC-32C. Returns the whole batch.
 */
export function finishBatch(buffer: Uint8Array, summary: RecordsSummary, options: EncodeBatchOptions): Uint8Array {
  const compression = options.compression ?? "none";
  let out = buffer;
  if (compression !== "none") {
    const compressed = compressRecords(compression, buffer.subarray(BATCH.RECORDS));
    out = new Uint8Array(BATCH.RECORDS + compressed.length);
    out.set(compressed, BATCH.RECORDS);
  }
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const producer = options.transactional ?? options.producer;
  if (options.transactional && options.producer) throw new SluiceError("a record batch takes `transactional` or `producer`, not both");
  let attributes = compressionCode(compression);
  if (options.timestampType === "LogAppendTime") attributes |= ATTR.LOG_APPEND_TIME;
  if (options.transactional) attributes |= ATTR.TRANSACTIONAL;
  if (summary.control) attributes |= ATTR.CONTROL;

  writeInt64(view, BATCH.BASE_OFFSET, options.baseOffset ?? 0);
  view.setInt32(BATCH.LENGTH, out.length - LOG_OVERHEAD);
  view.setInt32(BATCH.LEADER_EPOCH, options.partitionLeaderEpoch ?? -1);
  view.setInt8(BATCH.MAGIC, MAGIC_V2);
  view.setInt16(BATCH.ATTRIBUTES, attributes);
  view.setInt32(BATCH.LAST_OFFSET_DELTA, options.lastOffsetDelta ?? summary.lastOffsetDelta);
  writeInt64(view, BATCH.BASE_TIMESTAMP, summary.baseTimestamp);
  writeInt64(view, BATCH.MAX_TIMESTAMP, options.timestampType === "LogAppendTime" ? (options.logAppendTime ?? summary.maxTimestamp) : summary.maxTimestamp);
  writeInt64(view, BATCH.PRODUCER_ID, producer ? BigInt(producer.producerId) : NO_PRODUCER_ID);
  view.setInt16(BATCH.PRODUCER_EPOCH, producer ? producer.producerEpoch : -1);
  view.setInt32(BATCH.BASE_SEQUENCE, options.baseSequence ?? (producer && !summary.control ? 0 : -1));
  view.setInt32(BATCH.RECORDS_COUNT, summary.count);
  view.setUint32(BATCH.CRC, crc32c(out, BATCH.ATTRIBUTES, out.length));
  return out;
}
