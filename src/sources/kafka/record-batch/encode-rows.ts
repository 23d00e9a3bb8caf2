import { SluiceError } from "../../../errors/errors.js";
import { finishBatch, type EncodeBatchOptions } from "./batch-writer.js";
import { copyBytes, viewOf } from "../../../kernels/copy-bytes.js";
import { crc32c } from "./crc32c.js";
import { BATCH } from "./layout.js";
import { sizeOfVarint, writeVarint } from "./varint.js";

/**
 * A record batch gathered straight from Arrow string columns: the rows `rows[from, to)` of a
 * batch, in that order, keys and values copied from the columns' byte buffers (no per-record
 * objects or strings). What the Kafka sink sends: it groups a batch's rows per partition and
 * encodes each group with this. All records share one timestamp (timestamp delta 0).
 */

/** A string/binary column as bytes and offsets; row i is entry `indices ? indices[i] : i`, whose bytes are `bytes[offsets[e], offsets[e + 1])`. */
export interface ByteColumn {
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  readonly indices: Int32Array | null;
  /** Per-row validity (1 = valid); null when no row is null. A null row is written as a null key or value. */
  readonly valid: Uint8Array | null;
}

export interface RecordRows {
  readonly rows: Int32Array;
  readonly from: number;
  readonly to: number;
  readonly values: ByteColumn;
  readonly keys: ByteColumn | null;
  /** Per row (indexed by row), an encoded header section (count varint, then headers); null or absent for none. */
  readonly headers: readonly (Uint8Array | null | undefined)[] | null;
  /** CreateTime of every record, epoch milliseconds. */
  readonly timestamp: number;
}

/** Length of row `row` of a column, -1 when null. */
export function byteLength(c: ByteColumn, row: number): number {
  if (c.valid !== null && c.valid[row] === 0) return -1;
  const e = c.indices === null ? row : c.indices[row]!;
  return c.offsets[e + 1]! - c.offsets[e]!;
}

/** Bytes one record takes in a batch (length prefix included): what a batch's size is cut by. */
export function recordSize(keyLength: number, valueLength: number, headersLength: number, offsetDelta: number): number {
  const body = bodySize(keyLength, valueLength, headersLength, offsetDelta);
  return sizeOfVarint(body) + body;
}

/** attributes, timestamp delta 0, offset delta, key, value, headers ("none" is one byte). */
function bodySize(keyLength: number, valueLength: number, headersLength: number, offsetDelta: number): number {
  return (
    2 + sizeOfVarint(offsetDelta) + sizeOfVarint(keyLength) + (keyLength > 0 ? keyLength : 0) + sizeOfVarint(valueLength) + (valueLength > 0 ? valueLength : 0) + headersLength
  );
}

/** The batch header: a batch takes this many bytes plus the `recordSize` of each record. */
export const BATCH_OVERHEAD = BATCH.RECORDS;

let scratch = new Int32Array(1024);

export function encodeRecordRows(r: RecordRows, options: EncodeBatchOptions = {}): Uint8Array {
  const { rows, from, to, values, keys, headers } = r;
  const count = to - from;
  if (count <= 0) throw new SluiceError("a Kafka record batch needs at least one record");
  if (scratch.length < count) scratch = new Int32Array(Math.max(count, scratch.length * 2));
  const bodies = scratch;
  let size = 0;
  for (let i = 0; i < count; i++) {
    const row = rows[from + i]!;
    const h = headers === null ? undefined : headers[row];
    const body = bodySize(keys === null ? -1 : byteLength(keys, row), byteLength(values, row), h ? h.length : 1, i);
    bodies[i] = body;
    size += sizeOfVarint(body) + body;
  }
  const out = new Uint8Array(BATCH.RECORDS + size);
  const outView = viewOf(out);
  const valuesView = viewOf(values.bytes);
  const keysView = keys === null ? null : viewOf(keys.bytes);
  let at: number = BATCH.RECORDS;
  for (let i = 0; i < count; i++) {
    const row = rows[from + i]!;
    at = writeVarint(out, at, bodies[i]!);
    out[at++] = 0; // attributes
    out[at++] = 0; // timestamp delta
    at = writeVarint(out, at, i);
    at = keys === null ? writeNull(out, at) : writeBytes(keys, keysView!, row, out, outView, at);
    at = writeBytes(values, valuesView, row, out, outView, at);
    const h = headers === null ? undefined : headers[row];
    if (h) {
      out.set(h, at);
      at += h.length;
    } else out[at++] = 0; // no headers
  }
  return finishBatch(out, { count, lastOffsetDelta: count - 1, baseTimestamp: r.timestamp, maxTimestamp: r.timestamp }, options);
}

function writeNull(out: Uint8Array, at: number): number {
  out[at] = 1; // zigzag -1
  return at + 1;
}

function writeBytes(c: ByteColumn, view: DataView, row: number, out: Uint8Array, outView: DataView, at: number): number {
  if (c.valid !== null && c.valid[row] === 0) return writeNull(out, at);
  const e = c.indices === null ? row : c.indices[row]!;
  const start = c.offsets[e]!;
  const length = c.offsets[e + 1]! - start;
  at = writeVarint(out, at, length);
  copyBytes(c.bytes, view, start, out, outView, at, length);
  return at + length;
}

/** The batch with another producer id, epoch and first sequence number (and its CRC redone), in place. */
export function restampProducer(batch: Uint8Array, stamp: { readonly producerId: bigint; readonly producerEpoch: number; readonly baseSequence: number }): Uint8Array {
  const view = viewOf(batch);
  view.setBigInt64(BATCH.PRODUCER_ID, stamp.producerId);
  view.setInt16(BATCH.PRODUCER_EPOCH, stamp.producerEpoch);
  view.setInt32(BATCH.BASE_SEQUENCE, stamp.baseSequence);
  view.setUint32(BATCH.CRC, crc32c(batch, BATCH.ATTRIBUTES, batch.length));
  return batch;
}

export interface RecordHeader {
  readonly key: Uint8Array;
  readonly value: Uint8Array | null;
}

/** A record's header section: the count, then each header's key and value (null: length -1). */
export function encodeHeaderSection(headers: readonly RecordHeader[]): Uint8Array {
  let size = sizeOfVarint(headers.length);
  for (const h of headers) size += sizeOfVarint(h.key.length) + h.key.length + sizeOfVarint(h.value ? h.value.length : -1) + (h.value?.length ?? 0);
  const out = new Uint8Array(size);
  let at = writeVarint(out, 0, headers.length);
  for (const h of headers) {
    at = writeVarint(out, at, h.key.length);
    out.set(h.key, at);
    at = writeVarint(out, at + h.key.length, h.value ? h.value.length : -1);
    if (h.value) {
      out.set(h.value, at);
      at += h.value.length;
    }
  }
  return out;
}
