import * as arrow from "apache-arrow";
import { type Batch, makeBatch } from "../batch/batch.js";
import { columnLike } from "./build.js";
import { materializeStrings, stringsOf } from "./columns.js";

/**
 * Gather ("take"): builds a column from the rows at `indices`, in that order. Filters gather with a
 * selection vector, sorts with a permutation. Indices must lie in [0, data.length).
 */

/** The rows of a batch at `indices`, in that order. */
export function takeRows(batch: Batch, indices: Int32Array): Batch {
  return makeBatch(
    batch.fields,
    batch.columns.map((c) => gatherColumn(c, indices)),
    indices.length,
  );
}

/** The rows of one column at `indices`; the Arrow type (and dictionary) is kept. */
export function gatherColumn(data: arrow.Data, indices: Int32Array): arrow.Data {
  const length = indices.length;
  const validity = gatherValidity(data, indices);
  const type = data.type;
  if (arrow.DataType.isStruct(type)) {
    return columnLike(data, { length, ...validity, children: data.children.map((c) => gatherColumn(c, indices)) });
  }
  if (arrow.DataType.isBool(type)) {
    return columnLike(data, { length, ...validity, values: gatherBits(data.values as Uint8Array, data.offset, indices).bits });
  }
  if (arrow.DataType.isUtf8(type) || arrow.DataType.isBinary(type) || arrow.DataType.isLargeUtf8(type)) {
    const { offsets, bytes } = gatherStrings(data, indices);
    // LargeUtf8 comes out as Utf8: a batch never approaches 2 GiB of text.
    const outType = arrow.DataType.isLargeUtf8(type) ? new arrow.Utf8() : type;
    return columnLike(data, { length, ...validity, offsets, values: bytes }, outType);
  }
  const values = data.values as unknown;
  if (data.stride === 1 && ArrayBuffer.isView(values) && !(values instanceof DataView) && data.children.length === 0) {
    return columnLike(data, { length, ...validity, values: gatherFixedWidth(values as FixedWidthArray, indices) });
  }
  throw new TypeError(`gather: Arrow type ${type} is not supported`);
}

type FixedWidthArray = Exclude<ArrayBufferView, DataView> & { [i: number]: number | bigint; readonly length: number };

/** Fixed-width values (numbers, dictionary indices, dates, 64-bit words); offset already applied. */
function gatherFixedWidth(values: FixedWidthArray, indices: Int32Array): ArrayBufferView {
  const n = indices.length;
  if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
    // 64-bit values move as two 32-bit words: no BigInt is created.
    const out = values instanceof BigInt64Array ? new BigInt64Array(n) : new BigUint64Array(n);
    const src = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
    const dst = new Int32Array(out.buffer);
    for (let k = 0; k < n; k++) {
      const j = indices[k] << 1;
      dst[2 * k] = src[j];
      dst[2 * k + 1] = src[j + 1];
    }
    return out;
  }
  if (values instanceof Float64Array) return gatherFloat64(values, indices);
  const Ctor = values.constructor as new (n: number) => FixedWidthArray;
  const out = new Ctor(n) as unknown as Int32Array;
  const src = values as unknown as Int32Array;
  for (let k = 0; k < n; k++) out[k] = src[indices[k]];
  return out;
}

// Float64 has its own loop so that the hottest case stays monomorphic.
function gatherFloat64(values: Float64Array, indices: Int32Array): Float64Array {
  const out = new Float64Array(indices.length);
  for (let k = 0; k < indices.length; k++) out[k] = values[indices[k]];
  return out;
}

function gatherStrings(data: arrow.Data, indices: Int32Array): { offsets: Int32Array; bytes: Uint8Array } {
  const view = stringsOf(data);
  return materializeStrings({ offsets: view.offsets, bytes: view.bytes, indices }, indices.length);
}

/** Gathers bits at `bitOffset + indices[k]`; also counts the zero bits (nulls, for validity). */
export function gatherBits(bits: Uint8Array, bitOffset: number, indices: Int32Array): { bits: Uint8Array; zeros: number } {
  const n = indices.length;
  const out = new Uint8Array((n + 7) >> 3);
  let ones = 0;
  for (let k = 0; k < n; k++) {
    const j = bitOffset + indices[k];
    const bit = (bits[j >> 3] >> (j & 7)) & 1;
    out[k >> 3] |= bit << (k & 7);
    ones += bit;
  }
  return { bits: out, zeros: n - ones };
}

function gatherValidity(data: arrow.Data, indices: Int32Array): { nullBitmap?: Uint8Array; nullCount: number } {
  if (!data.nullBitmap || data.nullCount === 0) return { nullCount: 0 };
  const { bits, zeros } = gatherBits(data.nullBitmap, data.offset, indices);
  return zeros === 0 ? { nullCount: 0 } : { nullBitmap: bits, nullCount: zeros };
}
