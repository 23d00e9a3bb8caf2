import type { Batch } from "../../../batch/batch.js";
import { SluiceError } from "../../../errors/errors.js";
import { KafkaColumnSink } from "./columns.js";
import { COMPRESSION_CODE_MASK, compressionName, decompressRecords } from "./compression.js";
import { viewOf } from "../../../kernels/copy-bytes.js";
import { crc32c } from "./crc32c.js";
import { ATTR, BATCH, CONTROL_TYPE, LOG_OVERHEAD, MAGIC_V2, MIN_BATCH_LENGTH, readInt64 } from "./layout.js";
import { MalformedBatchError } from "./malformed.js";
import { appendRecords, MIN_RECORD_BYTES } from "./records.js";
import { AbortedTransactionFilter, type AbortedTransaction } from "./transactions.js";
import { readVarint, readVarlong, varintCursor } from "./varint.js";

/** One partition's fetched offset range, and how to read it. */
export interface KafkaFetchRange {
  readonly topic: string;
  readonly partition: number;
  /** First offset wanted; earlier records in the first (whole) batch are dropped. */
  readonly startOffset: number;
  /** Exclusive end: decoding stops at the first record at or past it. */
  readonly endOffset: number;
  readonly isolation: "read_committed" | "read_uncommitted";
  /** The fetch response's aborted transactions for this partition (used under read_committed). */
  readonly abortedTransactions?: readonly AbortedTransaction[];
  readonly includeHeaders: boolean;
  /** Check every batch's CRC-32C, as Kafka's consumer does by default (`check.crcs`). Default true. */
  readonly verifyCrc?: boolean;
}

/** How far decoding one fetch response got, and what it skipped. */
export interface RecordBatchesProgress {
  /**
   * Where the next fetch starts: just past the last complete batch read (control and aborted
   * batches included), never below `startOffset`, and `endOffset` once the range is done.
   */
  readonly nextOffset: number;
  readonly reachedEndOffset: boolean;
  /** The bytes ended inside a batch: brokers cut a response at the fetch size. */
  readonly lastBatchTruncated: boolean;
  /**
   * Full size of the cut batch when its length field arrived, else 0. When no batch was complete,
   * a fetch of at least this many bytes is needed to make progress.
   */
  readonly truncatedBatchSize: number;
  readonly batchesRead: number;
  readonly controlBatchesSkipped: number;
  readonly abortedRecordsSkipped: number;
}

export interface DecodedRecordBatches extends RecordBatchesProgress {
  /** Spark's Kafka columns: key, value, topic, partition, offset, timestamp, timestampType[, headers]. */
  readonly batch: Batch;
}

/** Decodes one fetch response's record batches into a batch of its own (see `decodeRecordBatchesInto`). */
export function decodeRecordBatches(bytes: Uint8Array, range: KafkaFetchRange): DecodedRecordBatches {
  const estimate = estimateSize(bytes, viewOf(bytes));
  const sink = new KafkaColumnSink(range.includeHeaders, estimate.records, estimate.bytes);
  const progress = decodeRecordBatchesInto(sink, bytes, range);
  return { batch: sink.toBatch(range.topic, range.partition), ...progress };
}

/**
 * Column buffers for a range of about `rows` records, sized from the first fetch response's
 * bytes per record, so that the responses of a whole task decode into one set of buffers that
 * rarely has to grow (and never has to be concatenated).
 */
export function sinkForRange(
  firstResponse: Uint8Array,
  includeHeaders: boolean,
  rows: number,
  valueBytes?: (bytes: number) => Uint8Array,
): KafkaColumnSink {
  const estimate = estimateSize(firstResponse, viewOf(firstResponse));
  const perRecord = estimate.records > 0 ? estimate.bytes / estimate.records : 0;
  const capacity = Math.max(estimate.records, Math.min(rows, MAX_PRESIZED_ROWS));
  // `reserve` stages a whole records section past the values already written, so the last
  // response would otherwise double the buffer (a second allocation and a copy of all values):
  // one response's bytes of headroom spares that.
  return new KafkaColumnSink(includeHeaders, capacity, Math.ceil(perRecord * capacity) + firstResponse.length, valueBytes);
}

/**
 * A ceiling on the rows a range's buffers are sized for up front: a range's end offset may lie
 * far past what the log holds (compacted or aborted records), and a wrong guess costs memory
 * held for the whole task, while growing past it costs one geometric copy.
 */
const MAX_PRESIZED_ROWS = 1 << 20;

