import * as arrow from "apache-arrow";

/**
 * Row gathering for the stream-static join: a new column holding `data`'s rows at
 * `indices[0..count)`, where index -1 gives a null (a left join's unmatched row). Works on the
 * typed arrays directly and keeps the column's Arrow type (dictionary columns keep their
 * dictionary and gather only their codes).
 *
 * Arrow JS slicing convention: value buffers and Utf8 offsets are already sliced (row i is
 * `values[i]`); validity bitmaps and boolean values start at bit `data.offset`.
 */
export function gatherRows(data: arrow.Data, indices: Int32Array, count: number): arrow.Data {
  const type = data.type;
  const { nullBitmap, nullCount } = gatherValidity(data, indices, count);
  const make = arrow.makeData as unknown as (props: Record<string, unknown>) => arrow.Data;
  const common = { type, length: count, nullBitmap, nullCount };
  if (arrow.DataType.isStruct(type)) {
    return make({ ...common, children: data.children.map((child) => gatherRows(child, indices, count)) });
  }
  if (arrow.DataType.isUtf8(type)) return make({ ...common, ...gatherUtf8(data as arrow.Data<arrow.Utf8>, indices, count) });
  if (arrow.DataType.isBool(type)) return make({ ...common, data: gatherBits(data.values as Uint8Array, data.offset, indices, count) });
  if (arrow.DataType.isDictionary(type)) {
    return make({ ...common, data: gatherFixed(data.values as NumberArray, indices, count), dictionary: data.dictionary });
  }
  const values = data.values as NumberArray | BigInt64Array | BigUint64Array;
  if (values instanceof BigInt64Array || values instanceof BigUint64Array) return make({ ...common, data: gather64(values, indices, count) });
  if (arrow.DataType.isInt(type) || arrow.DataType.isFloat(type) || arrow.DataType.isDate(type)) {
    return make({ ...common, data: gatherFixed(values, indices, count) });
  }
  throw new TypeError(`cannot join a column of Arrow type ${type}; use string, number, boolean, timestamp or window columns`);
}

type NumberArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

function gatherFixed<T extends NumberArray>(values: T, indices: Int32Array, count: number): T {
  const out = new (values.constructor as new (n: number) => T)(count);
  for (let i = 0; i < count; i++) {
    const j = indices[i]!;
    out[i] = j < 0 ? 0 : values[j]!;
  }
  return out;
}

/** 64-bit values moved as 32-bit word pairs: no BigInt is created per value. */
function gather64<T extends BigInt64Array | BigUint64Array>(values: T, indices: Int32Array, count: number): T {
  const out = new (values.constructor as new (n: number) => T)(count);
  const src = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
  const dst = new Int32Array(out.buffer);
  for (let i = 0; i < count; i++) {
    const j = indices[i]!;
    if (j < 0) continue;
    dst[2 * i] = src[2 * j]!;
    dst[2 * i + 1] = src[2 * j + 1]!;
  }
  return out;
}

function gatherBits(bits: Uint8Array, bitOffset: number, indices: Int32Array, count: number): Uint8Array {
  const out = new Uint8Array((count + 7) >> 3);
  for (let i = 0; i < count; i++) {
    const j = indices[i]!;
    if (j < 0) continue;
    const k = bitOffset + j;
    out[i >> 3]! |= ((bits[k >> 3]! >> (k & 7)) & 1) << (i & 7);
  }
  return out;
}

function gatherUtf8(data: arrow.Data<arrow.Utf8>, indices: Int32Array, count: number): { valueOffsets: Int32Array; data: Uint8Array } {
  const offsets = data.valueOffsets;
  const bytes = data.values;
  const outOffsets = new Int32Array(count + 1);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const j = indices[i]!;
    if (j >= 0) total += offsets[j + 1]! - offsets[j]!;
    outOffsets[i + 1] = total;
  }
  const out = new Uint8Array(total);
  for (let i = 0; i < count; i++) {
    const j = indices[i]!;
    if (j < 0) continue;
    const start = offsets[j]!;
    const end = offsets[j + 1]!;
    // Short strings: a byte loop beats the call overhead of subarray + set.
    if (end - start <= 16) {
      for (let k = start, at = outOffsets[i]!; k < end; k++, at++) out[at] = bytes[k]!;
    } else {
      out.set(bytes.subarray(start, end), outOffsets[i]!);
    }
  }
  return { valueOffsets: outOffsets, data: out };
}

function gatherValidity(data: arrow.Data, indices: Int32Array, count: number): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  const source = data.nullBitmap && data.nullCount > 0 ? data.nullBitmap : null;
  const bitmap = new Uint8Array((count + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < count; i++) {
    const j = indices[i]!;
    let valid = j >= 0 ? 1 : 0;
    if (valid && source) {
      const k = data.offset + j;
      valid = (source[k >> 3]! >> (k & 7)) & 1;
    }
    bitmap[i >> 3]! |= valid << (i & 7);
    nulls += 1 - valid;
  }
  return nulls === 0 ? { nullBitmap: undefined, nullCount: 0 } : { nullBitmap: bitmap, nullCount: nulls };
}
