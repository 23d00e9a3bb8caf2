import { isExactWords } from "../batch/numeric-columns.js";
import type { ColumnView, NumberView, StringView, ViewKind, WindowView } from "./hash-table-columns.js";

/**
 * Composite grouping keys as 32-bit words. Each row's key is the concatenation of its columns:
 *
 *   number  [1 (valid) or 0 (null)][float64 low word][float64 high word]   (zeros when null)
 *           [2][int64 low word][int64 high word]   an int64 beyond ±(2^53 - 1), which no double holds
 *   string  [0 (null) or byte length + 1][UTF-8 bytes, zero-padded to a whole word]
 *   window  [start float64: 2 words][end float64: 2 words]                 (never null)
 *
 * Two keys are equal exactly when their words are equal, so the hash table hashes, compares and
 * stores words only, whatever the key types, four bytes per step. -0 is written as 0 and every
 * NaN as one NaN so that equal values give equal words (Spark normalises grouping keys the same
 * way). Null is a value of its own: all null keys of a column fall into one group. Words are
 * little-endian, like every Arrow buffer Sluice reads. An int64 key within ±(2^53 - 1) is its exact
 * double (so keys written before int64 words existed still match); one beyond is its own two
 * words under tag 2, so 2^53 and 2^53 + 1 are two keys.
 */

/** Rows' keys encoded back to back: row i is `words[offsets[i], offsets[i + 1])`. */
export interface EncodedKeys {
  readonly count: number;
  readonly words: Int32Array;
  readonly offsets: Int32Array;
  readonly hashes: Int32Array;
}

/** A key column to encode: the view, and the view row that each key row reads (null: row i). */
export interface KeyInput {
  readonly view: ColumnView;
  readonly rows: Int32Array | null;
}

export const NUMBER_KEY_WORDS = 3;
/** The tag word of a number key holding int64 words rather than a double. */
export const INT64_KEY_TAG = 2;
export const WINDOW_KEY_WORDS = 4;

/** Float64 <-> two int32 words, without a DataView per call. */
const f64 = new Float64Array(1);
const f64Words = new Int32Array(f64.buffer);

/**
 * Encodes keys into buffers it reuses across calls, so that encoding a batch allocates nothing
 * once warm. The result is valid until the next `encode` call on the same encoder.
 */
export class KeyEncoder {
  private words = new Int32Array(256);
  private bytes = new Uint8Array(this.words.buffer);
  private offsets = new Int32Array(64);
  private hashes = new Int32Array(64);
  private cursor = new Int32Array(64);

  encode(inputs: readonly KeyInput[], count: number): EncodedKeys {
    this.reserveRows(count);
    const offsets = this.offsets;
    let fixed = 0;
    for (const input of inputs) fixed += fixedWords(input.view.kind);
    for (let i = 0; i <= count; i++) offsets[i] = i * fixed;
    for (const input of inputs) if (input.view.kind === "string") addStringWords(input.view, input.rows, count, offsets);
    this.reserveWords(offsets[count]!);
    const cursor = this.cursor;
    cursor.set(offsets.subarray(0, count));
    for (const input of inputs) {
      const v = input.view;
      switch (v.kind) {
        case "number":
          writeNumbers(v, input.rows, count, this.words, cursor);
          break;
        case "string":
          writeStrings(v, input.rows, count, this.words, this.bytes, cursor);
          break;
        case "window":
          writeWindows(v, input.rows, count, this.words, cursor);
          break;
      }
    }
    const hashes = this.hashes;
    const words = this.words;
    for (let i = 0; i < count; i++) hashes[i] = hashWords(words, offsets[i]!, offsets[i + 1]!);
    return { count, words, offsets, hashes };
  }

  private reserveRows(count: number): void {
    if (this.offsets.length > count) return;
    const size = Math.max(count + 1, this.offsets.length * 2);
    this.offsets = new Int32Array(size);
    this.hashes = new Int32Array(size);
    this.cursor = new Int32Array(size);
  }

  private reserveWords(total: number): void {
    if (this.words.length >= total) return;
    this.words = new Int32Array(Math.max(total, this.words.length * 2));
    this.bytes = new Uint8Array(this.words.buffer);
  }
}

function fixedWords(kind: ViewKind): number {
  switch (kind) {
    case "number":
      return NUMBER_KEY_WORDS;
    case "string":
      return 1;
    case "window":
      return WINDOW_KEY_WORDS;
  }
}

/** Adds each row's string words (bytes rounded up to whole words) to the running offsets. */
function addStringWords(v: StringView, rows: Int32Array | null, count: number, offsets: Int32Array): void {
  let extra = 0;
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    if (v.valid === null || v.valid[r] === 1) extra += (v.ends[r]! - v.starts[r]! + 3) >> 2;
    offsets[i + 1] = offsets[i + 1]! + extra;
  }
}

/** The words of a float64 array, to copy values bit for bit without converting them. */
function wordsOf(values: Float64Array): Int32Array {
  return new Int32Array(values.buffer, values.byteOffset, values.length * 2);
}

/** Canonical words of NaN (every NaN groups with every other). */
const NAN_LOW = 0;
const NAN_HIGH = 0x7ff80000;

