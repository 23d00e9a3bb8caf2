import * as arrow from "apache-arrow";
import { binaryColumn, utf8Column } from "../batch/batch.js";
import { readValidity, validityFromBytes } from "../batch/validity.js";
import { arrowType } from "../schema/arrow-types.js";
import { stringsOf, type StringsView } from "./columns.js";

/**
 * Kafka record headers as a column, Spark's `array<struct<key: string, value: binary>>`: an Arrow
 * List of Struct { key: Utf8, value: Binary (nullable) } (schema/arrow-types.ts). Row i's headers
 * are entries `[offsets[i], offsets[i + 1])` of the struct, in record order, duplicates kept; entry
 * e's key and value are byte ranges of the struct's two children. Keys are the record's key bytes
 * as they came (Kafka's clients write UTF-8), so a header passes through byte for byte.
 *
 * Readers follow Arrow JS's slicing convention: a list's offsets are sliced, its struct child is not.
 */

/** A headers column as kernels read it. */
export interface HeadersView {
  /** n + 1 entry positions: row i is entries [offsets[i], offsets[i + 1]). */
  readonly offsets: Int32Array;
  /** Entry keys and values (entry e is entry e of each view; neither uses indices). */
  readonly keys: StringsView;
  readonly values: StringsView;
  /** One byte per entry, 0 for a header without a value; null when every header has one. */
  readonly valueValid: Uint8Array | null;
}

export function headersOf(data: arrow.Data): HeadersView {
  if (!arrow.DataType.isList(data.type)) throw new TypeError(`column of Arrow type ${data.type} is not a headers column`);
  const entries = data.children[0]!;
  const [key, value] = entries.children;
  return {
    offsets: (data.valueOffsets as Int32Array).subarray(0, data.length + 1),
    keys: stringsOf(key!),
    values: stringsOf(value!),
    valueValid: readValidity(value!),
  };
}

/** Validity as an Arrow bitmap and its count of zero bits; null when nothing is null. */
export interface NullBits {
  readonly bitmap: Uint8Array;
  readonly count: number;
}

/** Bits from one validity byte per row (1 = valid); null when nothing is null. */
export function nullBitsOf(valid: Uint8Array | null, length: number): NullBits | null {
  if (valid === null) return null;
  const { bitmap, nullCount } = validityFromBytes(valid, length);
  return bitmap === undefined ? null : { bitmap, count: nullCount };
}

/** The buffers of a headers column, for builders that write them directly (the Kafka decoder). */
export interface HeadersParts {
  readonly length: number;
  /** length + 1 entry positions, from 0. */
  readonly offsets: Int32Array;
  /** Rows without headers at all: null rather than an empty list. */
  readonly rowNulls: NullBits | null;
  readonly keyOffsets: Int32Array;
  readonly keyBytes: Uint8Array;
  readonly valueOffsets: Int32Array;
  readonly valueBytes: Uint8Array;
  readonly valueNulls: NullBits | null;
}

export function headersColumn(p: HeadersParts): arrow.Data {
  const type = arrowType("headers") as arrow.List<arrow.Struct>;
  const entries = p.keyOffsets.length - 1;
  const struct = arrow.makeData({
    type: type.valueType,
    length: entries,
    nullCount: 0,
    children: [utf8Column(p.keyOffsets, p.keyBytes), binaryColumn(p.valueOffsets, p.valueBytes, p.valueNulls?.bitmap, p.valueNulls?.count ?? 0)],
  });
  return arrow.makeData({
    type,
    length: p.length,
    valueOffsets: p.offsets,
    child: struct,
    nullBitmap: p.rowNulls?.bitmap,
    nullCount: p.rowNulls?.count ?? 0,
  });
}
