import { SluiceError } from "../../../errors/errors.js";
import { finishBatch, type EncodeBatchOptions } from "./batch-writer.js";
import { copyBytes, viewOf } from "../../../kernels/copy-bytes.js";
import { encodeHeaderSection } from "./encode-rows.js";
import { BATCH, CONTROL_TYPE } from "./layout.js";
import { sizeOfVarint, sizeOfVarlong, writeVarint, writeVarlong } from "./varint.js";

export type { EncodeBatchOptions } from "./batch-writer.js";

/**
 * Writes Kafka record batches (message format v2) with a correct CRC-32C: what a Produce request
 * carries, what tests feed the decoder, and what the benchmark's load generator sends.
 */

export interface KafkaRecordHeader {
  readonly key: string;
  readonly value: Uint8Array | string | null;
}

export interface KafkaRecordInput {
  readonly key: Uint8Array | string | null;
  readonly value: Uint8Array | string | null;
  /** Epoch milliseconds. */
  readonly timestamp: number;
  readonly headers?: readonly KafkaRecordHeader[];
  /** Offset relative to the batch's base offset; default the record's index. Larger steps leave gaps, as compaction does. */
  readonly offsetDelta?: number;
}

/** Records as columns, for the load generator: no per-record objects. */
export interface KafkaRecordColumns {
  readonly count: number;
  /** Values back to back; record i's value is `values[valueOffsets[i], valueOffsets[i + 1])`. */
  readonly values: Uint8Array;
  readonly valueOffsets: Int32Array;
  /** Keys laid out like values; absent means every key is null. */
  readonly keys?: { readonly bytes: Uint8Array; readonly offsets: Int32Array };
  /** Epoch milliseconds per record, or one timestamp for all. */
  readonly timestamps: Float64Array | number;
}

const utf8 = new TextEncoder();

function bytesOf(data: Uint8Array | string | null): Uint8Array | null {
  return typeof data === "string" ? utf8.encode(data) : data;
}

/** A record's encoded header section (count and headers), or the single byte for "no headers". */
function encodeHeaders(headers: readonly KafkaRecordHeader[] | undefined): Uint8Array {
  return encodeHeaderSection((headers ?? []).map((h) => ({ key: utf8.encode(h.key), value: bytesOf(h.value) })));
}

interface PreparedRecord {
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: Uint8Array;
  readonly timestampDelta: number;
  readonly offsetDelta: number;
  readonly bodySize: number;
}

function prepare(key: Uint8Array | null, value: Uint8Array | null, headers: Uint8Array, timestampDelta: number, offsetDelta: number): PreparedRecord {
  const bodySize =
    1 +
    sizeOfVarlong(timestampDelta) +
    sizeOfVarint(offsetDelta) +
    sizeOfVarint(key ? key.length : -1) +
    (key?.length ?? 0) +
    sizeOfVarint(value ? value.length : -1) +
    (value?.length ?? 0) +
    headers.length;
  return { key, value, headers, timestampDelta, offsetDelta, bodySize };
}

function writeRecord(out: Uint8Array, at: number, r: PreparedRecord): number {
  at = writeVarint(out, at, r.bodySize);
  out[at++] = 0; // attributes
  at = writeVarlong(out, at, r.timestampDelta);
  at = writeVarint(out, at, r.offsetDelta);
  at = writeVarint(out, at, r.key ? r.key.length : -1);
  if (r.key) {
    out.set(r.key, at);
    at += r.key.length;
  }
  at = writeVarint(out, at, r.value ? r.value.length : -1);
  if (r.value) {
    out.set(r.value, at);
    at += r.value.length;
  }
  out.set(r.headers, at);
  return at + r.headers.length;
}

function writeBatch(prepared: readonly PreparedRecord[], baseTimestamp: number, maxTimestamp: number, options: EncodeBatchOptions, control: boolean): Uint8Array {
  let size = 0;
  let lastOffsetDelta = 0;
  for (const r of prepared) {
    size += sizeOfVarint(r.bodySize) + r.bodySize;
    if (r.offsetDelta > lastOffsetDelta) lastOffsetDelta = r.offsetDelta;
  }
  const buffer = new Uint8Array(BATCH.RECORDS + size);
  let at: number = BATCH.RECORDS;
  for (const r of prepared) at = writeRecord(buffer, at, r);
  return finishBatch(buffer, { count: prepared.length, lastOffsetDelta, baseTimestamp, maxTimestamp, control }, options);
}

/**
 * One record batch from records given as objects. The base timestamp is the first record's (as
 * Kafka's producer writes it); with `options.control`, `records` must be empty and the batch is a
 * COMMIT or ABORT marker for `options.transactional`'s producer.
 */
