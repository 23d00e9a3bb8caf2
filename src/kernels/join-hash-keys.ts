import * as arrow from "apache-arrow";

/**
 * Join key columns as the hash-join kernels read them. Every key is either a number (float64,
 * int32, int64, timestamp, date, boolean: all read as float64, so a number key matches across
 * numeric widths the way SQL compares numbers) or a UTF-8 string, compared by bytes. Plain data
 * with typed arrays, so a key column can live in shared memory.
 *
 * Readers follow Arrow JS's slicing convention: value buffers and Utf8 offsets are already sliced,
 * only validity bitmaps and boolean values start at bit `data.offset`.
 */
export type KeyColumn =
  | { readonly kind: "number"; readonly values: Float64Array; readonly valid: Uint8Array | null }
  | {
      readonly kind: "string";
      /** Offsets into `bytes`, one more than the entries: the rows, or the dictionary's entries. */
      readonly offsets: Int32Array;
      readonly bytes: Uint8Array;
      /** Per row, the dictionary entry (dictionary-encoded columns); null when entry = row. */
      readonly codes: Int32Array | null;
      readonly valid: Uint8Array | null;
    };

const TWO_32 = 4294967296;
const MS_PER_DAY = 86_400_000;

export function keyColumn(data: arrow.Data): KeyColumn {
  const type = data.type;
  if (arrow.DataType.isUtf8(type)) {
    const offsets = (data.valueOffsets as Int32Array).subarray(0, data.length + 1);
    return { kind: "string", offsets, bytes: data.values as Uint8Array, codes: null, valid: validityBytes(data) };
  }
  if (arrow.DataType.isDictionary(type) && arrow.DataType.isUtf8(type.dictionary)) {
    const dictionary = singleChunk(data.dictionary!.data as arrow.Data<arrow.Utf8>[]);
    const raw = (data.values as Int32Array).subarray(0, data.length);
    const codes = raw instanceof Int32Array ? raw : Int32Array.from(raw);
    const offsets = dictionary.valueOffsets.subarray(0, dictionary.length + 1);
    return { kind: "string", offsets, bytes: dictionary.values, codes, valid: validityBytes(data) };
  }
  return { kind: "number", values: numbers(data), valid: validityBytes(data) };
}

/** One byte per row (1 = valid), or null when no row is null. */
function validityBytes(data: arrow.Data): Uint8Array | null {
  if (!data.nullBitmap || data.nullCount === 0) return null;
  return bits(data.nullBitmap, data.offset, data.length);
}

function bits(packed: Uint8Array, bitOffset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const j = bitOffset + i;
    out[i] = (packed[j >> 3]! >> (j & 7)) & 1;
  }
  return out;
}

function numbers(data: arrow.Data): Float64Array {
  const type = data.type;
  const n = data.length;
  if (arrow.DataType.isFloat(type) && type.precision === arrow.Precision.DOUBLE) return (data.values as Float64Array).subarray(0, n);
  if (arrow.DataType.isBool(type)) return Float64Array.from(bits(data.values as Uint8Array, data.offset, n));
  const wide = (arrow.DataType.isInt(type) && type.bitWidth === 64) || arrow.DataType.isTimestamp(type) || (arrow.DataType.isDate(type) && type.unit === arrow.DateUnit.MILLISECOND);
  if (wide) {
    const v = data.values as BigInt64Array;
    // Word pairs instead of BigInt: exact up to 2^53, which is what Sluice promises for int64.
    const words = new Int32Array(v.buffer, v.byteOffset, n * 2);
    const unsigned = arrow.DataType.isInt(type) && !type.isSigned;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = (unsigned ? words[2 * i + 1]! >>> 0 : words[2 * i + 1]!) * TWO_32 + (words[2 * i]! >>> 0);
    if (arrow.DataType.isTimestamp(type) && type.unit !== arrow.TimeUnit.MILLISECOND) scaleToMillis(out, type.unit);
    return out;
  }
  if (arrow.DataType.isDate(type)) return Float64Array.from((data.values as Int32Array).subarray(0, n), (d) => d * MS_PER_DAY);
  if (arrow.DataType.isInt(type) || arrow.DataType.isFloat(type)) return Float64Array.from((data.values as ArrayLike<number> as Int32Array).subarray(0, n));
  throw new TypeError(`a join key of Arrow type ${type} is not supported; use a string, number, boolean or timestamp column`);
}

function scaleToMillis(values: Float64Array, unit: arrow.TimeUnit): void {
  const factor = unit === arrow.TimeUnit.SECOND ? 1000 : unit === arrow.TimeUnit.MICROSECOND ? 1e-3 : 1e-6;
  for (let i = 0; i < values.length; i++) values[i] = values[i]! * factor;
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
  if (key.kind === "number") return { ...key, values: shared(key.values), valid: key.valid && shared(key.valid) };
  return { ...key, offsets: shared(key.offsets), bytes: shared(key.bytes), codes: key.codes && shared(key.codes), valid: key.valid && shared(key.valid) };
}

function shared<T extends Float64Array | Int32Array | Uint8Array>(view: T): T {
  if (view.buffer instanceof SharedArrayBuffer) return view;
  const copy = new (view.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(view.byteLength));
  copy.set(view as never);
  return copy;
}
