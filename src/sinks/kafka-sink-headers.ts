import type * as arrow from "apache-arrow";
import { readString } from "../batch/batch.js";
import { SluiceError } from "../errors/errors.js";
import { encodeHeaderSection, type RecordHeader } from "../sources/kafka/record-batch/encode-rows.js";

/**
 * The sink's `headers` column: JSON text of `[{"key":"k","value":"v"},...]`, the form the Kafka
 * source's `headers` column has. Each row's headers become the record's encoded header section
 * (count, then key and value bytes per header), in the order given, duplicates kept, as Kafka
 * and Spark keep them. A null value is a null header value; other non-string values are written
 * as their text. A null or empty cell means no headers. This is the per-row (slower) path: only
 * rows that carry headers pay for JSON parsing.
 */

const utf8 = new TextEncoder();

/** Per row, the encoded header section, or null for none. */
export function encodeHeadersColumn(column: arrow.Data, numRows: number): (Uint8Array | null)[] {
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
