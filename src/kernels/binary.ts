import { isUtf8 } from "node:buffer";
import { entryCount, type StringsView } from "./columns.js";
import { decodeUtf8, encodeUtf8, Utf8Builder } from "./utf8.js";

/**
 * Kernels over byte values (binary columns, and strings read as their UTF-8 bytes), per entry of a
 * view (once per dictionary value). Each returns the new entries' offsets and bytes; the caller
 * keeps the view's indices, so row i still reads entry `indices ? indices[i] : i`.
 *
 * - `textOfBytes`: bytes as UTF-8 text, malformed sequences replaced by U+FFFD (one per maximal
 *   ill-formed subpart, as Java's decoder, which Spark's cast to string goes through, replaces them);
 * - `base64Texts` / `bytesOfBase64`: RFC 4648 base64 with padding and no line breaks, as Spark's
 *   `base64()` and its JSON writer; decoding skips bytes outside the alphabet (line breaks, spaces),
 *   as Java's MIME decoder behind Spark's `unbase64()` does;
 * - `hexTexts`: two upper-case hex digits per byte, as Spark's `hex()`.
 */

export interface EntryBytes {
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
}

/** Continuation bytes of UTF-8 are 10xxxxxx. */
const isContinuation = (b: number) => (b & 0xc0) === 0x80;

/**
 * True when every entry is well-formed UTF-8. One native check over all the entries' bytes, then
 * one byte per entry: a sequence could only straddle two entries if the second began with a
 * continuation byte.
 */
function allEntriesUtf8(view: StringsView, entries: number): boolean {
  const { offsets, bytes } = view;
  if (!isUtf8(bytes.subarray(offsets[0], offsets[entries]))) return false;
  for (let e = 0; e < entries; e++) if (offsets[e + 1] > offsets[e] && isContinuation(bytes[offsets[e]])) return false;
  return true;
}

/** The entries as UTF-8 text: the view's own bytes when they are all well-formed (the usual case). */
export function textOfBytes(view: StringsView, n: number): EntryBytes {
  const entries = entryCount(view, n);
  if (allEntriesUtf8(view, entries)) return { offsets: view.offsets, bytes: view.bytes };
  const { offsets, bytes } = view;
  const builder = new Utf8Builder(entries, offsets[entries] - offsets[0]);
  for (let e = 0; e < entries; e++) {
    const start = offsets[e];
    const end = offsets[e + 1];
    if (isUtf8(bytes.subarray(start, end))) builder.appendRange(bytes, start, end);
    // TextDecoder (not fatal) writes U+FFFD for each maximal ill-formed subpart.
    else builder.appendString(decodeUtf8(bytes, start, end));
  }
  return builder.finish();
}

const BASE64_ALPHABET = encodeUtf8("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
const PAD = 0x3d; // =
/** Byte -> its 6-bit value, or -1 for bytes outside the alphabet. */
const BASE64_VALUE = new Int8Array(256).fill(-1);
BASE64_ALPHABET.forEach((b, i) => (BASE64_VALUE[b] = i));

/** Length of the base64 text of `n` bytes: 4 characters per 3 bytes, the last group padded. */
export function base64Length(n: number): number {
  return 4 * Math.ceil(n / 3);
}

/** Writes the base64 text of `src[start, end)` at `out[at]`; returns the position after it. */
export function writeBase64(src: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  const A = BASE64_ALPHABET;
  let i = start;
  for (; i + 2 < end; i += 3) {
    const x = (src[i] << 16) | (src[i + 1] << 8) | src[i + 2];
    out[at++] = A[x >> 18];
    out[at++] = A[(x >> 12) & 63];
    out[at++] = A[(x >> 6) & 63];
    out[at++] = A[x & 63];
  }
  const left = end - i;
  if (left > 0) {
    const x = (src[i] << 16) | (left === 2 ? src[i + 1] << 8 : 0);
    out[at++] = A[x >> 18];
    out[at++] = A[(x >> 12) & 63];
    out[at++] = left === 2 ? A[(x >> 6) & 63] : PAD;
    out[at++] = PAD;
  }
  return at;
}

/** The base64 text of each entry. */
export function base64Texts(view: StringsView, n: number): EntryBytes {
  const entries = entryCount(view, n);
  const { offsets, bytes } = view;
  const out = new Int32Array(entries + 1);
  for (let e = 0; e < entries; e++) out[e + 1] = out[e] + base64Length(offsets[e + 1] - offsets[e]);
  const text = new Uint8Array(out[entries]);
  for (let e = 0; e < entries; e++) writeBase64(bytes, offsets[e], offsets[e + 1], text, out[e]);
  return { offsets: out, bytes: text };
}

/**
 * Decodes the base64 text `src[start, end)` into `out[at]`, skipping bytes outside the alphabet and
 * stopping at the first `=`. Returns the position after the bytes written, or -1 when the text
 * ends with a single leftover character, which holds no whole byte.
 */
function decodeBase64Into(src: Uint8Array, start: number, end: number, out: Uint8Array, at: number): number {
  let acc = 0;
  let bits = 0;
  let chars = 0;
  for (let i = start; i < end; i++) {
    const c = src[i];
    if (c === PAD) break;
    const v = BASE64_VALUE[c];
    if (v < 0) continue;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    chars++;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >> bits) & 0xff;
    }
  }
  return chars % 4 === 1 ? -1 : at;
}

/** Each entry's base64 text decoded; `decoded[e]` is 0 where entry e is not base64 (a null result). */
export function bytesOfBase64(view: StringsView, n: number): EntryBytes & { readonly decoded: Uint8Array } {
  const entries = entryCount(view, n);
  const { offsets, bytes } = view;
  // Decoded bytes never outnumber three quarters of the text.
  const out = new Uint8Array(Math.ceil(((offsets[entries] - offsets[0]) * 3) / 4));
  const outOffsets = new Int32Array(entries + 1);
  const decoded = new Uint8Array(entries);
  let at = 0;
  for (let e = 0; e < entries; e++) {
    const next = decodeBase64Into(bytes, offsets[e], offsets[e + 1], out, at);
    if (next >= 0) {
      decoded[e] = 1;
      at = next;
    }
    outOffsets[e + 1] = at;
  }
  return { offsets: outOffsets, bytes: out.subarray(0, at), decoded };
}

const HEX_DIGITS = encodeUtf8("0123456789ABCDEF");

/** Each entry's bytes as upper-case hex, two digits per byte. */
export function hexTexts(view: StringsView, n: number): EntryBytes {
  const entries = entryCount(view, n);
  const { offsets, bytes } = view;
  const out = new Int32Array(entries + 1);
  for (let e = 0; e < entries; e++) out[e + 1] = out[e] + 2 * (offsets[e + 1] - offsets[e]);
  const text = new Uint8Array(out[entries]);
  for (let e = 0; e < entries; e++) {
    let at = out[e];
    for (let i = offsets[e]; i < offsets[e + 1]; i++) {
      text[at++] = HEX_DIGITS[bytes[i] >> 4];
      text[at++] = HEX_DIGITS[bytes[i] & 15];
    }
  }
  return { offsets: out, bytes: text };
}
