import type * as arrow from "apache-arrow";
import { readValidity } from "../batch/validity.js";
import { base64Length, writeBase64 } from "../kernels/binary.js";
import { headersOf } from "../kernels/headers.js";
import { encodeUtf8 } from "../kernels/utf8.js";
import type { StrVec } from "./eval-vec.js";
import { COMMA, escapedStrings } from "./json-text.js";

/**
 * Kafka headers (kernels/headers.ts) as JSON text per row, as Spark's JSON writer prints an
 * `array<struct<key: string, value: binary>>`: `[{"key":"trace","value":"dDE="}]`, keys escaped,
 * values in base64, a header without a value as `{"key":"k"}` (null fields are left out), a row
 * without headers as `[]`, a null row as null. Two passes over the entries: lengths, then bytes.
 */

const OPEN_KEY = encodeUtf8('{"key":"');
const OPEN_VALUE = encodeUtf8('","value":"');
/** Closes the key's string (or the value's) and the object. */
const CLOSE = encodeUtf8('"}');
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

export function headersJson(data: arrow.Data, n: number): StrVec {
  const { offsets, keys: rawKeys, values, valueValid } = headersOf(data);
  const entries = offsets[n]!;
  const keys = escapedStrings(rawKeys, entries);
  const valid = readValidity(data);
  const has = (e: number) => valueValid === null || valueValid[e] === 1;
  const out = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (valid === null || valid[i]) {
      total += 2;
      for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
        if (e > offsets[i]!) total++;
        total += OPEN_KEY.length + keys.offsets[e + 1]! - keys.offsets[e]!;
        if (has(e)) total += OPEN_VALUE.length + base64Length(values.offsets[e + 1]! - values.offsets[e]!);
        total += CLOSE.length;
      }
    }
    out[i + 1] = total;
  }
  const text = new Uint8Array(total);
  const put = (piece: Uint8Array, at: number) => {
    text.set(piece, at);
    return at + piece.length;
  };
  for (let i = 0; i < n; i++) {
    if (valid !== null && !valid[i]) continue;
    let at = out[i]!;
    text[at++] = LBRACKET;
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
      if (e > offsets[i]!) text[at++] = COMMA;
      at = put(OPEN_KEY, at);
      at = put(keys.bytes.subarray(keys.offsets[e]!, keys.offsets[e + 1]!), at);
      if (has(e)) {
        at = put(OPEN_VALUE, at);
        at = writeBase64(values.bytes, values.offsets[e]!, values.offsets[e + 1]!, text, at);
      }
      at = put(CLOSE, at);
    }
    text[at] = RBRACKET;
  }
  return { kind: "str", strings: { offsets: out, bytes: text, indices: null }, valid };
}
