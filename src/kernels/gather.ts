import * as arrow from "apache-arrow";
import { type Batch, makeBatch } from "../batch/batch.js";
import { columnLike } from "./build.js";
import { materializeStrings, stringsOf } from "./columns.js";
import { copyBytes, viewOf } from "./copy-bytes.js";

/**
 * Gather ("take"): builds a column from the rows at `indices`, in that order (lists, such as
 * Kafka headers, by gathering their child's entries). Filters gather with a
 * selection vector, sorts with a permutation, joins with match lists. Indices lie in
 * [0, data.length), except that `gatherOrNull` also takes -1 for a null row.
 *
 * Both entry points share the type dispatch and buffer handling below. Where a loop must skip -1
 * rows it has a second, checking variant chosen once per column, so that a gather without -1 runs
 * the same unchecked loop whichever entry point it came through. Null rows hold zeros and no bytes.
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
  return gather(data, indices, false);
}

/**
 * As `gatherColumn`, but index -1 gives a null row (a left outer join's unmatched row). `data` may
 * be empty when every index is -1.
 */
export function gatherOrNull(data: arrow.Data, indices: Int32Array): arrow.Data {
  // Without a -1 this is exactly gatherColumn: no validity bitmap is built for a column without nulls.
  return gather(data, indices, hasMissing(indices));
}

function hasMissing(indices: Int32Array): boolean {
  for (let k = 0; k < indices.length; k++) if (indices[k] < 0) return true;
  return false;
}

function gather(data: arrow.Data, indices: Int32Array, missing: boolean): arrow.Data {
  const length = indices.length;
  const validity = gatherValidity(data, indices, missing);
  const type = data.type;
  if (arrow.DataType.isStruct(type)) {
    return columnLike(data, { length, ...validity, children: data.children.map((c) => gather(c, indices, missing)) });
  }
  if (arrow.DataType.isList(type)) {
    const { offsets, entries } = gatherListEntries(data.valueOffsets as Int32Array, indices, missing);
    return columnLike(data, { length, ...validity, offsets, children: [gather(data.children[0]!, entries, false)] });
  }
  if (arrow.DataType.isBool(type)) {
    return columnLike(data, { length, ...validity, values: gatherBits(data.values as Uint8Array, data.offset, indices, missing).bits });
  }
  if (arrow.DataType.isUtf8(type) || arrow.DataType.isBinary(type) || arrow.DataType.isLargeUtf8(type) || arrow.DataType.isLargeBinary(type)) {
    const { offsets, bytes } = gatherStrings(data, indices, missing);
    // LargeUtf8 comes out as Utf8 and LargeBinary as Binary: a batch never approaches 2 GiB of bytes.
    const outType = arrow.DataType.isLargeUtf8(type) ? new arrow.Utf8() : arrow.DataType.isLargeBinary(type) ? new arrow.Binary() : type;
    return columnLike(data, { length, ...validity, offsets, values: bytes }, outType);
  }
  const values = data.values as unknown;
  if (data.stride === 1 && ArrayBuffer.isView(values) && !(values instanceof DataView) && data.children.length === 0) {
    return columnLike(data, { length, ...validity, values: gatherFixedWidth(values as FixedWidthArray, indices, missing) });
  }
  throw new TypeError(`gather: Arrow type ${type} is not supported`);
}

type FixedWidthArray = Exclude<ArrayBufferView, DataView> & { [i: number]: number | bigint; readonly length: number };

/** Fixed-width values (numbers, dictionary indices, dates, 64-bit words); offset already applied. */
function gatherFixedWidth(values: FixedWidthArray, indices: Int32Array, missing: boolean): ArrayBufferView {
  const n = indices.length;
  if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
    // 64-bit values move as two 32-bit words: no BigInt is created.
    const out = values instanceof BigInt64Array ? new BigInt64Array(n) : new BigUint64Array(n);
    const src = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
    const dst = new Int32Array(out.buffer);
    if (missing) {
      for (let k = 0; k < n; k++) {
        const i = indices[k];
        if (i < 0) continue;
        dst[2 * k] = src[2 * i];
        dst[2 * k + 1] = src[2 * i + 1];
      }
      return out;
    }
    for (let k = 0; k < n; k++) {
      const j = indices[k] << 1;
      dst[2 * k] = src[j];
      dst[2 * k + 1] = src[j + 1];
    }
    return out;
  }
  if (values instanceof Float64Array) return gatherFloat64(values, indices, missing);
  const Ctor = values.constructor as new (n: number) => FixedWidthArray;
  const out = new Ctor(n) as unknown as Int32Array;
  const src = values as unknown as Int32Array;
  if (missing) {
    for (let k = 0; k < n; k++) {
      const i = indices[k];
      if (i >= 0) out[k] = src[i];
    }
    return out;
  }
  for (let k = 0; k < n; k++) out[k] = src[indices[k]];
  return out;
}