/**
 * Decodes a partition's fetched record batches (message format v2) straight into Sluice columns,
 * appended to `sink`, with Kafka consumer semantics: control batches are never records,
 * `read_committed` drops aborted transactions, records outside [startOffset, endOffset) are
 * dropped, offsets may have gaps, and a batch cut off at the end of the bytes stops decoding
 * cleanly.
 */
export function decodeRecordBatchesInto(sink: KafkaColumnSink, bytes: Uint8Array, range: KafkaFetchRange): RecordBatchesProgress {
  const { startOffset, endOffset } = range;
  const view = viewOf(bytes);
  const verifyCrc = range.verifyCrc ?? true;
  const transactions = range.isolation === "read_committed" ? new AbortedTransactionFilter(range.abortedTransactions ?? []) : null;
  let nextOffset = startOffset;
  let reachedEndOffset = false;
  let lastBatchTruncated = false;
  let truncatedBatchSize = 0;
  let batchesRead = 0;
  let controlBatchesSkipped = 0;
  let abortedRecordsSkipped = 0;

  let pos = 0;
  while (pos < bytes.length) {
    if (bytes.length - pos < LOG_OVERHEAD) {
      lastBatchTruncated = true;
      break;
    }
    const baseOffset = readInt64(view, pos + BATCH.BASE_OFFSET);
    const batchLength = view.getInt32(pos + BATCH.LENGTH);
    if (batchLength < MIN_BATCH_LENGTH) throw malformed(range, baseOffset, `its length field says ${batchLength} bytes, less than a batch header`);
    const batchEnd = pos + LOG_OVERHEAD + batchLength;
    if (batchEnd > bytes.length) {
      lastBatchTruncated = true;
      truncatedBatchSize = LOG_OVERHEAD + batchLength;
      break;
    }
    if (baseOffset >= endOffset) {
      reachedEndOffset = true;
      break;
    }
    const magic = view.getInt8(pos + BATCH.MAGIC);
    if (magic !== MAGIC_V2) throw unsupportedMagic(range, baseOffset, magic);
    if (verifyCrc) checkCrc(bytes, view, pos, batchEnd, range, baseOffset);

    const attributes = view.getInt16(pos + BATCH.ATTRIBUTES);
    const lastOffset = baseOffset + view.getInt32(pos + BATCH.LAST_OFFSET_DELTA);
    const count = view.getInt32(pos + BATCH.RECORDS_COUNT);
    if (count < 0) throw malformed(range, baseOffset, `its record count is ${count}`);
    const isControl = (attributes & ATTR.CONTROL) !== 0;
    let skip = isControl;
    if (isControl) controlBatchesSkipped++;

    // Producer ids are non-negative; -1 marks batches written without one.
    if (transactions && view.getInt32(pos + BATCH.PRODUCER_ID) >= 0) {
      transactions.advanceTo(lastOffset);
      const producerId = view.getBigInt64(pos + BATCH.PRODUCER_ID);
      if (isControl) {
        const records = section(bytes, pos, batchEnd, attributes, range, baseOffset);
        if (isAbortMarker(records, count, range, baseOffset)) transactions.endTransaction(producerId);
      } else if (attributes & ATTR.TRANSACTIONAL && transactions.isAborting(producerId)) {
        abortedRecordsSkipped += count;
        skip = true;
      }
    }

    if (!skip && lastOffset >= startOffset && count > 0) {
      const records = section(bytes, pos, batchEnd, attributes, range, baseOffset);
      try {
        reachedEndOffset = appendRecords(sink, records.data, records.start, records.end, count, {
          baseOffset,
          baseTimestamp: readInt64(view, pos + BATCH.BASE_TIMESTAMP),
          logAppendTime: (attributes & ATTR.LOG_APPEND_TIME) !== 0,
          maxTimestamp: readInt64(view, pos + BATCH.MAX_TIMESTAMP),
          minOffset: startOffset,
          endOffset,
        });
      } catch (error) {
        if (error instanceof MalformedBatchError) throw malformed(range, baseOffset, error.message);
        throw error;
      }
    }
    batchesRead++;
    if (lastOffset + 1 > nextOffset) nextOffset = lastOffset + 1;
    pos = batchEnd;
    if (reachedEndOffset || nextOffset >= endOffset) break;
  }

  if (reachedEndOffset || nextOffset >= endOffset) {
    reachedEndOffset = true;
    nextOffset = endOffset;
  }
  return {
    nextOffset,
    reachedEndOffset,
    lastBatchTruncated,
    truncatedBatchSize,
    batchesRead,
    controlBatchesSkipped,
    abortedRecordsSkipped,
  };
}

