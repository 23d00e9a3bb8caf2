import type * as arrow from "apache-arrow";
import { concatColumns } from "../batch/concat.js";
import { stringColumnOf } from "../kernels/build.js";
import { materializeStrings, stringsOf, validityOf } from "../kernels/columns.js";
import { arrowType } from "../schema/arrow-types.js";
import type { DType } from "../types/dtype.js";

/**
 * A column in the canonical Arrow type of its Sluice type (Utf8 strings, Float64, Int32, Int64,
 * Timestamp(ms) without a zone, the window struct of two such timestamps): passed through when it
 * already is one, rebuilt otherwise (dictionary strings, other integer or time widths, time zones).
 * Files are written and read in these types, so every part file of a sink has one schema.
 */
export function canonicalColumn(data: arrow.Data, type: DType): arrow.Data {
  if (String(data.type) === String(arrowType(type))) return data;
  if (type === "string") {
    const { offsets, bytes } = materializeStrings(stringsOf(data), data.length);
    return stringColumnOf(offsets, bytes, validityOf(data));
  }
  return concatColumns([data], type);
}
