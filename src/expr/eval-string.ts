import { andValidity } from "../kernels/bits.js";
import { entryCount, entryText, spreadEntries } from "../kernels/columns.js";
import { codePointOffset, countCodePoints, isAscii, Utf8Builder } from "../kernels/utf8.js";
import type { NumVec, StrVec } from "./eval-vec.js";

/**
 * String functions. Work that depends only on the string runs once per distinct entry (dictionary
 * columns keep their indices); ASCII text is transformed byte by byte without decoding.
 */

const A = 0x41;
const Z = 0x5a;
const a = 0x61;
const z = 0x7a;

/** lower() / upper(); a null stays null. */
export function changeCase(v: StrVec, toUpper: boolean, n: number): StrVec {
  const view = v.strings;
  const entries = entryCount(view, n);
  const first = view.offsets[0];
  const last = view.offsets[entries];
  if (isAscii(view.bytes, first, last)) {
    // Same offsets, mapped bytes: only the letters move by 32.
    const src = view.bytes;
    const bytes = new Uint8Array(last);
    const lo = toUpper ? a : A;
    const hi = toUpper ? z : Z;
    const shift = toUpper ? -32 : 32;
    for (let i = first; i < last; i++) {
      const b = src[i];
      bytes[i] = b >= lo && b <= hi ? b + shift : b;
    }
    return { kind: "str", strings: { offsets: view.offsets, bytes, indices: view.indices }, valid: v.valid };
  }
  const builder = new Utf8Builder(entries, last - first);
  for (let e = 0; e < entries; e++) {
    const text = entryText(view, e);
    builder.appendString(toUpper ? text.toUpperCase() : text.toLowerCase());
  }
  const { offsets, bytes } = builder.finish();
  return { kind: "str", strings: { offsets, bytes, indices: view.indices }, valid: v.valid };
}

/** length(): characters, counted as code points (a surrogate pair is one character, as Spark). */
export function lengthOf(v: StrVec, n: number): NumVec {
  const view = v.strings;
  const entries = entryCount(view, n);
  const perEntry = new Float64Array(entries);
  for (let e = 0; e < entries; e++) perEntry[e] = countCodePoints(view.bytes, view.offsets[e], view.offsets[e + 1]);
  return { kind: "num", values: spreadEntries(perEntry, view, n), valid: v.valid };
}

/** concat(): the arguments' bytes one after another; null when any argument is null. */
export function concatText(args: readonly StrVec[], n: number): StrVec {
  const valid = args.reduce<Uint8Array | null>((acc, s) => andValidity(acc, s.valid), null);
  const builder = new Utf8Builder(n);
  for (let i = 0; i < n; i++) {
    if (valid === null || valid[i]) {
      for (const arg of args) {
        const { offsets, bytes, indices } = arg.strings;
        const e = indices === null ? i : indices[i];
        builder.appendPart(bytes, offsets[e], offsets[e + 1]);
      }
    }
    builder.endRow();
  }
  const { offsets, bytes } = builder.finish();
  return { kind: "str", strings: { offsets, bytes, indices: null }, valid };
}

const INT_MAX = 2 ** 31 - 1;
const INT_MIN = -(2 ** 31);

function toInt(x: number): number {
  return x !== x ? 0 : Math.min(INT_MAX, Math.max(INT_MIN, Math.trunc(x)));
}

/**
 * substring(str, pos, len) as Spark's `substringSQL`: pos is 1-based, 0 behaves as 1, a negative
 * pos counts from the end; characters are code points; out-of-range parts are clipped.
 */
export function substring(s: StrVec, pos: NumVec, len: NumVec, n: number): StrVec {
  const valid = andValidity(andValidity(s.valid, pos.valid), len.valid);
  const { offsets, bytes, indices } = s.strings;
  const builder = new Utf8Builder(n);
  for (let i = 0; i < n; i++) {
    if (valid !== null && !valid[i]) {
      builder.endRow();
      continue;
    }
    const e = indices === null ? i : indices[i];
    const from = offsets[e];
    const to = offsets[e + 1];
    const chars = countCodePoints(bytes, from, to);
    const p = toInt(pos.values[i]);
    let start = p > 0 ? p - 1 : p < 0 ? chars + p : 0;
    let end = start + toInt(len.values[i]);
    start = Math.max(start, 0);
    end = Math.min(end, chars);
    if (start >= end) {
      builder.endRow();
      continue;
    }
    // When every byte is a character, positions are byte offsets.
    const ascii = to - from === chars;
    const byteStart = ascii ? from + start : codePointOffset(bytes, from, to, start);
    const byteEnd = ascii ? from + end : codePointOffset(bytes, from, to, end);
    builder.appendRange(bytes, byteStart, byteEnd);
  }
  const { offsets: outOffsets, bytes: outBytes } = builder.finish();
  return { kind: "str", strings: { offsets: outOffsets, bytes: outBytes, indices: null }, valid };
}
