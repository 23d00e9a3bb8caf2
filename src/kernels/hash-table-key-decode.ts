import type { ColumnView, NumberView, StringView, ViewKind, WindowView } from "./hash-table-columns.js";
import { setInt64Words, wordsToNumber } from "../batch/numeric-columns.js";
import { INT64_KEY_TAG, NUMBER_KEY_WORDS, WINDOW_KEY_WORDS, readF64 } from "./hash-table-keys.js";
import { copyBytes, viewOf } from "./copy-bytes.js";

/** Reading encoded keys (see `hash-table-keys.ts`) back into column views. */

/**
 * Decodes the keys of `groups` back into views, one per key column. `kinds` lists the columns in
 * encoding order; group g's key starts at word `starts[g]` of `arena`.
 */
export function decodeKeys(arena: Int32Array, starts: Int32Array, groups: Int32Array, kinds: readonly ViewKind[]): ColumnView[] {
  const n = groups.length;
  const cursor = new Int32Array(n);
  for (let j = 0; j < n; j++) cursor[j] = starts[groups[j]!]!;
  return kinds.map((kind) => {
    switch (kind) {
      case "number":
        return decodeNumbers(arena, cursor);
      case "string":
        return decodeStrings(arena, cursor);
      case "window":
        return decodeWindows(arena, cursor);
    }
  });
}

/** Number keys back into a view; int64 keys beyond ±(2^53 - 1) (INT64_KEY_TAG) give the view exact words. */
function decodeNumbers(arena: Int32Array, cursor: Int32Array): NumberView {
  const n = cursor.length;
  const values = new Float64Array(n);
  const valid = new Uint8Array(n);
  let anyNull = false;
  let anyInt64 = false;
  for (let j = 0; j < n; j++) {
    const p = cursor[j]!;
    const tag = arena[p]!;
    if (tag === 1) {
      valid[j] = 1;
      values[j] = readF64(arena, p + 1);
    } else if (tag === INT64_KEY_TAG) {
      valid[j] = 1;
      values[j] = wordsToNumber(arena[p + 1]!, arena[p + 2]!);
      anyInt64 = true;
    } else anyNull = true;
  }
  const view: NumberView = { kind: "number", values, valid: anyNull ? valid : null };
  const words = anyInt64 ? new Int32Array(2 * n) : null;
  for (let j = 0; j < n; j++) {
    const p = cursor[j]!;
    if (words !== null) {
      if (arena[p] === INT64_KEY_TAG) {
        words[2 * j] = arena[p + 1]!;
        words[2 * j + 1] = arena[p + 2]!;
      } else if (valid[j] === 1) setInt64Words(words, j, values[j]!);
    }
    cursor[j] = p + NUMBER_KEY_WORDS;
  }
  return words === null ? view : { ...view, words };
}

function decodeStrings(arena: Int32Array, cursor: Int32Array): StringView {
  const n = cursor.length;
  const arenaBytes = new Uint8Array(arena.buffer, arena.byteOffset, arena.byteLength);
  const offsets = new Int32Array(n + 1);
  const valid = new Uint8Array(n);
  let anyNull = false;
  for (let j = 0; j < n; j++) {
    const tag = arena[cursor[j]!]!;
    if (tag === 0) anyNull = true;
    else valid[j] = 1;
    offsets[j + 1] = offsets[j]! + (tag === 0 ? 0 : tag - 1);
  }
  const bytes = new Uint8Array(offsets[n]!);
  const arenaView = viewOf(arenaBytes);
  const outView = viewOf(bytes);
  for (let j = 0; j < n; j++) {
    const p = cursor[j]!;
    const len = offsets[j + 1]! - offsets[j]!;
    if (valid[j] === 1) copyBytes(arenaBytes, arenaView, (p + 1) << 2, bytes, outView, offsets[j]!, len);
    cursor[j] = p + 1 + (valid[j] === 1 ? (len + 3) >> 2 : 0);
  }
  return { kind: "string", bytes, starts: offsets.subarray(0, n), ends: offsets.subarray(1), valid: anyNull ? valid : null };
}

function decodeWindows(arena: Int32Array, cursor: Int32Array): WindowView {
  const n = cursor.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const p = cursor[j]!;
    starts[j] = readF64(arena, p);
    ends[j] = readF64(arena, p + 2);
    cursor[j] = p + WINDOW_KEY_WORDS;
  }
  return { kind: "window", starts, ends };
}

/** The window of a key whose last column is a window; `keyEnd` is the word after the key. */
export function windowAtKeyEnd(words: Int32Array, keyEnd: number): { start: number; end: number } {
  const p = keyEnd - WINDOW_KEY_WORDS;
  return { start: readF64(words, p), end: readF64(words, p + 2) };
}
