import type * as arrow from "apache-arrow";
import { binaryColumn } from "../../batch/batch.js";
import type { Fields } from "../../types/dtype.js";
import { ColumnAccumulators } from "../column-accumulators.js";

/**
 * Column accumulators that also build binary columns. Binary has the string columns' layout
 * (offsets and bytes), so binary fields are accumulated as strings and their finished columns
 * relabelled as Binary, sharing the buffers; no byte is copied or read as text.
 */
export function accumulatorsFor(fields: Fields, expectedRows: number): ColumnAccumulators {
  return new ColumnAccumulators(
    fields.map((f) => (f.type === "binary" ? { ...f, type: "string" as const } : f)),
    expectedRows,
  );
}

/** The Arrow columns of rows [0, numRows), binary fields as Binary. */
export function finishColumns(columns: ColumnAccumulators, fields: Fields, numRows: number): arrow.Data[] {
  return columns.finish(numRows).map((data, f) => {
    if (fields[f]!.type !== "binary") return data;
    const nullBitmap = data.nullCount > 0 ? (data.nullBitmap as Uint8Array) : undefined;
    return binaryColumn(data.valueOffsets as Int32Array, data.values as Uint8Array, nullBitmap, data.nullCount);
  });
}
