import type { KafkaColumnSink } from "./columns.js";
import { copyBytes, viewOf } from "../../../kernels/copy-bytes.js";
import { appendHeaders } from "./headers-column.js";
import { MalformedBatchError } from "./malformed.js";
import { readUnsignedVarint, readVarlong, varintCursor } from "./varint.js";

const TWO_POW_32 = 4294967296;
const INV_TWO_POW_32 = 1 / TWO_POW_32;
/** Values shorter than this are copied by a byte loop; longer ones by `copyWithin` (see below). */
const SHORT_VALUE = 24;
/**
 * The smallest record body: attributes, timestamp delta, offset delta, key length, value length
 * and header count, one byte each. With its length prefix a record takes at least 7 bytes, which
 * bounds the rows a section can hold whatever its header claims.
 */
const MIN_RECORD_BODY = 6;
export const MIN_RECORD_BYTES = MIN_RECORD_BODY + 1;

/** What decoding one batch's records needs from its header and from the requested range. */
export interface RecordsContext {
  readonly baseOffset: number;
  readonly baseTimestamp: number;
  /** LogAppendTime batches give every record the broker's append time, kept as maxTimestamp. */
  readonly logAppendTime: boolean;
  readonly maxTimestamp: number;
  /** Records below this offset are skipped (a fetch returns whole batches). */
  readonly minOffset: number;
  /** Decoding stops at the first record at or past this offset. */
  readonly endOffset: number;
}

/**
 * Appends one batch's records, `count` of them in `src[start, end)`, to the sink's columns.
 * Returns true when it stopped at a record at or past `endOffset`.
 *
 * This is the decoder's hot loop: varints of one or two bytes (nearly every length, delta and
 * count) are read inline, everything lives in local variables, and no object is made per record.
 * Offsets are `baseOffset + offsetDelta`, never a running count, so compacted batches with gaps
 * come out right.
 *
 * Values are moved without a per-value allocation: the whole records section is first copied
 * (one memcpy) to the free end of the value buffer, then each value is slid down to its place with
 * `copyWithin`. A value's place never lies past its own bytes in that copy (values are a subset
 * of the records), so no later record is overwritten before it is read.
 */
