import * as arrow from "apache-arrow";
import { setInt64Words } from "./int64-words.js";
import type { NumericDType } from "./numeric-builders.js";
import { readInt64, readNumbers } from "./read-numbers.js";

/**
 * The boundary: any numeric or temporal Arrow type converted once into Sluice's own, by the rules
 * stated in numeric-columns.ts, where data enters (`session.fromArrow`, file reads) and where
 * batches in another Arrow type are concatenated.
 */

/** `data`'s rows and validity over new values (row 0 at index 0, as Arrow JS keeps sliced values). */
function withValues(data: arrow.Data, type: arrow.DataType, values: ArrayBufferView): arrow.Data {
  const buffers = [undefined, values, data.nullCount > 0 ? data.nullBitmap : undefined] as unknown as ConstructorParameters<typeof arrow.Data>[4];
  return new arrow.Data(type, data.offset, data.length, data.nullCount > 0 ? data.nullCount : 0, buffers);
}

/** The kinds of column `canonicalColumn` converts (strings, binary, headers and booleans pass through as they are). */
export type CanonicalKind = NumericDType | "window" | "string" | "boolean" | "binary" | "headers";

/**
 * A column of any supported Arrow type in Sluice's Arrow type for `type` (see
 * schema/arrow-types.ts): the column itself when it has that type, the same buffers under the
 * canonical type where the bits agree (Timestamp(ms) with a time zone, Date64, Uint64 within the
 * int64 range), else converted once by the rules of numeric-columns.ts. Int8, Int16, Uint8 and
 * Uint16 widen to int32, Uint32 to int64, Float16 and Float32 to float64.
 */
export function canonicalColumn(data: arrow.Data, type: CanonicalKind, column?: string): arrow.Data {
  const t = data.type;
  switch (type) {
    case "float64":
      return arrow.DataType.isFloat(t) && t.precision === arrow.Precision.DOUBLE ? data : withValues(data, new arrow.Float64(), readNumbers(data, column));
    case "int32":
      return arrow.DataType.isInt(t) && t.bitWidth === 32 && t.isSigned ? data : withValues(data, new arrow.Int32(), Int32Array.from(readNumbers(data, column)));
    case "int64": {
      if (arrow.DataType.isInt(t) && t.bitWidth === 64) {
        if (t.isSigned) return data;
        readInt64(data, column); // raises for a value above the int64 maximum
        return withValues(data, new arrow.Int64(), new BigInt64Array((data.values as BigUint64Array).buffer, (data.values as BigUint64Array).byteOffset, data.length));
      }
      const values = readNumbers(data, column);
      const words = new Int32Array(2 * values.length);
      for (let i = 0; i < values.length; i++) setInt64Words(words, i, values[i]!);
      return withValues(data, new arrow.Int64(), new BigInt64Array(words.buffer));
    }
    case "timestamp": {
      if ((arrow.DataType.isTimestamp(t) && t.unit === arrow.TimeUnit.MILLISECOND) || (arrow.DataType.isDate(t) && t.unit === arrow.DateUnit.MILLISECOND)) {
        return arrow.DataType.isTimestamp(t) && t.timezone == null ? data : withValues(data, new arrow.TimestampMillisecond(), data.values as BigInt64Array);
      }
      const millis = readNumbers(data, column);
      const words = new Int32Array(2 * millis.length);
      for (let i = 0; i < millis.length; i++) setInt64Words(words, i, millis[i]!);
      return withValues(data, new arrow.TimestampMillisecond(), new BigInt64Array(words.buffer));
    }
    case "window": {
      const children = data.children.map((c, k) => canonicalColumn(c, "timestamp", column === undefined ? undefined : `${column}.${k === 0 ? "start" : "end"}`));
      if (children.every((c, k) => c === data.children[k])) return data;
      const struct = new arrow.Struct((data.type as arrow.Struct).children.map((f, k) => new arrow.Field(f.name, children[k]!.type, f.nullable)));
      return new arrow.Data(struct, data.offset, data.length, data.nullCount > 0 ? data.nullCount : 0, [undefined, undefined, data.nullCount > 0 ? data.nullBitmap : undefined] as unknown as ConstructorParameters<typeof arrow.Data>[4], children);
    }
    case "string":
    case "binary":
    case "headers":
    case "boolean":
      return data;
  }
}