// Float64 has its own loop so that the hottest case stays monomorphic.
function gatherFloat64(values: Float64Array, indices: Int32Array, missing: boolean): Float64Array {
  const out = new Float64Array(indices.length);
  if (missing) {
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k];
      if (i >= 0) out[k] = values[i];
    }
    return out;
  }
  for (let k = 0; k < indices.length; k++) out[k] = values[indices[k]];
  return out;
}

function gatherStrings(data: arrow.Data, indices: Int32Array, missing: boolean): { offsets: Int32Array; bytes: Uint8Array } {
  const { offsets, bytes } = stringsOf(data);
  if (!missing) return materializeStrings({ offsets, bytes, indices }, indices.length);
  // The checking variant: materializeStrings knows no missing rows.
  const n = indices.length;
  const outOffsets = new Int32Array(n + 1);
  let total = 0;
  for (let k = 0; k < n; k++) {
    const i = indices[k];
    if (i >= 0) total += offsets[i + 1] - offsets[i];
    outOffsets[k + 1] = total;
  }
  const out = new Uint8Array(total);
  const bytesView = viewOf(bytes);
  const outView = viewOf(out);
  for (let k = 0; k < n; k++) {
    const i = indices[k];
    if (i >= 0) copyBytes(bytes, bytesView, offsets[i], out, outView, outOffsets[k], offsets[i + 1] - offsets[i]);
  }
  return { offsets: outOffsets, bytes: out };
}

/**
 * A list's rows at `indices`: their new offsets, and the child entries they hold, in order (the
 * child is gathered by these). A missing row (-1) holds no entries.
 */
function gatherListEntries(offsets: Int32Array, indices: Int32Array, missing: boolean): { offsets: Int32Array; entries: Int32Array } {
  const n = indices.length;
  const out = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) {
    const i = indices[k];
    out[k + 1] = out[k] + (missing && i < 0 ? 0 : offsets[i + 1] - offsets[i]);
  }
  const entries = new Int32Array(out[n]);
  for (let k = 0; k < n; k++) {
    const i = indices[k];
    if (missing && i < 0) continue;
    for (let e = offsets[i], at = out[k]; e < offsets[i + 1]; e++, at++) entries[at] = e;
  }
  return { offsets: out, entries };
}

/**
 * Gathers bits at `bitOffset + indices[k]`; also counts the zero bits (nulls, for validity). With
 * `missing`, a negative index gives a 0 bit.
 */
export function gatherBits(bits: Uint8Array, bitOffset: number, indices: Int32Array, missing = false): { bits: Uint8Array; zeros: number } {
  const n = indices.length;
  const out = new Uint8Array((n + 7) >> 3);
  let ones = 0;
  if (missing) {
    for (let k = 0; k < n; k++) {
      const i = indices[k];
      // Checked before adding the offset: bit `bitOffset - 1` belongs to another row.
      if (i < 0) continue;
      const j = bitOffset + i;
      const bit = (bits[j >> 3] >> (j & 7)) & 1;
      out[k >> 3] |= bit << (k & 7);
      ones += bit;
    }
    return { bits: out, zeros: n - ones };
  }
  for (let k = 0; k < n; k++) {
    const j = bitOffset + indices[k];
    const bit = (bits[j >> 3] >> (j & 7)) & 1;
    out[k >> 3] |= bit << (k & 7);
    ones += bit;
  }
  return { bits: out, zeros: n - ones };
}

/** Validity of the gathered rows; with `missing`, a negative index is a null row. */
function gatherValidity(data: arrow.Data, indices: Int32Array, missing: boolean): { nullBitmap?: Uint8Array; nullCount: number } {
  const source = data.nullBitmap && data.nullCount > 0 ? data.nullBitmap : null;
  if (source === null && !missing) return { nullCount: 0 };
  const { bits, zeros } = source === null ? presentBits(indices) : gatherBits(source, data.offset, indices, missing);
  return zeros === 0 ? { nullCount: 0 } : { nullBitmap: bits, nullCount: zeros };
}

/** One bit per index, set where the index is not negative; counts the zero bits. */
function presentBits(indices: Int32Array): { bits: Uint8Array; zeros: number } {
  const n = indices.length;
  const out = new Uint8Array((n + 7) >> 3);
  let zeros = 0;
  for (let k = 0; k < n; k++) {
    const absent = indices[k] >>> 31;
    out[k >> 3] |= (absent ^ 1) << (k & 7);
    zeros += absent;
  }
  return { bits: out, zeros };
}