export function appendRecords(sink: KafkaColumnSink, src: Uint8Array, start: number, end: number, count: number, ctx: RecordsContext): boolean {
  sink.reserve(Math.min(count, Math.ceil((end - start) / MIN_RECORD_BYTES)), end - start);
  const { baseOffset, baseTimestamp, logAppendTime, maxTimestamp, minOffset, endOffset } = ctx;
  const key = sink.key;
  const value = sink.value;
  const headers = sink.headers;
  const keyOffsets = key.offsets;
  const keyBytes = key.bytes;
  const keyValidity = key.validity;
  const valueOffsets = value.offsets;
  const valueBytes = value.bytes;
  const valueValidity = value.validity;
  const offsetWords = sink.offsetWords;
  const timestampWords = sink.timestampWords;
  const timestampTypes = sink.timestampTypes;
  const srcView = viewOf(src);
  const keyView = viewOf(keyBytes);
  const timestampType = logAppendTime ? 1 : 0;
  let row = sink.rows;
  let keyEnd = keyOffsets[row]!;
  let valueEnd = valueOffsets[row]!;
  // The staged copy of the section sits at valueEnd; byte i of src is at i + stagedDelta there.
  const stagedDelta = valueEnd - start;
  valueBytes.set(src.subarray(start, end), valueEnd);
  let keyNulls = key.nulls;
  let valueNulls = value.nulls;
  let reachedEnd = false;
  let p = start;
  let b: number;
  let raw: number;

  for (let r = 0; r < count; r++) {
    b = src[p]!;
    if (b < 0x80) raw = b, p += 1;
    else if (src[p + 1]! < 0x80) raw = (b & 0x7f) | (src[p + 1]! << 7), p += 2;
    else raw = readUnsignedVarint(src, p), p = varintCursor.next;
    const length = (raw >>> 1) ^ -(raw & 1);
    const recordEnd = p + length;
    if (length < MIN_RECORD_BODY || recordEnd > end) throw new MalformedBatchError(`record ${r} claims ${length} bytes but the batch has ${end - p} left`);
    p++; // record attributes: unused by format v2

    let timestampDelta: number;
    b = src[p]!;
    if (b < 0x80) timestampDelta = (b >>> 1) ^ -(b & 1), p += 1;
    else timestampDelta = readVarlong(src, p), p = varintCursor.next;

    b = src[p]!;
    if (b < 0x80) raw = b, p += 1;
    else if (src[p + 1]! < 0x80) raw = (b & 0x7f) | (src[p + 1]! << 7), p += 2;
    else raw = readUnsignedVarint(src, p), p = varintCursor.next;
    const offset = baseOffset + ((raw >>> 1) ^ -(raw & 1));
    if (offset < minOffset) {
      p = recordEnd;
      continue;
    }
    if (offset >= endOffset) {
      reachedEnd = true;
      break;
    }

    b = src[p]!;
    if (b < 0x80) raw = b, p += 1;
    else if (src[p + 1]! < 0x80) raw = (b & 0x7f) | (src[p + 1]! << 7), p += 2;
    else raw = readUnsignedVarint(src, p), p = varintCursor.next;
    const keyLength = (raw >>> 1) ^ -(raw & 1);
    if (keyLength >= 0) {
      if (keyLength > recordEnd - p) throw new MalformedBatchError(`record at offset ${offset} has a ${keyLength}-byte key that overruns it`);
      copyBytes(src, srcView, p, keyBytes, keyView, keyEnd, keyLength);
      keyEnd += keyLength;
      p += keyLength;
      keyValidity[row >> 3] |= 1 << (row & 7);
    } else keyNulls++;
    keyOffsets[row + 1] = keyEnd;

    b = src[p]!;
    if (b < 0x80) raw = b, p += 1;
    else if (src[p + 1]! < 0x80) raw = (b & 0x7f) | (src[p + 1]! << 7), p += 2;
    else raw = readUnsignedVarint(src, p), p = varintCursor.next;
    const valueLength = (raw >>> 1) ^ -(raw & 1);
    if (valueLength >= 0) {
      if (valueLength > recordEnd - p) throw new MalformedBatchError(`record at offset ${offset} has a ${valueLength}-byte value that overruns it`);
      if (valueLength < SHORT_VALUE) {
        for (let i = 0; i < valueLength; i++) valueBytes[valueEnd + i] = src[p + i]!;
      } else {
        valueBytes.copyWithin(valueEnd, p + stagedDelta, p + stagedDelta + valueLength);
      }
      valueEnd += valueLength;
      p += valueLength;
      valueValidity[row >> 3] |= 1 << (row & 7);
    } else valueNulls++;
    valueOffsets[row + 1] = valueEnd;

    // int64 columns as (low, high) 32-bit words; Int32Array stores wrap the low word for us.
    let high = Math.floor(offset * INV_TWO_POW_32);
    offsetWords[2 * row] = offset - high * TWO_POW_32;
    offsetWords[2 * row + 1] = high;
    const timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
    high = Math.floor(timestamp * INV_TWO_POW_32);
    timestampWords[2 * row] = timestamp - high * TWO_POW_32;
    timestampWords[2 * row + 1] = high;
    timestampTypes[row] = timestampType;

    if (headers !== null) appendHeaders(sink, row, src, p, recordEnd);
    p = recordEnd;
    row++;
  }

  if (!reachedEnd && p !== end) throw new MalformedBatchError(`records end at byte ${p - start} of a ${end - start}-byte records section`);
  sink.rows = row;
  key.nulls = keyNulls;
  value.nulls = valueNulls;
  return reachedEnd;
}