function writeNumbers(v: NumberView, rows: Int32Array | null, count: number, words: Int32Array, cursor: Int32Array): void {
  if (v.words !== undefined) {
    writeInt64Numbers(v, v.words, rows, count, words, cursor);
    return;
  }
  const values = v.values;
  const bits = wordsOf(values);
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    const p = cursor[i]!;
    cursor[i] = p + NUMBER_KEY_WORDS;
    if (v.valid !== null && v.valid[r] === 0) {
      words[p] = 0;
      words[p + 1] = 0;
      words[p + 2] = 0;
      continue;
    }
    const x = values[r]!;
    words[p] = 1;
    if (x === 0) {
      // -0 and 0 alike
      words[p + 1] = 0;
      words[p + 2] = 0;
    } else if (x !== x) {
      words[p + 1] = NAN_LOW;
      words[p + 2] = NAN_HIGH;
    } else {
      words[p + 1] = bits[2 * r]!;
      words[p + 2] = bits[2 * r + 1]!;
    }
  }
}

/** Number keys of an int64 view with exact words: values beyond ±(2^53 - 1) under INT64_KEY_TAG. */
function writeInt64Numbers(v: NumberView, exact: Int32Array, rows: Int32Array | null, count: number, words: Int32Array, cursor: Int32Array): void {
  const values = v.values;
  const bits = wordsOf(values);
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    const p = cursor[i]!;
    cursor[i] = p + NUMBER_KEY_WORDS;
    if (v.valid !== null && v.valid[r] === 0) {
      words[p] = 0;
      words[p + 1] = 0;
      words[p + 2] = 0;
      continue;
    }
    const lo = exact[2 * r]!;
    const hi = exact[2 * r + 1]!;
    if (isExactWords(lo, hi)) {
      words[p] = 1;
      // An integral double is never -0 or NaN; 0 is all zero bits.
      words[p + 1] = bits[2 * r]!;
      words[p + 2] = bits[2 * r + 1]!;
    } else {
      words[p] = INT64_KEY_TAG;
      words[p + 1] = lo;
      words[p + 2] = hi;
    }
  }
}

function writeStrings(v: StringView, rows: Int32Array | null, count: number, words: Int32Array, bytes: Uint8Array, cursor: Int32Array): void {
  const src = v.bytes;
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    const p = cursor[i]!;
    if (v.valid !== null && v.valid[r] === 0) {
      words[p] = 0;
      cursor[i] = p + 1;
      continue;
    }
    const s = v.starts[r]!;
    const len = v.ends[r]! - s;
    const n = (len + 3) >> 2;
    words[p] = len + 1;
    // Zero the last word first: the buffer is reused and padding must not carry old bytes.
    if (n > 0) words[p + n] = 0;
    const at = (p + 1) << 2;
    for (let k = 0; k < len; k++) bytes[at + k] = src[s + k]!;
    cursor[i] = p + 1 + n;
  }
}

function writeWindows(v: WindowView, rows: Int32Array | null, count: number, words: Int32Array, cursor: Int32Array): void {
  const starts = wordsOf(v.starts);
  const ends = wordsOf(v.ends);
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    const p = cursor[i]!;
    cursor[i] = p + WINDOW_KEY_WORDS;
    if (v.starts[r] === 0 || v.ends[r] === 0) {
      // Rare: a bound at 0, which may be -0; write it through the normalising path.
      writeWindow(words, p, v.starts[r]!, v.ends[r]!);
      continue;
    }
    words[p] = starts[2 * r]!;
    words[p + 1] = starts[2 * r + 1]!;
    words[p + 2] = ends[2 * r]!;
    words[p + 3] = ends[2 * r + 1]!;
  }
}

function writeWindow(words: Int32Array, p: number, start: number, end: number): void {
  f64[0] = start + 0;
  words[p] = f64Words[0]!;
  words[p + 1] = f64Words[1]!;
  f64[0] = end + 0;
  words[p + 2] = f64Words[0]!;
  words[p + 3] = f64Words[1]!;
}

/** The float64 stored in words p and p + 1. */
export function readF64(words: Int32Array, p: number): number {
  f64Words[0] = words[p]!;
  f64Words[1] = words[p + 1]!;
  return f64[0]!;
}

/**
 * Hash of a key's words: one rotate-xor-multiply step per word (the golden-ratio multiplier of
 * Fibonacci hashing), then MurmurHash3's finalizer to spread every input bit over the low bits
 * the table masks with. Stable across processes.
 */
export function hashWords(w: Int32Array, start: number, end: number): number {
  let h = end - start;
  for (let p = start; p < end; p++) h = Math.imul(((h << 5) | (h >>> 27)) ^ w[p]!, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * A key with a window column appended: `prefix[from, to)` (the other columns, already encoded)
 * followed by the window, exactly as `KeyEncoder` would encode the whole row.
 */
export function appendWindowKey(prefix: Int32Array, from: number, to: number, start: number, end: number): Int32Array {
  const key = new Int32Array(to - from + WINDOW_KEY_WORDS);
  key.set(prefix.subarray(from, to));
  writeWindow(key, to - from, start, end);
  return key;
}
