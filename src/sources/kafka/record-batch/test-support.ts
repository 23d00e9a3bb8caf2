import { column, makeBatch, readNumbers, readString, type Batch } from "../../../batch/batch.js";
import { batchToRows } from "../../../batch/rows.js";
import type { Header } from "../../../types/dtype.js";
import { crc32c } from "./crc32c.js";
import { decodeRecordBatches, type DecodedRecordBatches, type KafkaFetchRange } from "./decode.js";
import { BATCH } from "./layout.js";

/** Helpers shared by this folder's tests. */

export interface KafkaRow {
  key: string | null;
  value: string | null;
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  timestampType: number;
  headers?: Header[] | null;
}

/** A decoded batch as plain rows, keys and values as their text (not for hot paths). */
export function rowsOf(batch: Batch): KafkaRow[] {
  const strings = (name: string) => Array.from({ length: batch.numRows }, (_, i) => readString(column(batch, name), i));
  const numbers = (name: string) => Array.from(readNumbers(column(batch, name)));
  const [key, value, topic] = [strings("key"), strings("value"), strings("topic")];
  const [partition, offset, timestamp, timestampType] = [numbers("partition"), numbers("offset"), numbers("timestamp"), numbers("timestampType")];
  const index = batch.fields.findIndex((f) => f.name === "headers");
  const headers = index < 0 ? null : batchToRows(makeBatch([batch.fields[index]!], [batch.columns[index]!])).map((r) => r.headers as Header[] | null);
  return key.map((_, i) => ({
    key: key[i]!,
    value: value[i]!,
    topic: topic[i]!,
    partition: partition[i]!,
    offset: offset[i]!,
    timestamp: timestamp[i]!,
    timestampType: timestampType[i]!,
    ...(headers ? { headers: headers[i]! } : {}),
  }));
}

export const RANGE: KafkaFetchRange = {
  topic: "events",
  partition: 2,
  startOffset: 0,
  endOffset: Number.MAX_SAFE_INTEGER,
  isolation: "read_uncommitted",
  includeHeaders: false,
};

export function decode(bytes: Uint8Array, range: Partial<KafkaFetchRange> = {}): DecodedRecordBatches & { rows: KafkaRow[] } {
  const result = decodeRecordBatches(bytes, { ...RANGE, ...range });
  return { ...result, rows: rowsOf(result.batch) };
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
}

/** A copy of `batch` with its records section replaced and the codec bits, length and CRC updated. */
export function withRecordsSection(batch: Uint8Array, codec: number, section: Uint8Array): Uint8Array {
  const out = concatBytes(batch.subarray(0, BATCH.RECORDS), section);
  const view = new DataView(out.buffer);
  view.setInt32(BATCH.LENGTH, out.length - 12);
  view.setInt16(BATCH.ATTRIBUTES, (view.getInt16(BATCH.ATTRIBUTES) & ~7) | codec);
  view.setUint32(BATCH.CRC, crc32c(out, BATCH.ATTRIBUTES, out.length));
  return out;
}
