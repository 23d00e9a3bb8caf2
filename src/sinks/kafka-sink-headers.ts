import type * as arrow from "apache-arrow";
import { readString } from "../batch/batch.js";
import { readValidity } from "../batch/validity.js";
import { SluiceError } from "../errors/errors.js";
import { headersOf } from "../kernels/headers.js";
import { encodeHeaderSection, type RecordHeader } from "../sources/kafka/record-batch/encode-rows.js";
import { sizeOfVarint, writeVarint } from "../sources/kafka/record-batch/varint.js";
import type { DType } from "../types/dtype.js";

/**
 * The sink's `headers` column, as each row's encoded header section (count, then key and value
 * bytes per header), in the order given, duplicates kept, as Kafka and Spark keep them. Two forms:
 *
 * - a headers column (the Kafka source's, Spark's `array<struct<key: string, value: binary>>`):
 *   keys and values are copied as the bytes they are, so a record read with includeHeaders is
 *   written back byte for byte; a header without a value is written with a null value;
 * - JSON text of `[{"key":"k","value":"v"},...]` (a string column): a null value is a null header
 *   value; other non-string values are written as their text. Only rows that carry headers pay
 *   for JSON parsing.
 *
 * A null cell, an empty list or empty text means no headers.
 */

const utf8 = new TextEncoder();

/** Per row, the encoded header section, or null for none. */
export function encodeHeadersColumn(column: arrow.Data, type: DType, numRows: number): (Uint8Array | null)[] {
  return type === "headers" ? headerSections(column, numRows) : jsonHeaderSections(column, numRows);
}

/** Header sections straight from the column's byte buffers: one allocation per row with headers. */
function headerSections(column: arrow.Data, numRows: number): (Uint8Array | null)[] {
  const { offsets, keys, values, valueValid } = headersOf(column);
  const valid = readValidity(column);
  const valueLength = (e: number) => (valueValid === null || valueValid[e] ? values.offsets[e + 1]! - values.offsets[e]! : -1);
  const out = new Array<Uint8Array | null>(numRows).fill(null);
  for (let i = 0; i < numRows; i++) {
    const first = offsets[i]!;
    const end = offsets[i + 1]!;
    if ((valid !== null && !valid[i]) || first === end) continue;
    let size = sizeOfVarint(end - first);
    for (let e = first; e < end; e++) {
      const k = keys.offsets[e + 1]! - keys.offsets[e]!;
      const v = valueLength(e);
      size += sizeOfVarint(k) + k + sizeOfVarint(v) + Math.max(v, 0);
    }
    const section = new Uint8Array(size);
    let at = writeVarint(section, 0, end - first);
    for (let e = first; e < end; e++) {
      at = writeVarint(section, at, keys.offsets[e + 1]! - keys.offsets[e]!);
      section.set(keys.bytes.subarray(keys.offsets[e]!, keys.offsets[e + 1]!), at);
      at += keys.offsets[e + 1]! - keys.offsets[e]!;
      const v = valueLength(e);
      at = writeVarint(section, at, v);
      if (v > 0) {
        section.set(values.bytes.subarray(values.offsets[e]!, values.offsets[e + 1]!), at);
        at += v;
      }
    }
    out[i] = section;
  }
  return out;
}

function jsonHeaderSections(column: arrow.Data, numRows: number): (Uint8Array | null)[] {
  const out = new Array<Uint8Array | null>(numRows).fill(null);
  for (let i = 0; i < numRows; i++) {
    const text = readString(column, i);
    if (text) out[i] = encodeHeaderSection(parseHeaders(text, i));
  }
  return out;
}

function parseHeaders(text: string, row: number): RecordHeader[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed)) throw new SluiceError(`row ${row}: headers must be JSON such as [{"key":"k","value":"v"}], got ${text}`);
  return (parsed as { key?: unknown; value?: unknown }[]).map((h) => {
    if (typeof h?.key !== "string") throw new SluiceError(`row ${row}: every header needs a string "key", got ${JSON.stringify(h)}`);
    const value = h.value === null || h.value === undefined ? null : utf8.encode(typeof h.value === "string" ? h.value : String(h.value));
    return { key: utf8.encode(h.key), value };
  });
}
