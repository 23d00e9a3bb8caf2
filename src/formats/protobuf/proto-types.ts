import { AnalysisError } from "../../errors/errors.js";
import type { DType, Field, Fields } from "../../types/dtype.js";
import { describeField } from "./proto-descriptor.js";
import type { ProtoField, ProtoMessage } from "./proto-descriptor.js";

/**
 * Protobuf field types as Sluice column types: the one place they are mapped, following Spark's
 * SchemaConverters (int32-like -> IntegerType, int64-like -> LongType, float and double ->
 * DoubleType here since Sluice has one floating type, bytes -> BinaryType, enum -> StringType,
 * google.protobuf.Timestamp -> TimestampType). Sluice has no struct, array or map column types
 * yet, so nested messages, repeated fields and maps cannot be columns; they are skipped on the
 * wire when not read, and refused, naming the field, when a reader asks for them.
 */

export interface ProtoTypeOptions {
  /** Spark's `enums.as.ints`: enum fields as their int32 numbers rather than their value names. */
  readonly enumsAsInts?: boolean;
  /**
   * Spark's `upcast.unsigned.ints`: uint32 and fixed32 as int64, so values from 2^31 up stay
   * positive (without it they wrap to negative int32, as Spark's IntegerType).
   */
  readonly upcastUnsignedInts?: boolean;
}

export const TIMESTAMP_MESSAGE = "google.protobuf.Timestamp";

/** Message types Spark reads as a type Sluice does not have. */
const OTHER_WELL_KNOWN: Readonly<Record<string, string>> = {
  "google.protobuf.Duration": "Spark reads it as a day-time interval, a type Sluice does not have",
  "google.protobuf.Any": "Spark reads it as a struct of type_url and value (or JSON text with convert.any.fields.to.json)",
};

/** The column type of `field`, or the reason it cannot be a column. */
export function columnTypeOrReason(field: ProtoField, options: ProtoTypeOptions = {}): DType | { readonly reason: string } {
  if (field.map) return { reason: "is a map field, and Sluice has no map column type yet" };
  if (field.label === "repeated") return { reason: `is repeated ${field.typeName ?? field.type}, and Sluice has no array column type yet` };
  switch (field.type) {
    case "int32":
    case "sint32":
    case "sfixed32":
      return "int32";
    case "uint32":
    case "fixed32":
      return options.upcastUnsignedInts ? "int64" : "int32";
    case "int64":
    case "sint64":
    case "sfixed64":
    case "fixed64":
      return "int64";
    case "uint64":
      return options.upcastUnsignedInts
        ? { reason: "is uint64, which upcast.unsigned.ints reads as Decimal(20, 0) in Spark, a type Sluice does not have; read it without the option, as int64 (values from 2^63 wrap to negative, as in Spark)" }
        : "int64";
    case "float":
    case "double":
      return "float64";
    case "bool":
      return "boolean";
    case "string":
      return "string";
    case "bytes":
      return "binary";
    case "enum":
      return options.enumsAsInts ? "int32" : "string";
    case "message":
      if (field.typeName === TIMESTAMP_MESSAGE) return "timestamp";
      return { reason: `is the message ${field.typeName}, and ${OTHER_WELL_KNOWN[field.typeName ?? ""] ?? "Sluice has no struct column type yet"}` };
    case "group":
      return { reason: `is the group ${field.typeName}, and Sluice has no struct column type yet` };
  }
}

/** The column type of `field`; AnalysisError naming the field and the reason when it has none. */
export function columnTypeOf(field: ProtoField, message: ProtoMessage, options: ProtoTypeOptions = {}): DType {
  const type = columnTypeOrReason(field, options);
  if (typeof type === "string") return type;
  throw new AnalysisError(
    `Protobuf ${describeField(field.number, field.name)} of ${message.fullName} ${type.reason}: leave it out of the columns read (unread fields are skipped)`,
  );
}

/**
 * Columns for the fields of `message` named in `names` (default: every field, in declaration
 * order), as Spark's from_protobuf schema has them: nullable unless proto2 `required`.
 */
export function protoFields(message: ProtoMessage, options: ProtoTypeOptions = {}, names?: readonly string[]): Fields {
  const chosen = names === undefined ? message.fields : names.map((name) => protoFieldNamed(message, name));
  return chosen.map((f): Field => ({ name: f.name, type: columnTypeOf(f, message, options), nullable: f.label !== "required" }));
}

/** The field of `message` a column named `name` reads; AnalysisError listing the fields when there is none. */
export function protoFieldNamed(message: ProtoMessage, name: string): ProtoField {
  const field = message.fields.find((f) => f.name === name);
  if (field !== undefined) return field;
  throw new AnalysisError(
    `column "${name}" is not a field of the Protobuf message ${message.fullName}; its fields are ${message.fields.map((f) => f.name).join(", ") || "none"}`,
  );
}
