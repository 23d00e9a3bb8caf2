import type * as arrow from "apache-arrow";
import { type Batch, emptyColumn, makeBatch } from "../batch/batch.js";
import { concatColumns } from "../batch/concat.js";
import { AnalysisError } from "../errors/errors.js";
import { numberColumn } from "../batch/numeric-columns.js";
import { boolColumnOf, bytesColumnOf, windowColumnOf } from "../kernels/build.js";
import { headersColumn, nullBitsOf } from "../kernels/headers.js";
import { dtypeOfArrow } from "../schema/arrow-types.js";
import type { DType, Field, Fields } from "../types/dtype.js";
import { fileColumn } from "./file-column.js";

/**
 * The columns a query expects, taken by name from an Arrow table read from a file (Parquet or
 * Arrow IPC), as Spark's file readers match a file's columns to the read schema:
 * - columns of the file the schema does not name are ignored;
 * - a column the file lacks is read as nulls when its field is nullable (a file written before the
 *   column was added), and is an error otherwise;
 * - a column's Arrow type must be one that reads as the field's Sluice type (see `dtypeOfArrow`:
 *   any integer width up to 32 bits as int32, float32 as float64, any timestamp unit and zone or a
 *   date as timestamp), else the read fails naming the file, the column and both types;
 * - nulls in a field declared not nullable are an error.
 * Columns come out in Sluice's canonical Arrow types, one chunk each.
 */
export function batchFromArrowTable(table: arrow.Table, fields: Fields, file: string, format: string): Batch {
  checkArrowSchema(table.schema, fields, file, format);
  const n = table.numRows;
  const columns = fields.map((f) => {
    const index = table.schema.fields.findIndex((c) => c.name === f.name);
    if (index < 0) return nullColumn(f.type, n);
    const chunks = table.getChildAt(index)!.data.filter((d) => d.length > 0);
    const data = chunks.length === 0 ? emptyColumn(f.type) : fileColumn(chunks.length === 1 ? chunks[0]! : concatColumns(chunks, f.type), f.type, f.name);
    if (!f.nullable && data.nullCount > 0) {
      throw new AnalysisError(`${format} file ${file}: column "${f.name}" holds ${data.nullCount} null${data.nullCount === 1 ? "" : "s"}, but the schema declares it not nullable; make the field nullable`);
    }
    return data;
  });
  return makeBatch(fields, columns, n);
}

/** Checks a file's schema against the fields as `batchFromArrowTable` does, before any data is read. */
export function checkArrowSchema(schema: arrow.Schema, fields: Fields, file: string, format: string): void {
  for (const f of fields) {
    const column = schema.fields.find((c) => c.name === f.name);
    if (column) checkType(column.type, f, file, format);
    else if (!f.nullable) {
      const present = schema.fields.map((c) => `"${c.name}"`).join(", ") || "none";
      throw new AnalysisError(`${format} file ${file} has no column "${f.name}", which the schema declares not nullable (columns in the file: ${present}); make the field nullable to read it as nulls`);
    }
  }
}

function checkType(fileType: arrow.DataType, f: Field, file: string, format: string): void {
  if (readsAs(fileType, f.name) === f.type) return;
  throw new AnalysisError(`${format} file ${file}: column "${f.name}" is ${fileType} in the file, which does not read as ${f.type}; declare the field as the file's type or cast after reading`);
}

/** The Sluice type a file column reads as, or null when it has none (nested lists, maps, ...). */
function readsAs(t: arrow.DataType, name: string): DType | null {
  let type: DType;
  try {
    type = dtypeOfArrow(t, name);
  } catch {
    return null;
  }
  // A struct named like a window must also hold timestamps to be one.
  if (type === "window" && t.children.some((c) => readsAs(c.type, c.name) !== "timestamp")) return null;
  return type;
}

/** A column of `n` nulls. */
function nullColumn(type: DType, n: number): arrow.Data {
  const none = new Uint8Array(n);
  switch (type) {
    case "string":
    case "binary":
      return bytesColumnOf(type, new Int32Array(n + 1), new Uint8Array(0), none);
    case "boolean":
      return boolColumnOf(new Uint8Array(n), none);
    case "window":
      return windowColumnOf(new Float64Array(n), new Float64Array(n), none);
    case "headers":
      return headersColumn({
        length: n,
        offsets: new Int32Array(n + 1),
        rowNulls: nullBitsOf(none, n),
        keyOffsets: new Int32Array(1),
        keyBytes: new Uint8Array(0),
        valueOffsets: new Int32Array(1),
        valueBytes: new Uint8Array(0),
        valueNulls: null,
      });
    case "float64":
    case "int32":
    case "int64":
    case "timestamp":
      return numberColumn(type, new Float64Array(n), none);
  }
}
