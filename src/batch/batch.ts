import * as arrow from "apache-arrow";
import { arrowType } from "../schema/arrow-types.js";
import { float64Column, int32Column, int64Column, timestampColumn } from "./numeric-columns.js";
import { nullArgs, validityFromBytes } from "./validity.js";
import type { DType, Field, Fields } from "../types/dtype.js";

/**
 * A columnar batch: Sluice's unit of data between operators. Columns are single-chunk Arrow
 * `Data` objects, so kernels reach the typed arrays behind them directly (`data.values`,
 * `data.valueOffsets`, `data.nullBitmap`), and a batch converts to an Arrow RecordBatch without
 * copying.
 */
export interface Batch {
  readonly fields: Fields;
  readonly columns: readonly arrow.Data[];
  readonly numRows: number;
}

export function makeBatch(fields: Fields, columns: readonly arrow.Data[], numRows?: number): Batch {
  if (fields.length !== columns.length) {
    throw new Error(`batch has ${fields.length} fields but ${columns.length} columns`);
  }
  const n = numRows ?? columns[0]?.length ?? 0;
  for (let i = 0; i < columns.length; i++) {
    if (columns[i]!.length !== n) {
      throw new Error(`column "${fields[i]!.name}" has ${columns[i]!.length} rows, expected ${n}`);
    }
  }
  return { fields, columns, numRows: n };
}

export function emptyBatch(fields: Fields): Batch {
  return makeBatch(
    fields,
    fields.map((f) => emptyColumn(f.type)),
    0,
  );
}

export function columnIndex(batch: Batch | Fields, name: string): number {
  const fields = "fields" in batch ? batch.fields : batch;
  const i = fields.findIndex((f) => f.name === name);
  if (i < 0) throw new Error(`no column "${name}" in batch (${fields.map((f) => f.name).join(", ")})`);
  return i;
}

export function column(batch: Batch, name: string): arrow.Data {
  return batch.columns[columnIndex(batch, name)]!;
}

/** Zero-copy view as an Arrow RecordBatch (for IPC, users' Arrow code and `toArrow()`). */
export function toRecordBatch(batch: Batch): arrow.RecordBatch {
  const schema = new arrow.Schema(batch.fields.map((f) => new arrow.Field(f.name, arrowType(f.type), f.nullable)));
  const struct = arrow.makeData({
    type: new arrow.Struct(schema.fields),
    length: batch.numRows,
    nullCount: 0,
    children: batch.columns as arrow.Data[],
  });
  return new arrow.RecordBatch(schema, struct);
}

// ---- column builders from typed arrays: no per-value work beyond what the caller did ----
// Numeric and time columns are built (and read) by numeric-columns.ts, validity by validity.ts.

export { float64Column, int32Column, int64Column, timestampColumn };
export { int64FromNumbers, readNumbers } from "./numeric-columns.js";
export { countNulls, readValidity, validityFromBytes } from "./validity.js";

/** Boolean column from one byte per row (0 or 1). */
export function boolColumn(bytes: Uint8Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Bool> {
  const packed = new Uint8Array((bytes.length + 7) >> 3);
  for (let i = 0; i < bytes.length; i++) if (bytes[i]) packed[i >> 3]! |= 1 << (i & 7);
  return arrow.makeData({ type: new arrow.Bool(), length: bytes.length, data: packed, ...nullArgs(nullBitmap, nullCount, bytes.length) });
}

/** Utf8 column from offsets (length + 1 entries) and UTF-8 bytes. */
export function utf8Column(offsets: Int32Array, bytes: Uint8Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Utf8> {
  const length = offsets.length - 1;
  return arrow.makeData({
    type: new arrow.Utf8(),
    length,
    valueOffsets: offsets,
    data: bytes,
    ...nullArgs(nullBitmap, nullCount, length),
  });
}

/** Binary column from offsets (length + 1 entries) and bytes: Utf8's layout, with no claim that the bytes are text. */
export function binaryColumn(offsets: Int32Array, bytes: Uint8Array, nullBitmap?: Uint8Array, nullCount?: number): arrow.Data<arrow.Binary> {
  const length = offsets.length - 1;
  return arrow.makeData({
    type: new arrow.Binary(),
    length,
    valueOffsets: offsets,
    data: bytes,
    ...nullArgs(nullBitmap, nullCount, length),
  });
}

const encoder = new TextEncoder();

/** Utf8 column from JavaScript strings (nulls allowed). For small, non-hot inputs. */
export function utf8FromStrings(values: readonly (string | null)[]): arrow.Data<arrow.Utf8> {
  const encoded = values.map((v) => (v === null ? null : encoder.encode(v)));
  const offsets = new Int32Array(values.length + 1);
  let total = 0;
  for (let i = 0; i < encoded.length; i++) {
    total += encoded[i]?.length ?? 0;
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < encoded.length; i++) if (encoded[i]) bytes.set(encoded[i]!, offsets[i]!);
  const valid = Uint8Array.from(values, (v) => (v === null ? 0 : 1));
  const { bitmap, nullCount } = validityFromBytes(valid, values.length);
  return utf8Column(offsets, bytes, bitmap, nullCount);
}

/** Window struct column `{ start, end }` from float64 epoch milliseconds. */
export function windowColumn(starts: Float64Array, ends: Float64Array): arrow.Data<arrow.Struct> {
  return arrow.makeData({
    type: arrowType("window") as arrow.Struct,
    length: starts.length,
    nullCount: 0,
    children: [timestampColumn(starts), timestampColumn(ends)],
  });
}

export function emptyColumn(t: DType): arrow.Data {
  switch (t) {
    case "string":
      return utf8Column(new Int32Array(1), new Uint8Array(0));
    case "float64":
      return float64Column(new Float64Array(0));
    case "int32":
      return int32Column(new Int32Array(0));
    case "int64":
      return int64Column(new BigInt64Array(0));
    case "boolean":
      return boolColumn(new Uint8Array(0));
    case "timestamp":
      return timestampColumn(new Float64Array(0));
    case "window":
      return windowColumn(new Float64Array(0), new Float64Array(0));
    case "binary":
      return binaryColumn(new Int32Array(1), new Uint8Array(0));
    case "headers": {
      const type = arrowType("headers") as arrow.List<arrow.Struct>;
      const entries = arrow.makeData({ type: type.valueType, length: 0, nullCount: 0, children: [emptyColumn("string"), emptyColumn("binary")] });
      return arrow.makeData({ type, length: 0, nullCount: 0, valueOffsets: new Int32Array(1), child: entries });
    }
  }
}

// ---- readers: typed-array views for kernels ----

/** True when row i is valid (not null). */
export function isValid(data: arrow.Data, i: number): boolean {
  const bm = data.nullBitmap;
  if (!bm || data.nullCount === 0) return true;
  const j = data.offset + i;
  return ((bm[j >> 3]! >> (j & 7)) & 1) === 1;
}

const decoder = new TextDecoder();

/** Row i of a Utf8 column as a JavaScript string (null when null). Not for hot loops. */
export function readString(data: arrow.Data, i: number): string | null {
  if (!isValid(data, i)) return null;
  const offsets = data.valueOffsets as Int32Array;
  return decoder.decode((data.values as Uint8Array).subarray(offsets[i]!, offsets[i + 1]!));
}

/** Renames fields without touching data. */
export function withFields(batch: Batch, fields: Fields): Batch {
  return { ...batch, fields };
}

export function field(name: string, type: DType, nullable = true): Field {
  return { name, type, nullable };
}
