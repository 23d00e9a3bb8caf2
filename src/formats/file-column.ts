import type * as arrow from "apache-arrow";
import { canonicalColumn } from "../batch/numeric-columns.js";
import { readValidity } from "../batch/validity.js";
import { bytesColumnOf } from "../kernels/build.js";
import { materializeStrings, stringsOf } from "../kernels/columns.js";
import { arrowType } from "../schema/arrow-types.js";
import type { DType } from "../types/dtype.js";

/**
 * A column in the one Arrow type files carry for its Sluice type (Utf8 strings, Float64, Int32,
 * Int64, Timestamp(ms) without a zone, the window struct of two such timestamps, Binary): passed
 * through when it already is one; dictionary strings and LargeUtf8 / LargeBinary values are
 * materialized, and numbers and times converted by batch/numeric-columns.ts. Files are written and read in these types, so every part file of a
 * sink has one schema.
 */
export function fileColumn(data: arrow.Data, type: DType, column?: string): arrow.Data {
  if (String(data.type) === String(arrowType(type))) return data;
  if (type === "string" || type === "binary") {
    const { offsets, bytes } = materializeStrings(stringsOf(data), data.length);
    return bytesColumnOf(type, offsets, bytes, readValidity(data));
  }
  return canonicalColumn(data, type, column);
}
