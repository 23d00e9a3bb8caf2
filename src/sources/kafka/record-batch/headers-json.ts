import type { KafkaColumnSink } from "./columns.js";
import { MalformedBatchError } from "./malformed.js";
import { readVarint, varintCursor } from "./varint.js";

/**
 * A record's headers as JSON text, `[{"key":"k","value":"v"},...]` (value null for a null header
 * value), written byte by byte into the sink's `headers` column; null when there are none. Header
 * bytes are copied as they are, escaping only what JSON requires (`"`, `\` and control bytes), so
 * UTF-8 keys and values come out as the JSON strings they are.
 */

const OPEN_KEY = ascii('{"key":"');
const OPEN_VALUE = ascii('","value":');
const NULL = ascii("null");
const HEX = ascii("0123456789abcdef");
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Worst case for `n` bytes of header data: every byte escaped as \u00XX, plus per-header framing. */
function jsonBound(dataBytes: number, count: number): number {
  return dataBytes * 6 + count * (OPEN_KEY.length + OPEN_VALUE.length + 6) + 2;
}

/** Reads the headers at `src[pos, recordEnd)` and writes row `row` of the headers column. */
export function appendHeadersJson(sink: KafkaColumnSink, row: number, src: Uint8Array, pos: number, recordEnd: number): void {
  const column = sink.headers!;
  let count = readVarint(src, pos);
  pos = varintCursor.next;
  if (count < 0) count = 0;
  sink.reserveHeaderBytes(row, jsonBound(recordEnd - pos, count));
  const out = column.bytes;
  let at = column.offsets[row]!;
  if (count === 0) {
    column.nulls++;
    column.offsets[row + 1] = at;
    return;
  }
  out[at++] = 0x5b; // [
  for (let h = 0; h < count; h++) {
    if (h > 0) out[at++] = 0x2c; // ,
    const keyLength = readVarint(src, pos);
    pos = varintCursor.next;
    if (keyLength < 0 || pos + keyLength > recordEnd) throw new MalformedBatchError(`header ${h} has a key length of ${keyLength}`);
    out.set(OPEN_KEY, at);
    at = writeEscaped(out, at + OPEN_KEY.length, src, pos, pos + keyLength);
    pos += keyLength;
    out.set(OPEN_VALUE, at);
    at += OPEN_VALUE.length;
    const valueLength = readVarint(src, pos);
    pos = varintCursor.next;
    if (valueLength < 0) {
      out.set(NULL, at);
      at += NULL.length;
    } else {
      if (pos + valueLength > recordEnd) throw new MalformedBatchError(`header ${h} has a value length of ${valueLength}`);
      out[at++] = QUOTE;
      at = writeEscaped(out, at, src, pos, pos + valueLength);
      out[at++] = QUOTE;
      pos += valueLength;
    }
    out[at++] = 0x7d; // }
  }
  out[at++] = 0x5d; // ]
  column.validity[row >> 3]! |= 1 << (row & 7);
  column.offsets[row + 1] = at;
}

function writeEscaped(out: Uint8Array, at: number, src: Uint8Array, start: number, end: number): number {
  for (let i = start; i < end; i++) {
    const c = src[i]!;
    if (c === QUOTE || c === BACKSLASH) {
      out[at++] = BACKSLASH;
      out[at++] = c;
    } else if (c < 0x20) {
      out[at++] = BACKSLASH;
      out[at++] = 0x75; // u
      out[at++] = 0x30;
      out[at++] = 0x30;
      out[at++] = HEX[c >> 4]!;
      out[at++] = HEX[c & 15]!;
    } else out[at++] = c;
  }
  return at;
}
