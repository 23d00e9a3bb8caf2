import * as arrow from "apache-arrow";
import { AnalysisError } from "../errors/errors.js";
import { assertNever } from "../expr/ast.js";
import { copyBits, fillBits } from "../kernels/bits.js";
import { columnLike } from "../kernels/build.js";
import { concatStrings, stringsOf } from "../kernels/columns.js";
import { arrowType } from "../schema/arrow-types.js";
import type { DType, Fields } from "../types/dtype.js";
import { type Batch, emptyBatch, makeBatch } from "./batch.js";
import { canonicalColumn } from "./numeric-columns.js";

/**
 * Concatenation of batches into one, copying every column into fresh typed arrays in one pass.
 * Columns come out in Sluice's canonical Arrow types, except that dictionary-encoded strings stay
 * encoded when every input shares the same dictionary.
 */

/** One batch holding the rows of `batches` in order; `fields` is required when the list is empty. */
export function concatBatches(batches: readonly Batch[], fields?: Fields): Batch {
  const outFields = fields ?? batches[0]?.fields;
  if (!outFields) throw new AnalysisError("concatBatches: cannot concatenate an empty list of batches without their fields");
  for (const b of batches) {
    if (b.fields.length !== outFields.length || b.fields.some((f, i) => f.name !== outFields[i].name || f.type !== outFields[i].type)) {
      throw new AnalysisError(
        `concatBatches: batch columns (${b.fields.map((f) => `${f.name}: ${f.type}`).join(", ")}) differ from (${outFields.map((f) => `${f.name}: ${f.type}`).join(", ")})`,
      );
    }
  }
  if (batches.length === 0) return emptyBatch(outFields);
  const numRows = batches.reduce((sum, b) => sum + b.numRows, 0);
  const columns = outFields.map((f, c) =>
    concatColumns(
      batches.map((b) => b.columns[c]),
      f.type,
    ),
  );
  return makeBatch(outFields, columns, numRows);
}

/** One column holding the rows of `parts` in order, in the canonical Arrow type of `type`. */
export function concatColumns(parts: readonly arrow.Data[], type: DType): arrow.Data {
  const length = parts.reduce((sum, d) => sum + d.length, 0);
  const validity = concatValidity(parts, length);
  switch (type) {
    case "string":
      return sharedDictionary(parts) ? concatFixedWidth(parts, length, validity) : concatByteColumns(parts, type, length, validity);
    case "binary":
      return concatByteColumns(parts, type, length, validity);
    case "boolean": {
      const bits = new Uint8Array((length + 7) >> 3);
      let pos = 0;
      for (const d of parts) {
        copyBits(d.values as Uint8Array, d.offset, bits, pos, d.length);
        pos += d.length;
      }
      return columnLike(template(type), { length, values: bits, ...validity });
    }
    case "float64":
    case "int32":
    case "int64":
    case "timestamp":
      // Parts in another Arrow type (an Int8 "int32", a Timestamp(us)) convert exactly first.
      return concatFixedWidth(
        parts.map((d) => canonicalColumn(d, type)),
        length,
        validity,
      );
    case "window": {
      const children = [0, 1].map((k) =>
        concatColumns(
          parts.map((d) => d.children[k]),
          "timestamp",
        ),
      );
      return columnLike(template(type), { length, children, ...validity });
    }
    case "headers":
      return concatHeaders(parts, length, validity);
    default:
      return assertNever(type, "type");
  }
}

type Validity = { nullBitmap?: Uint8Array; nullCount: number };

function concatValidity(parts: readonly arrow.Data[], length: number): Validity {
  const nullCount = parts.reduce((sum, d) => sum + (d.nullBitmap ? d.nullCount : 0), 0);
  if (nullCount === 0) return { nullCount: 0 };
  const bitmap = new Uint8Array((length + 7) >> 3);
  let pos = 0;
  for (const d of parts) {
    if (d.nullBitmap && d.nullCount > 0) copyBits(d.nullBitmap, d.offset, bitmap, pos, d.length);
    else fillBits(bitmap, pos, d.length);
    pos += d.length;
  }
  return { nullBitmap: bitmap, nullCount };
}

/** An empty column of the canonical Arrow type, as the type template for a rebuilt column. */
function template(type: DType): arrow.Data {
  return new arrow.Data(arrowType(type), 0, 0, 0);
}

function sharedDictionary(parts: readonly arrow.Data[]): boolean {
  const dict = parts[0]?.dictionary;
  return dict !== undefined && parts.every((d) => arrow.DataType.isDictionary(d.type) && d.dictionary === dict);
}

/** Same-typed fixed-width values: one typed-array `set` per part (a memcpy, also for 64-bit). */
function concatFixedWidth(parts: readonly arrow.Data[], length: number, validity: Validity): arrow.Data {
  const first = parts[0];
  const Ctor = (first.values as ArrayBufferView).constructor as new (n: number) => Uint8Array;
  const out = new Ctor(length);
  let pos = 0;
  for (const d of parts) {
    out.set((d.values as Uint8Array).subarray(0, d.length), pos);
    pos += d.length;
  }
  return columnLike(first, { length, values: out, ...validity });
}

/**
 * Lists of headers (kernels/headers.ts): each part's own entries, one part after another. A sliced
 * list's offsets point into a longer child, so each part's child is cut to its entries first.
 */
function concatHeaders(parts: readonly arrow.Data[], length: number, validity: Validity): arrow.Data {
  const offsets = new Int32Array(length + 1);
  const keys: arrow.Data[] = [];
  const values: arrow.Data[] = [];
  let row = 0;
  let base = 0;
  for (const d of parts) {
    const own = d.valueOffsets as Int32Array;
    const first = own[0]!;
    const last = own[d.length]!;
    for (let i = 1; i <= d.length; i++) offsets[row + i] = base + own[i]! - first;
    const entries = d.children[0]!.slice(first, last - first);
    keys.push(entries.children[0]!);
    values.push(entries.children[1]!);
    row += d.length;
    base += last - first;
  }
  const type = arrowType("headers") as arrow.List<arrow.Struct>;
  const entries = arrow.makeData({ type: type.valueType, length: base, nullCount: 0, children: [concatColumns(keys, "string"), concatColumns(values, "binary")] });
  return columnLike(template("headers"), { length, offsets, children: [entries], ...validity });
}

/** Strings or binary values: offsets and bytes, the same layout for both. */
function concatByteColumns(parts: readonly arrow.Data[], type: "string" | "binary", length: number, validity: Validity): arrow.Data {
  const { offsets, bytes } = concatStrings(parts.map((d) => ({ view: stringsOf(d), rows: d.length })));
  return columnLike(template(type), { length, offsets, values: bytes, ...validity });
}
