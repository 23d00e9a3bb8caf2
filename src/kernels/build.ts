import * as arrow from "apache-arrow";
import { float64Column, int32Column, utf8Column } from "../batch/batch.js";
import { assertNever } from "../expr/ast.js";
import { arrowType } from "../schema/arrow-types.js";
import { nullProps, packBits } from "./bits.js";

/**
 * Builds canonical Sluice columns (see schema/arrow-types.ts) from kernel results: float64 numbers
 * and one validity byte per row (null = no nulls).
 */

export type NumericDType = "float64" | "int32" | "int64" | "timestamp";

const TWO_32 = 4294967296;
const TWO_63 = 9223372036854775808;

/**
 * 64-bit integers from float64 values, written as 32-bit word pairs so no BigInt is created per
 * value. Values are truncated toward zero; NaN becomes 0 and out-of-range values saturate, as a
 * Java long conversion does.
 */
export function int64Words(values: Float64Array): BigInt64Array {
  const out = new BigInt64Array(values.length);
  const words = new Int32Array(out.buffer);
  for (let i = 0; i < values.length; i++) {
    let x = Math.trunc(values[i]);
    if (x !== x) x = 0;
    if (x >= TWO_63) {
      words[2 * i] = -1;
      words[2 * i + 1] = 0x7fffffff;
      continue;
    }
    if (x < -TWO_63) x = -TWO_63;
    const hi = Math.floor(x / TWO_32);
    words[2 * i] = x - hi * TWO_32;
    words[2 * i + 1] = hi;
  }
  return out;
}

/** A numeric or timestamp column of the given Sluice type from float64 values. */
export function numberColumn(type: NumericDType, values: Float64Array, valid: Uint8Array | null): arrow.Data {
  const { nullBitmap, nullCount } = nullProps(valid, values.length);
  switch (type) {
    case "float64":
      return float64Column(values, nullBitmap, nullCount);
    case "int32":
      // Values are integers already; the Int32Array store wraps them to 32 bits.
      return int32Column(Int32Array.from(values), nullBitmap, nullCount);
    case "int64":
      return arrow.makeData({ type: new arrow.Int64(), length: values.length, data: int64Words(values), nullBitmap, nullCount });
    case "timestamp":
      return arrow.makeData({ type: new arrow.TimestampMillisecond(), length: values.length, data: int64Words(values), nullBitmap, nullCount });
    default:
      return assertNever(type, "numeric type");
  }
}

/** A Bool column from one byte per row (non-zero = true). */
export function boolColumnOf(values: Uint8Array, valid: Uint8Array | null): arrow.Data<arrow.Bool> {
  return arrow.makeData({ type: new arrow.Bool(), length: values.length, data: packBits(values), ...nullProps(valid, values.length) });
}

/** A Utf8 column from offsets (length + 1 entries) and bytes. */
export function stringColumnOf(offsets: Int32Array, bytes: Uint8Array, valid: Uint8Array | null): arrow.Data<arrow.Utf8> {
  const { nullBitmap, nullCount } = nullProps(valid, offsets.length - 1);
  return utf8Column(offsets, bytes, nullBitmap, nullCount);
}

/** A window struct column `{ start, end }` from epoch milliseconds; the struct itself may be null. */
export function windowColumnOf(starts: Float64Array, ends: Float64Array, valid: Uint8Array | null): arrow.Data<arrow.Struct> {
  return arrow.makeData({
    type: arrowType("window") as arrow.Struct,
    length: starts.length,
    children: [numberColumn("timestamp", starts, null), numberColumn("timestamp", ends, null)],
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
