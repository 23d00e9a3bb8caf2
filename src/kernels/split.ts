import type { StringsView } from "./columns.js";
import { decodeUtf8, encodeUtf8 } from "./utf8.js";

/**
 * Spark's `split(str, regex, limit)` feeding `explode`: every piece of every string, flattened,
 * with the row each piece came from. Semantics (Spark's UTF8String.split over Java's
 * String.split with limit -1 for limit <= 0):
 * - limit > 0: at most `limit` pieces, the last holding the rest of the string; limit <= 0: all;
 * - empty pieces are kept, leading and trailing ones included ("a,,b," gives a, "", b, "");
 * - a string without a match is one piece, the empty string included;
 * - an empty pattern splits a non-empty string into its characters;
 * - a null string gives no pieces (explode of a null array gives no rows).
 * A pattern without regex metacharacters is searched for byte by byte in the UTF-8 data (UTF-8
 * has no false matches inside a character), so the common `split(line, " ")` never decodes text;
 * a regex is run on the decoded string (JavaScript's syntax, which agrees with Java's for the
 * classes, quantifiers and groups splitting uses).
 */
export interface SplitPieces {
  /** The input row of each piece. */
  readonly rows: Int32Array;
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
}

const REGEX_META = /[.$|()[\]{}^?*+\\]/;

export function isPlainPattern(pattern: string): boolean {
  return !REGEX_META.test(pattern);
}

/** Growable output: piece ranges are appended as (row, start, end) over the input bytes or new bytes. */
class PieceBuilder {
  rows: Int32Array = new Int32Array(64);
  offsets: Int32Array = new Int32Array(65);
  bytes: Uint8Array;
  count = 0;
  size = 0;

  constructor(byteHint: number) {
    this.bytes = new Uint8Array(Math.max(16, byteHint));
  }

  push(row: number, src: Uint8Array, start: number, end: number): void {
    if (this.count + 1 >= this.rows.length) {
      this.rows = grow(this.rows, this.rows.length * 2);
      this.offsets = grow(this.offsets, this.offsets.length * 2);
    }
    const len = end - start;
    if (this.size + len > this.bytes.length) {
      const bigger = new Uint8Array(Math.max(this.bytes.length * 2, this.size + len));
      bigger.set(this.bytes.subarray(0, this.size));
      this.bytes = bigger;
    }
    this.bytes.set(src.subarray(start, end), this.size);
    this.size += len;
    this.rows[this.count] = row;
    this.count++;
    this.offsets[this.count] = this.size;
  }

  finish(): SplitPieces {
    return { rows: this.rows.slice(0, this.count), offsets: this.offsets.slice(0, this.count + 1), bytes: this.bytes.slice(0, this.size) };
  }
}

function grow(a: Int32Array, size: number): Int32Array {
  const out = new Int32Array(size);
  out.set(a);
  return out;
}

export function splitPieces(view: StringsView, valid: Uint8Array | null, n: number, pattern: string, limit: number): SplitPieces {
  const { offsets, bytes, indices } = view;
  const out = new PieceBuilder(bytes.length);
  const max = limit > 0 ? limit : Infinity;
  const sep = encodeUtf8(pattern);
  const regex = isPlainPattern(pattern) ? null : new RegExp(pattern, "g");
  for (let i = 0; i < n; i++) {
    if (valid !== null && valid[i] === 0) continue;
    const entry = indices === null ? i : indices[i]!;
    const start = offsets[entry]!;
    const end = offsets[entry + 1]!;
    if (sep.length === 0 && end > start) splitCharacters(out, i, bytes, start, end, max);
    else if (regex === null) splitBytes(out, i, bytes, start, end, sep, max);
    else splitRegex(out, i, decodeUtf8(bytes, start, end), regex, max);
  }
  return out.finish();
}

function splitBytes(out: PieceBuilder, row: number, bytes: Uint8Array, start: number, end: number, sep: Uint8Array, max: number): void {
  let pos = start;
  let pieces = 1;
  const first = sep[0]!;
  const last = end - sep.length;
  for (let k = start; k <= last && pieces < max; k++) {
    if (bytes[k] !== first) continue;
    let j = 1;
    while (j < sep.length && bytes[k + j] === sep[j]) j++;
    if (j < sep.length) continue;
    out.push(row, bytes, pos, k);
    pos = k + sep.length;
    k = pos - 1;
    pieces++;
  }
  out.push(row, bytes, pos, end);
}

/** Code point by code point (UTF-8 lead bytes start each), the last piece holding the rest at the limit. */
function splitCharacters(out: PieceBuilder, row: number, bytes: Uint8Array, start: number, end: number, max: number): void {
  let pos = start;
  let pieces = 1;
  for (let k = start + 1; k < end && pieces < max; k++) {
    if ((bytes[k]! & 0xc0) === 0x80) continue;
    out.push(row, bytes, pos, k);
    pos = k;
    pieces++;
  }
  out.push(row, bytes, pos, end);
}

/** Java's rule: a zero-width match at the start gives no leading empty piece. */
function splitRegex(out: PieceBuilder, row: number, text: string, regex: RegExp, max: number): void {
  regex.lastIndex = 0;
  let pos = 0;
  let pieces = 1;
  let m: RegExpExecArray | null;
  while (pieces < max && (m = regex.exec(text)) !== null) {
    if (m[0].length === 0) {
      regex.lastIndex++;
      if (m.index === 0 || m.index > text.length) continue;
    }
    const piece = encodeUtf8(text.slice(pos, m.index));
    out.push(row, piece, 0, piece.length);
    pos = m.index + m[0].length;
    pieces++;
    if (regex.lastIndex > text.length) break;
  }
  const rest = encodeUtf8(text.slice(pos));
  out.push(row, rest, 0, rest.length);
}
