import * as arrow from "apache-arrow";
import { readValidity } from "../batch/validity.js";
import { copyBytes, viewOf } from "./copy-bytes.js";
import { decodeUtf8 } from "./utf8.js";

/**
 * String (and binary) columns as kernels read them. These follow Arrow JS's slicing convention (see bits.ts):
 * value buffers and offsets are already sliced, only bitmaps start at `data.offset`. Numbers,
 * times and validity are read by batch/numeric-columns.ts and batch/validity.ts.
 */

/**
 * A string or binary column as offsets + bytes. Row i is entry `indices ? indices[i] : i`, whose bytes are
 * `bytes[offsets[e] .. offsets[e + 1])`. Dictionary columns keep their indices, so per-string work
 * (comparisons, lower/upper) can run once per distinct value. Null rows always point at a valid
 * entry, so kernels may read them without checks.
 */
export interface StringsView {
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  readonly indices: Int32Array | null;
}

export function stringsOf(data: arrow.Data): StringsView {
  const type = data.type;
  if (arrow.DataType.isUtf8(type) || arrow.DataType.isBinary(type)) {
    return { offsets: data.valueOffsets as Int32Array, bytes: data.values as Uint8Array, indices: null };
  }
  if (arrow.DataType.isLargeUtf8(type) || arrow.DataType.isLargeBinary(type)) {
    const wide = data.valueOffsets as unknown as BigInt64Array;
    const words = new Int32Array(wide.buffer, wide.byteOffset, (data.length + 1) * 2);
    const offsets = new Int32Array(data.length + 1);
    for (let i = 0; i <= data.length; i++) offsets[i] = words[2 * i];
    return { offsets, bytes: data.values as Uint8Array, indices: null };
  }
  if (arrow.DataType.isDictionary(type)) return dictionaryStrings(data);
  throw new TypeError(`column of Arrow type ${type} is not a string or binary column`);
}

function dictionaryStrings(data: arrow.Data): StringsView {
  const dictionary = data.dictionary;
  if (!dictionary) throw new TypeError("dictionary column without a dictionary");
  const chunks = dictionary.data.map((d) => stringsOf(d));
  let entries = flattenEntries(chunks, dictionary.data.map((d) => d.length));
  if (entries.offsets.length === 1) entries = { offsets: Int32Array.of(0, 0), bytes: new Uint8Array(0), indices: null };
  const raw = dictionaryCodes(data);
  const valid = readValidity(data);
  const needsCopy = !(raw instanceof Int32Array) || valid !== null;
  const indices = needsCopy ? new Int32Array(data.length) : (raw as Int32Array).subarray(0, data.length);
  if (needsCopy) for (let i = 0; i < data.length; i++) indices[i] = valid === null || valid[i] ? raw[i] : 0;
  return { offsets: entries.offsets, bytes: entries.bytes, indices };
}

/** Dictionary codes as numbers; 64-bit codes are read through their low word (dictionaries are small). */
function dictionaryCodes(data: arrow.Data): ArrayLike<number> {
  const values = data.values as ArrayBufferView;
  if (!(values instanceof BigInt64Array || values instanceof BigUint64Array)) return values as unknown as ArrayLike<number>;
  const words = new Int32Array(values.buffer, values.byteOffset, data.length * 2);
  const codes = new Int32Array(data.length);
  for (let i = 0; i < data.length; i++) codes[i] = words[2 * i];
  return codes;
}

function flattenEntries(chunks: readonly StringsView[], lengths: readonly number[]): StringsView {
  if (chunks.length === 1) return chunks[0];
  return { ...concatStrings(chunks.map((view, k) => ({ view, rows: lengths[k] }))), indices: null };
}

/** Offsets (starting at 0) and bytes of several string views one after another. */
export function concatStrings(parts: readonly { readonly view: StringsView; readonly rows: number }[]): { offsets: Int32Array; bytes: Uint8Array } {
  // Plain views are copied as one byte range each; dictionary views are resolved first.
  const flat = parts.map(({ view, rows }) => (view.indices === null ? { offsets: view.offsets, bytes: view.bytes, rows } : { ...materializeStrings(view, rows), rows }));
  const totalRows = flat.reduce((sum, p) => sum + p.rows, 0);
  const offsets = new Int32Array(totalRows + 1);
  const bytes = new Uint8Array(flat.reduce((sum, p) => sum + p.offsets[p.rows] - p.offsets[0], 0));
  let row = 0;
  let pos = 0;
  for (const p of flat) {
    const base = p.offsets[0];
    for (let i = 1; i <= p.rows; i++) offsets[row + i] = pos + p.offsets[i] - base;
    bytes.set(p.bytes.subarray(base, p.offsets[p.rows]), pos);
    row += p.rows;
    pos += p.offsets[p.rows] - base;
  }
  return { offsets, bytes };
}

/** Offsets (starting at 0) and bytes of the first `n` rows of a view, resolving dictionary indices. */
export function materializeStrings(view: StringsView, n: number): { offsets: Int32Array; bytes: Uint8Array } {
  const { offsets, bytes, indices } = view;
  if (indices === null && offsets[0] === 0 && offsets[n] === bytes.length) return { offsets: offsets.subarray(0, n + 1), bytes };
  const out = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const e = indices === null ? i : indices[i];
    total += offsets[e + 1] - offsets[e];
    out[i + 1] = total;
  }
  const outBytes = new Uint8Array(total);
  const bytesView = viewOf(bytes);
  const outView = viewOf(outBytes);
  // Consecutive entries are adjacent in the byte buffer, so each run of consecutive indices (common
  // in selection vectors, which are sorted) is copied as one range.
  let i = 0;
  while (i < n) {
    let j = i + 1;
    if (indices === null) j = n;
    else while (j < n && indices[j] === indices[j - 1] + 1) j++;
    const start = offsets[indices === null ? i : indices[i]];
    const end = offsets[(indices === null ? j - 1 : indices[j - 1]) + 1];
    copyBytes(bytes, bytesView, start, outBytes, outView, out[i], end - start);
    i = j;
  }
  return { offsets: out, bytes: outBytes };
}

/** Row i of a view as a JavaScript string (validity is the caller's business). */
export function stringAt(view: StringsView, i: number): string {
  return entryText(view, view.indices === null ? i : view.indices[i]);
}

/** Entry e of a view (a dictionary value, or a row of a plain view) as a JavaScript string. */
export function entryText(view: StringsView, e: number): string {
  return decodeUtf8(view.bytes, view.offsets[e], view.offsets[e + 1]);
}

/** Number of entries a view's per-entry work runs over: the dictionary size, or the row count. */
export function entryCount(view: StringsView, rows: number): number {
  return view.indices === null ? rows : view.offsets.length - 1;
}

/**
 * Spreads per-entry results (see `entryCount`) over the rows: the identity for plain views, a
 * lookup through the indices for dictionary views.
 */
export function spreadEntries<T extends Float64Array | Uint8Array>(perEntry: T, view: StringsView, n: number): T {
  const indices = view.indices;
  if (indices === null) return perEntry;
  const out = new (perEntry.constructor as new (n: number) => T)(n);
  for (let i = 0; i < n; i++) out[i] = perEntry[indices[i]];
  return out;
}
