import { copyBytes, ViewCache } from "../../../kernels/copy-bytes.js";
import type { KafkaColumnSink } from "./columns.js";
import { MalformedBatchError } from "./malformed.js";
import { readVarint, varintCursor } from "./varint.js";

/**
 * A record's headers written straight into the sink's headers column (kernels/headers.ts: a list
 * of { key, value } entries): per header, the key's bytes and the value's bytes (a null value is a
 * 0 validity bit) appended to the column's byte buffers, with no object or string per header. The
 * bytes are copied as they are, so a header read here is written back by the Kafka sink byte for
 * byte. A record without headers is a null row, as in Spark.
 */

/** Views for `copyBytes`: of the record bytes and of the column's growing key and value buffers. */
const sourceView = new ViewCache();
const keyView = new ViewCache();
const valueView = new ViewCache();

/** Reads the headers at `src[pos, recordEnd)` and writes row `row` of the headers column. */
export function appendHeaders(sink: KafkaColumnSink, row: number, src: Uint8Array, pos: number, recordEnd: number): void {
  const column = sink.headers!;
  let count = readVarint(src, pos);
  pos = varintCursor.next;
  if (count < 0) count = 0;
  if (count === 0) {
    column.nulls++;
    column.offsets[row + 1] = column.entries;
    return;
  }
  // The record's remaining bytes bound both its keys and its values.
  sink.reserveHeaders(count, recordEnd - pos);
  const { keyOffsets, keyBytes, valueOffsets, valueBytes, valueValidity } = column;
  let entry = column.entries;
  let keyEnd = keyOffsets[entry]!;
  let valueEnd = valueOffsets[entry]!;
  for (let h = 0; h < count; h++) {
    const keyLength = readVarint(src, pos);
    pos = varintCursor.next;
    if (keyLength < 0 || pos + keyLength > recordEnd) throw new MalformedBatchError(`header ${h} has a key length of ${keyLength}`);
    copyBytes(src, sourceView.of(src), pos, keyBytes, keyView.of(keyBytes), keyEnd, keyLength);
    keyEnd += keyLength;
    pos += keyLength;
    const valueLength = readVarint(src, pos);
    pos = varintCursor.next;
    if (valueLength >= 0) {
      if (pos + valueLength > recordEnd) throw new MalformedBatchError(`header ${h} has a value length of ${valueLength}`);
      copyBytes(src, sourceView.of(src), pos, valueBytes, valueView.of(valueBytes), valueEnd, valueLength);
      valueEnd += valueLength;
      pos += valueLength;
      valueValidity[entry >> 3]! |= 1 << (entry & 7);
    } else column.valueNulls++;
    entry++;
    keyOffsets[entry] = keyEnd;
    valueOffsets[entry] = valueEnd;
  }
  column.entries = entry;
  column.validity[row >> 3]! |= 1 << (row & 7);
  column.offsets[row + 1] = entry;
}
