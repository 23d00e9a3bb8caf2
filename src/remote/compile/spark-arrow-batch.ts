import * as arrow from "apache-arrow";
import { type Batch, emptyBatch, makeBatch, utf8FromStrings } from "../../batch/batch.js";
import { concatBatches } from "../../batch/concat.js";
import { canonicalColumn, float64Column } from "../../batch/numeric-columns.js";
import { nullProps, readValidity } from "../../batch/validity.js";
import { columnFromValues, columnValues } from "../../batch/rows.js";
import { InternalError } from "../../errors/errors.js";
import type { Field, Fields } from "../../types/dtype.js";

/**
 * Spark's Arrow results as a Sluice batch of the fields the plan's schema gives (schemaOf), so
 * rows read the same as the embedded engine's. Columns are matched BY POSITION: a join on a
 * condition may return two columns of one name, and the fields carry Sluice's names.
 *
 * Spark sends timestamps as Timestamp(MICROSECOND, session time zone), longs as Int64, a window
 * as Struct<start, end> of such timestamps and a NULL without a type as Arrow's Null. Each
 * column is converted once into Sluice's canonical Arrow type (batch/canonical-column.ts: times
 * floored to milliseconds, as Spark's microsToMillis), on its buffers.
 */
export function batchFromSparkArrow(table: arrow.Table, fields: Fields): Batch {
  // An empty answer may come without any Arrow batch, hence without columns.
  if (table.numRows === 0) return emptyBatch(fields);
  if (table.schema.fields.length !== fields.length) {
    throw new InternalError(
      `the Spark Connect server returned ${table.schema.fields.length} columns (${table.schema.fields.map((f) => f.name).join(", ")}) where the plan has ${fields.length} (${fields.map((f) => f.name).join(", ")})`,
    );
  }
  const batches = table.batches
    .filter((b) => b.numRows > 0)
    .map((b) => makeBatch(fields, fields.map((f, i) => sluiceColumn(b.getChildAt(i)!.data[0]!, f, b.numRows)), b.numRows));
  return batches.length === 1 ? batches[0]! : concatBatches(batches, fields);
}

const badValue = (row: number, field: Field) => new InternalError(`column "${field.name}" row ${row}: no value expected in a null column`);

/** One column of Spark's batch in Sluice's Arrow type for `field`. */
function sluiceColumn(data: arrow.Data, field: Field, n: number): arrow.Data {
  const t = data.type;
  // A NULL Spark could not type (a when() whose branches are all null) is a column of nulls.
  if (arrow.DataType.isNull(t)) return columnFromValues(n, () => null, field, badValue);
  const where = `column ${field.name} (${field.type}) from Spark's ${t}`;
  switch (field.type) {
    case "string":
      if (arrow.DataType.isUtf8(t)) return data;
      if (arrow.DataType.isLargeUtf8(t) || arrow.DataType.isDictionary(t)) return utf8FromStrings(columnValues(data, field, n) as (string | null)[]);
      throw new InternalError(`${where}: expected text`);
    case "binary":
      if (arrow.DataType.isBinary(t)) return data;
      throw new InternalError(`${where}: expected binary`);
    case "boolean":
      if (arrow.DataType.isBool(t)) return data;
      throw new InternalError(`${where}: expected booleans`);
    case "headers":
      if (arrow.DataType.isList(t)) return data;
      throw new InternalError(`${where}: expected a list of headers`);
    case "window":
      if (!arrow.DataType.isStruct(t)) throw new InternalError(`${where}: expected a struct<start, end>`);
      return canonicalColumn(data, "window", field.name);
    case "float64":
    case "int32":
    case "int64":
      if (arrow.DataType.isDecimal(t)) return canonicalColumn(decimalsAsDoubles(data), field.type, field.name);
      if (!arrow.DataType.isInt(t) && !arrow.DataType.isFloat(t)) throw new InternalError(`${where}: expected numbers`);
      return canonicalColumn(data, field.type, field.name);
    case "timestamp":
      if (!arrow.DataType.isTimestamp(t) && !arrow.DataType.isDate(t)) throw new InternalError(`${where}: expected timestamps`);
      return canonicalColumn(data, "timestamp", field.name);
  }
}

/**
 * Spark's DECIMAL (Arrow Decimal128: four little-endian 32-bit words per value, two's complement)
 * as doubles, which the numeric rules then convert to the field's type. Sluice's own types never
 * make Spark choose a decimal; a table on the server may hold one.
 */
function decimalsAsDoubles(data: arrow.Data): arrow.Data {
  const words = data.values as Uint32Array;
  const scale = 10 ** (data.type as arrow.Decimal).scale;
  const values = new Float64Array(data.length);
  const valid = readValidity(data);
  for (let i = 0; i < data.length; i++) {
    if (valid !== null && !valid[i]) continue;
    const w = 4 * i;
    const unscaled = BigInt.asIntN(128, BigInt(words[w]!) | (BigInt(words[w + 1]!) << 32n) | (BigInt(words[w + 2]!) << 64n) | (BigInt(words[w + 3]!) << 96n));
    values[i] = Number(unscaled) / scale;
  }
  const { nullBitmap, nullCount } = nullProps(valid, data.length);
  return float64Column(values, nullBitmap, nullCount);
}
