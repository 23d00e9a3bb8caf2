import * as arrow from "apache-arrow";
import { binaryColumn, utf8Column } from "../batch/batch.js";
import { timestampColumnOfWords, timestampWordsOf } from "../batch/numeric-columns.js";
import { arrowType } from "../schema/arrow-types.js";
import { nullProps, packBits } from "./bits.js";

/**
 * Builds canonical Sluice columns (see schema/arrow-types.ts) from kernel results with one
 * validity byte per row (null = no nulls). Numbers and times: `numberColumn` in
 * batch/numeric-columns.ts.
 */

/** A Bool column from one byte per row (non-zero = true). */
export function boolColumnOf(values: Uint8Array, valid: Uint8Array | null): arrow.Data<arrow.Bool> {
  return arrow.makeData({ type: new arrow.Bool(), length: values.length, data: packBits(values), ...nullProps(valid, values.length) });
}

/** A Utf8 column from offsets (length + 1 entries) and bytes. */
export function stringColumnOf(offsets: Int32Array, bytes: Uint8Array, valid: Uint8Array | null): arrow.Data<arrow.Utf8> {
  const { nullBitmap, nullCount } = nullProps(valid, offsets.length - 1);
  return utf8Column(offsets, bytes, nullBitmap, nullCount);
}

/** A Binary column from offsets (length + 1 entries) and bytes. */
export function binaryColumnOf(offsets: Int32Array, bytes: Uint8Array, valid: Uint8Array | null): arrow.Data<arrow.Binary> {
  const { nullBitmap, nullCount } = nullProps(valid, offsets.length - 1);
  return binaryColumn(offsets, bytes, nullBitmap, nullCount);
}

/** A string or binary column from offsets and bytes: the two types share one layout. */
export function bytesColumnOf(type: "string" | "binary", offsets: Int32Array, bytes: Uint8Array, valid: Uint8Array | null): arrow.Data {
  return type === "binary" ? binaryColumnOf(offsets, bytes, valid) : stringColumnOf(offsets, bytes, valid);
}

/**
 * A window struct column `{ start, end }` from epoch milliseconds; the struct itself may be null,
 * and the bounds of a null window are not checked.
 */
export function windowColumnOf(starts: Float64Array, ends: Float64Array, valid: Uint8Array | null): arrow.Data<arrow.Struct> {
  const n = starts.length;
  return arrow.makeData({
    type: arrowType("window") as arrow.Struct,
    length: n,
    children: [timestampColumnOfWords(timestampWordsOf(starts, valid), n), timestampColumnOfWords(timestampWordsOf(ends, valid), n)],
    ...nullProps(valid, starts.length),
  });
}

type DataBuffers = ConstructorParameters<typeof arrow.Data>[4];

/** Buffers and children of a column rebuilt by a kernel; the Arrow type is the template's. */
export interface ColumnParts {
  readonly length: number;
  readonly values?: ArrayBufferView;
  readonly offsets?: Int32Array;
  readonly nullBitmap?: Uint8Array;
  readonly nullCount: number;
  readonly children?: arrow.Data[];
}

/** A fresh column with the type (and dictionary) of `template` over new buffers, at offset 0. */
export function columnLike(template: arrow.Data, parts: ColumnParts, type: arrow.DataType = template.type): arrow.Data {
  const hasNulls = parts.nullBitmap !== undefined && parts.nullCount > 0;
  // Arrow's buffer slots, in BufferType order: OFFSET, DATA, VALIDITY.
  const buffers = [parts.offsets, parts.values, hasNulls ? parts.nullBitmap : undefined] as unknown as DataBuffers;
  const nullCount = hasNulls ? parts.nullCount : 0;
  return new arrow.Data(type, 0, parts.length, nullCount, buffers, parts.children ?? [], template.dictionary);
}