/**
 * Record and byte counts of the complete batches, to size the column buffers once. Counts are
 * capped by what the bytes can hold (before any CRC check, a corrupt count must not allocate
 * gigabytes); compressed batches may then need the buffers to grow, which they do geometrically.
 */
function estimateSize(bytes: Uint8Array, view: DataView): { records: number; bytes: number } {
  let records = 0;
  let total = 0;
  for (let pos = 0; pos + BATCH.RECORDS <= bytes.length; ) {
    const batchEnd = pos + LOG_OVERHEAD + view.getInt32(pos + BATCH.LENGTH);
    if (batchEnd > bytes.length || batchEnd < pos + BATCH.RECORDS) break;
    const sectionBytes = batchEnd - pos - BATCH.RECORDS;
    const compressed = (view.getInt16(pos + BATCH.ATTRIBUTES) & COMPRESSION_CODE_MASK) !== 0;
    const count = Math.max(0, view.getInt32(pos + BATCH.RECORDS_COUNT));
    records += Math.min(count, compressed ? sectionBytes : Math.ceil(sectionBytes / MIN_RECORD_BYTES));
    total += sectionBytes;
    pos = batchEnd;
  }
  return { records, bytes: total };
}

interface RecordsSection {
  readonly data: Uint8Array;
  readonly start: number;
  readonly end: number;
}

/** A batch's records section: a range of `bytes` when uncompressed, else the decompressed copy. */
function section(bytes: Uint8Array, pos: number, batchEnd: number, attributes: number, range: KafkaFetchRange, baseOffset: number): RecordsSection {
  const code = attributes & COMPRESSION_CODE_MASK;
  if (code === 0) return { data: bytes, start: pos + BATCH.RECORDS, end: batchEnd };
  try {
    const data = decompressRecords(code, bytes.subarray(pos + BATCH.RECORDS, batchEnd));
    return { data, start: 0, end: data.length };
  } catch (error) {
    if (error instanceof SluiceError) throw new SluiceError(`${where(range, baseOffset)}: ${error.message}`);
    throw malformed(range, baseOffset, `its ${compressionName(code)} data does not decompress (${(error as Error).message})`, error);
  }
}

/**
 * Whether a control batch is an ABORT marker: its first record's key is (version int16, type
 * int16), type 0 ABORT and 1 COMMIT (other types, such as KRaft's, are neither).
 */
function isAbortMarker(records: RecordsSection, count: number, range: KafkaFetchRange, baseOffset: number): boolean {
  if (count === 0) return false;
  const { data } = records;
  readVarint(data, records.start); // record length
  let p = varintCursor.next + 1; // past the record's attributes
  readVarlong(data, p); // timestamp delta
  readVarint(data, varintCursor.next); // offset delta
  const keyLength = readVarint(data, varintCursor.next);
  p = varintCursor.next;
  if (keyLength < 4 || p + keyLength > records.end) throw malformed(range, baseOffset, `its control record has a ${keyLength}-byte key; control keys hold a version and a type (4 bytes)`);
  const type = (data[p + 2]! << 8) | data[p + 3]!;
  return type === CONTROL_TYPE.ABORT;
}

function checkCrc(bytes: Uint8Array, view: DataView, pos: number, batchEnd: number, range: KafkaFetchRange, baseOffset: number): void {
  const stored = view.getUint32(pos + BATCH.CRC);
  const computed = crc32c(bytes, pos + BATCH.ATTRIBUTES, batchEnd);
  if (stored !== computed) {
    throw new SluiceError(
      `${where(range, baseOffset)} failed its CRC-32C check (stored 0x${hex(stored)}, computed 0x${hex(computed)}): the fetched bytes are corrupt. ` +
        `Sluice stops rather than read them; a retried fetch clears a transport fault, a repeated mismatch means a damaged log segment on the broker.`,
    );
  }
}

function hex(n: number): string {
  return n.toString(16).padStart(8, "0");
}

function where(range: KafkaFetchRange, baseOffset: number): string {
  return `Kafka topic "${range.topic}" partition ${range.partition}: the record batch at offset ${baseOffset}`;
}

function malformed(range: KafkaFetchRange, baseOffset: number, detail: string, cause?: unknown): SluiceError {
  return new SluiceError(`${where(range, baseOffset)} is malformed: ${detail}`, cause === undefined ? undefined : { cause });
}

function unsupportedMagic(range: KafkaFetchRange, baseOffset: number, magic: number): SluiceError {
  return new SluiceError(
    `${where(range, baseOffset)} uses message format v${magic}; Sluice reads only format v2 (magic 2), what Kafka has written since 0.11 and the only format Kafka 4 serves`,
  );
}