export function encodeRecordBatch(records: readonly KafkaRecordInput[], options: EncodeBatchOptions = {}): Uint8Array {
  if (options.control) return encodeMarker(records, options, options.control);
  if (records.length === 0) throw new SluiceError("a Kafka record batch needs at least one record");
  const baseTimestamp = records[0]!.timestamp;
  let maxTimestamp = baseTimestamp;
  const prepared = records.map((r, i) => {
    if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
    return prepare(bytesOf(r.key), bytesOf(r.value), encodeHeaders(r.headers), r.timestamp - baseTimestamp, r.offsetDelta ?? i);
  });
  return writeBatch(prepared, baseTimestamp, maxTimestamp, options, false);
}

function encodeMarker(records: readonly KafkaRecordInput[], options: EncodeBatchOptions, marker: "commit" | "abort"): Uint8Array {
  if (records.length > 0) throw new SluiceError("a transaction marker batch carries no data records: pass [] with `control`");
  if (!options.transactional) throw new SluiceError("a transaction marker needs `transactional: { producerId, producerEpoch }`");
  const key = new Uint8Array(4); // version 0, then the type
  key[3] = marker === "abort" ? CONTROL_TYPE.ABORT : CONTROL_TYPE.COMMIT;
  const value = new Uint8Array(6); // version 0, then the coordinator epoch
  new DataView(value.buffer).setInt32(2, options.coordinatorEpoch ?? 0);
  const timestamp = options.controlTimestamp ?? Date.now();
  return writeBatch([prepare(key, value, new Uint8Array(1), 0, 0)], timestamp, timestamp, options, true);
}

/**
 * One record batch from columns, fast enough to drive a benchmark: two passes over typed arrays
 * (sizes, then bytes), no per-record objects. Offsets are consecutive; there are no headers.
 */
export function encodeRecordBatchColumns(records: KafkaRecordColumns, options: EncodeBatchOptions = {}): Uint8Array {
  const { count, values, valueOffsets, keys, timestamps } = records;
  if (count === 0) throw new SluiceError("a Kafka record batch needs at least one record");
  if (valueOffsets.length <= count || valueOffsets[count]! > values.length) {
    throw new SluiceError(`encodeRecordBatchColumns: valueOffsets needs ${count + 1} entries ending within the ${values.length} value bytes`);
  }
  if (keys && (keys.offsets.length <= count || keys.offsets[count]! > keys.bytes.length)) {
    throw new SluiceError(`encodeRecordBatchColumns: keys.offsets needs ${count + 1} entries ending within the ${keys.bytes.length} key bytes`);
  }
  const perRecordTime = typeof timestamps !== "number";
  const baseTimestamp = perRecordTime ? timestamps[0]! : timestamps;
  let maxTimestamp = baseTimestamp;
  const bodySizes = new Int32Array(count);
  let size = 0;
  for (let i = 0; i < count; i++) {
    const valueLength = valueOffsets[i + 1]! - valueOffsets[i]!;
    const keyLength = keys ? keys.offsets[i + 1]! - keys.offsets[i]! : -1;
    let timestampDelta = 0;
    if (perRecordTime) {
      const t = timestamps[i]!;
      if (t > maxTimestamp) maxTimestamp = t;
      timestampDelta = t - baseTimestamp;
    }
    const body =
      1 + sizeOfVarlong(timestampDelta) + sizeOfVarint(i) + sizeOfVarint(keyLength) + (keyLength > 0 ? keyLength : 0) + sizeOfVarint(valueLength) + valueLength + 1;
    bodySizes[i] = body;
    size += sizeOfVarint(body) + body;
  }
  const buffer = new Uint8Array(BATCH.RECORDS + size);
  const bufferView = viewOf(buffer);
  const valuesView = viewOf(values);
  const keysView = keys ? viewOf(keys.bytes) : null;
  let at: number = BATCH.RECORDS;
  for (let i = 0; i < count; i++) {
    at = writeVarint(buffer, at, bodySizes[i]!);
    buffer[at++] = 0;
    at = writeVarlong(buffer, at, perRecordTime ? timestamps[i]! - baseTimestamp : 0);
    at = writeVarint(buffer, at, i);
    if (keys) {
      const start = keys.offsets[i]!;
      const length = keys.offsets[i + 1]! - start;
      at = writeVarint(buffer, at, length);
      copyBytes(keys.bytes, keysView!, start, buffer, bufferView, at, length);
      at += length;
    } else buffer[at++] = 1; // zigzag -1: null key
    const start = valueOffsets[i]!;
    const length = valueOffsets[i + 1]! - start;
    at = writeVarint(buffer, at, length);
    copyBytes(values, valuesView, start, buffer, bufferView, at, length);
    at += length;
    buffer[at++] = 0; // no headers
  }
  return finishBatch(buffer, { count, lastOffsetDelta: count - 1, baseTimestamp, maxTimestamp }, options);
}
