import * as arrow from "apache-arrow";
import { int64Residuals, readInt64 } from "../batch/numeric-columns.js";
import { readValidity } from "../batch/validity.js";

/**
 * Join key columns as the hash-join kernels read them. Every key is either a number (float64,
 * int32, int64, timestamp, date, boolean: all read as float64 by batch/numeric-columns.ts, so a
 * number key matches across numeric widths the way SQL compares numbers, and a Timestamp(us) key
 * matches the millisecond it falls in) or a UTF-8 string, compared by bytes. Plain data with typed
 * arrays, so a key column can live in shared memory.
 *
 * An int64 beyond ±(2^53 - 1) has no double of its own: its key is the nearest double plus the
 * exact remainder (`residuals`, the int64 minus that double, below 2^11 in magnitude), so keys
 * are equal exactly when both parts are, and 2^53 never matches 2^53 + 1.
 *
 * Readers follow Arrow JS's slicing convention: value buffers and Utf8 offsets are already sliced,
 * only validity bitmaps and boolean values start at bit `data.offset`.
 */
export type KeyColumn =
  | {
      readonly kind: "number";
      readonly values: Float64Array;
      /** Per row, the int64 value minus `values[i]`; null when every one is 0. */
      readonly residuals: Int32Array | null;
      readonly valid: Uint8Array | null;
    }
  | {
      readonly kind: "string";
      /** Offsets into `bytes`, one more than the entries: the rows, or the dictionary's entries. */
      readonly offsets: Int32Array;
      readonly bytes: Uint8Array;
      /** Per row, the dictionary entry (dictionary-encoded columns); null when entry = row. */
      readonly codes: Int32Array | null;
      readonly valid: Uint8Array | null;
    };

export function keyColumn(data: arrow.Data): KeyColumn {
  const type = data.type;
  if (arrow.DataType.isUtf8(type)) {
    const offsets = (data.valueOffsets as Int32Array).subarray(0, data.length + 1);
    return { kind: "string", offsets, bytes: data.values as Uint8Array, codes: null, valid: readValidity(data) };
  }
  if (arrow.DataType.isDictionary(type) && arrow.DataType.isUtf8(type.dictionary)) {
    const dictionary = singleChunk(data.dictionary!.data as arrow.Data<arrow.Utf8>[]);
    const raw = (data.values as Int32Array).subarray(0, data.length);
    const codes = raw instanceof Int32Array ? raw : Int32Array.from(raw);
    const offsets = dictionary.valueOffsets.subarray(0, dictionary.length + 1);
    return { kind: "string", offsets, bytes: dictionary.values, codes, valid: readValidity(data) };
  }
  if (arrow.DataType.isStruct(type) || arrow.DataType.isBinary(type) || arrow.DataType.isLargeUtf8(type)) {
    throw new TypeError(`a join key of Arrow type ${type} is not supported; use a string, number, boolean or timestamp column`);
  }
  const { values, words } = readInt64(data);
  return { kind: "number", values, residuals: words === null ? null : int64Residuals(words, values), valid: readValidity(data) };
}

function singleChunk(chunks: arrow.Data<arrow.Utf8>[]): arrow.Data<arrow.Utf8> {
  if (chunks.length === 1) return chunks[0]!;
  // Several dictionary chunks: concatenate their entries (codes index the concatenation).
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const offsets = new Int32Array(total + 1);
  const byteLength = chunks.reduce((n, c) => n + (c.valueOffsets[c.length]! - c.valueOffsets[0]!), 0);
  const bytes = new Uint8Array(byteLength);
  let row = 0;
  let at = 0;
  for (const c of chunks) {
    const start = c.valueOffsets[0]!;
    const end = c.valueOffsets[c.length]!;
    bytes.set(c.values.subarray(start, end), at);
    for (let i = 0; i < c.length; i++) offsets[row + i + 1] = at + c.valueOffsets[i + 1]! - start;
    row += c.length;
    at += end - start;
  }
  return arrow.makeData({ type: new arrow.Utf8(), length: total, valueOffsets: offsets, data: bytes });
}

/** The same key column with every array in shared memory (arrays already shared are kept). */
export function shareKeyColumn(key: KeyColumn): KeyColumn {
  if (key.kind === "number") return { ...key, values: shared(key.values), residuals: key.residuals && shared(key.residuals), valid: key.valid && shared(key.valid) };
  return { ...key, offsets: shared(key.offsets), bytes: shared(key.bytes), codes: key.codes && shared(key.codes), valid: key.valid && shared(key.valid) };
}

function shared<T extends Float64Array | Int32Array | Uint8Array>(view: T): T {
  if (view.buffer instanceof SharedArrayBuffer) return view;
  const copy = new (view.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(view.byteLength));
  copy.set(view as never);
  return copy;
}
