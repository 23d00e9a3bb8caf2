import {
  boolColumn,
  field,
  float64Column,
  int32Column,
  int64Column,
  makeBatch,
  timestampColumn,
  toRecordBatch,
  utf8FromStrings,
  validityFromBytes,
  windowColumn,
  type Batch,
} from "../../batch/batch.js";

/** A batch with one column of every Sluice type, nulls in the nullable ones, non-ASCII strings. */
export function sampleBatch(): Batch {
  const valid = validityFromBytes(Uint8Array.of(1, 0, 1, 1, 0), 5);
  return makeBatch(
    [
      field("s", "string"),
      field("f", "float64"),
      field("i", "int32"),
      field("l", "int64"),
      field("b", "boolean"),
      field("t", "timestamp"),
      field("w", "window", false),
    ],
    [
      utf8FromStrings(["a", null, "héllo wörld", "日本語", ""]),
      float64Column(Float64Array.of(1.5, 0, -2, Number.NaN, 1e300), valid.bitmap, valid.nullCount),
      int32Column(Int32Array.of(1, 2, -3, 4, 2147483647), valid.bitmap, valid.nullCount),
      int64Column(BigInt64Array.of(1n, 2n, -3n, 9007199254740991n, 0n), valid.bitmap, valid.nullCount),
      boolColumn(Uint8Array.of(1, 0, 1, 0, 1), valid.bitmap, valid.nullCount),
      timestampColumn(Float64Array.of(0, 1_700_000_000_123, -5, 86_400_000, 1), valid.bitmap, valid.nullCount),
      windowColumn(Float64Array.of(0, 10, 20, 30, 40), Float64Array.of(10, 20, 30, 40, 50)),
    ],
  );
}

/** Rows as plain objects, read now, through Arrow's own readers (slow, for comparing in tests). */
export function rowsOf(batch: Batch): Record<string, unknown>[] {
  return toRecordBatch(batch)
    .toArray()
    .map((row) => materialize(row) as Record<string, unknown>);
}

/** Arrow's row objects read their buffers lazily; copy every value out while the buffers exist. */
function materialize(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  const json = (value as { toJSON?: () => unknown }).toJSON?.() ?? value;
  return Object.fromEntries(Object.entries(json as object).map(([k, v]) => [k, materialize(v)]));
}
