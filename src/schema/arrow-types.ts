import * as arrow from "apache-arrow";
import { AnalysisError } from "../errors/errors.js";
import type { DType, Field, Fields } from "../types/dtype.js";

/** Sluice's own timestamps: milliseconds, no time zone; a window's bounds are never null. */
const SLUICE_TIMESTAMPS = { type: () => new arrow.TimestampMillisecond(), windowNullable: false };

/**
 * The Arrow type that stores each Sluice column type. Another engine may want its timestamps in
 * another unit (Spark: microseconds in UTC) and window bounds nullable: `timestamps` says so.
 */
export function arrowType(t: DType, timestamps: { readonly type: () => arrow.DataType; readonly windowNullable: boolean } = SLUICE_TIMESTAMPS): arrow.DataType {
  switch (t) {
    case "string":
      return new arrow.Utf8();
    case "float64":
      return new arrow.Float64();
    case "int32":
      return new arrow.Int32();
    case "int64":
      return new arrow.Int64();
    case "boolean":
      return new arrow.Bool();
    case "timestamp":
      return timestamps.type();
    case "window":
      return new arrow.Struct([
        new arrow.Field("start", timestamps.type(), timestamps.windowNullable),
        new arrow.Field("end", timestamps.type(), timestamps.windowNullable),
      ]);
    case "binary":
      return new arrow.Binary();
    case "headers":
      // Spark's array<struct<key: string, value: binary>>, the list's items named as Spark names them.
      return new arrow.List(new arrow.Field("element", new arrow.Struct([new arrow.Field("key", new arrow.Utf8(), false), new arrow.Field("value", new arrow.Binary(), true)]), false));
  }
}

/** True for a list of struct { key: Utf8, value: Binary }: the headers type, whatever its fields' names and nullability. */
function isHeadersType(t: arrow.DataType): boolean {
  if (!arrow.DataType.isList(t) || !arrow.DataType.isStruct(t.valueType)) return false;
  const [key, value, ...rest] = t.valueType.children;
  return rest.length === 0 && key?.name === "key" && arrow.DataType.isUtf8(key.type) && value?.name === "value" && arrow.DataType.isBinary(value.type);
}

export function arrowField(f: Field): arrow.Field {
  return new arrow.Field(f.name, arrowType(f.type), f.nullable);
}

export function arrowSchema(fields: Fields): arrow.Schema {
  return new arrow.Schema(fields.map(arrowField));
}

/**
 * The Sluice type of an Arrow type, for tables handed in by users: every float is float64; Int8,
 * Int16, Int32, Uint8 and Uint16 are int32; Uint32, Int64 and Uint64 are int64 (Uint32 does not fit
 * int32); timestamps of any unit and time zone and both dates are timestamp; Binary and
 * LargeBinary are binary; a list of struct { key: Utf8, value: Binary } is headers. The values convert
 * by the rules of batch/numeric-columns.ts (`canonicalColumn`). Spark's own Arrow reader takes
 * signed integers, Date32 and Timestamp(us) only; Sluice widens the rest without loss.
 */
export function dtypeOfArrow(t: arrow.DataType, name: string): DType {
  if (arrow.DataType.isUtf8(t) || arrow.DataType.isLargeUtf8(t)) return "string";
  if (arrow.DataType.isDictionary(t) && arrow.DataType.isUtf8(t.dictionary)) return "string";
  if (arrow.DataType.isFloat(t)) return "float64";
  if (arrow.DataType.isInt(t)) return t.bitWidth === 64 || (t.bitWidth === 32 && !t.isSigned) ? "int64" : "int32";
  if (arrow.DataType.isBool(t)) return "boolean";
  if (arrow.DataType.isTimestamp(t) || arrow.DataType.isDate(t)) return "timestamp";
  if (arrow.DataType.isBinary(t) || arrow.DataType.isLargeBinary(t)) return "binary";
  if (isHeadersType(t)) return "headers";
  if (arrow.DataType.isStruct(t) && t.children.map((c) => c.name).join(",") === "start,end" && t.children.every((c) => arrow.DataType.isTimestamp(c.type) || arrow.DataType.isDate(c.type))) {
    return "window";
  }
  throw new AnalysisError(
    `column "${name}": Arrow type ${t} is not supported; use Utf8, a Float, an Int, Bool, a Timestamp or Date, Binary, a struct { start, end } of timestamps (a window) or a list of struct { key: Utf8, value: Binary } (Kafka headers)`,
  );
}
