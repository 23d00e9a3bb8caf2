import { AnalysisError } from "../../errors/errors.js";
import type { ColType, DType, Field, Fields } from "../../types/dtype.js";
import type { AvroSchema } from "./avro-schema-types.js";
import { aTypeLabel, typeLabel } from "./avro-schema-types.js";

/**
 * How Avro types become Sluice column types, and Sluice columns Avro types. Reading follows Spark's
 * spark-avro (SchemaConverters) within the types Sluice has:
 *
 * | Avro | Sluice |
 * |---|---|
 * | boolean | boolean |
 * | int; int with time-millis (ms after midnight, as Spark) | int32 |
 * | long; long with time-micros | int64 |
 * | float, double | float64 (Sluice has no 32-bit float) |
 * | string, string with uuid, enum (its symbol) | string |
 * | bytes, fixed (uuid and duration on fixed included) | binary |
 * | long with timestamp-millis / -micros / -nanos | timestamp (epoch ms; finer units floored, as Spark's microsToMillis) |
 * | long with local-timestamp-millis / -micros / -nanos | timestamp: the local wall-clock time read as UTC (Sluice has no TIMESTAMP_NTZ) |
 * | int with date | timestamp at midnight UTC of that day (Sluice has no date type) |
 * | [null, T] or [T, null] | T, nullable |
 * | [int, long] / [float, double] (null allowed too) | int64 / float64, as Spark |
 *
 * Refused with an AnalysisError naming the field, but only when the field is read: records,
 * arrays and maps (Sluice has no struct, list or map columns yet), other unions, decimals (no
 * decimal type: read them as binary for the unscaled bytes), and null. A field that is not read is
 * skipped, whatever its type.
 *
 * Writing: int32 -> int, int64 -> long, float64 -> double, boolean -> boolean, string -> string,
 * binary -> bytes, timestamp -> long with timestamp-millis, window -> a record of two such longs
 * (start, end), as Spark's to_avro writes the struct; a nullable column is ["null", T] with
 * default null. headers are refused.
 */

/** The Sluice column type that reads Avro type `schema`; throws an AnalysisError naming `field` when there is none. */
export function columnTypeOfAvro(schema: AvroSchema, field: string): ColType {
  if (schema.type !== "union") return { type: plainColumnType(schema, field), nullable: false };
  const values = schema.branches.filter((b) => b.type !== "null");
  const nullable = values.length < schema.branches.length;
  if (values.length === 1) return { type: plainColumnType(values[0]!, field), nullable };
  const kinds = values.map((b) => (b.type === "int" || b.type === "long" || b.type === "float" || b.type === "double") && b.logicalType === null ? b.type : "other");
  if (values.length === 2 && kinds.includes("int") && kinds.includes("long")) return { type: "int64", nullable };
  if (values.length === 2 && kinds.includes("float") && kinds.includes("double")) return { type: "float64", nullable };
  throw new AnalysisError(
    values.length === 0
      ? `field "${field}" is an Avro ${typeLabel(schema)}, which holds only nulls; leave it out of the columns read`
      : `field "${field}" is an Avro ${typeLabel(schema)}, which Sluice cannot read into one column (Spark reads such a union as a struct of member0, member1, ...); ` +
          "Sluice reads [null, T] in either order and the numeric unions [int, long] and [float, double]",
  );
}

function plainColumnType(schema: AvroSchema, field: string): DType {
  const refuse = (why: string, what = typeLabel(schema)): never => {
    throw new AnalysisError(`field "${field}" is an Avro ${what}, ${why}`);
  };
  const notYet = (what: string) => refuse(`and Sluice has no ${what} columns yet: leave the field out of the columns read, and it is skipped`);
  switch (schema.type) {
    case "boolean":
      return "boolean";
    case "int":
      return schema.logicalType?.name === "date" ? "timestamp" : "int32";
    case "long":
      return schema.logicalType === null || schema.logicalType.name === "time-micros" ? "int64" : "timestamp";
    case "float":
    case "double":
      return "float64";
    case "string":
    case "enum":
      return "string";
    case "bytes":
    case "fixed": {
      const logical = schema.logicalType;
      if (logical?.name === "decimal") {
        const what = `decimal(${logical.precision}, ${logical.scale}) on ${schema.type}`;
        return refuse("and Sluice has no decimal type yet: declare the column as binary to read the unscaled big-endian two's-complement bytes", what);
      }
      if (logical?.name === "big-decimal") return refuse("and Sluice has no decimal type yet: declare the column as binary to read its bytes", "big-decimal");
      return "binary";
    }
    case "null":
      return refuse("which holds no value; leave it out of the columns read");
    case "record":
      return notYet("struct");
    case "array":
      return notYet("list");
    case "map":
      return notYet("map");
    case "union":
      // A union directly inside a union is refused by the parser; only a top-level union gets here.
      return columnTypeOfAvro(schema, field).type;
  }
}

/** The columns of an Avro record schema, one per field, typed by `columnTypeOfAvro`. */
export function fieldsOfAvroSchema(schema: AvroSchema): Fields {
  if (schema.type !== "record") throw new AnalysisError(`the Avro schema is ${aTypeLabel(schema)}, not a record: it has no fields to make columns of`);
  return schema.fields.map((f): Field => ({ name: f.name, ...columnTypeOfAvro(f.type, f.name) }));
}

/**
 * Every column names a field of the user's record schema. Avro resolution would read a nullable
 * column the schema lacks as null in every row; a declared column that the schema does not have is a
 * mistake (a misspelt name) to report, not to hide.
 */
export function checkColumnsInRecord(schema: AvroSchema, fields: Fields, where: string): void {
  if (schema.type !== "record") return;
  const names = new Set(schema.fields.map((f) => f.name));
  const missing = fields.find((f) => !names.has(f.name));
  if (missing !== undefined) {
    throw new AnalysisError(
      `${where}: column "${missing.name}" is not a field of the Avro record ${schema.name} in avroSchema; its fields are ${[...names].join(", ") || "none"}: ` +
        "add the field (with a default, for values written without it), or remove the column",
    );
  }
}

// ---- writing ----

/** Spark's to_avro names the top-level record this when no name is given. */
export const DEFAULT_RECORD_NAME = "topLevelRecord";
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TIMESTAMP_MILLIS = { type: "long", logicalType: "timestamp-millis" } as const;

export interface AvroRecordNaming {
  /** The record's name (default "topLevelRecord", as Spark's to_avro). */
  readonly name?: string;
  readonly namespace?: string;
}

/**
 * The Avro record schema (as JSON, ready to register or to parse) that `encodeAvroValues` writes
 * rows of `fields` with. Column names must be Avro names.
 */
export function avroSchemaOfFields(fields: Fields, naming: AvroRecordNaming = {}): Record<string, unknown> {
  const name = naming.name ?? DEFAULT_RECORD_NAME;
  const fullName = naming.namespace ? `${naming.namespace}.${name}` : name;
  return {
    type: "record",
    name,
    ...(naming.namespace ? { namespace: naming.namespace } : {}),
    fields: fields.map((f) => {
      if (!NAME.test(f.name)) {
        throw new AnalysisError(`column "${f.name}" is not a valid Avro field name ([A-Za-z_][A-Za-z0-9_]*); rename it (alias or withColumnRenamed) before writing Avro`);
      }
      const type = avroTypeOfColumn(f, fullName);
      return f.nullable ? { name: f.name, type: ["null", type], default: null } : { name: f.name, type };
    }),
  };
}

function avroTypeOfColumn(field: Field, recordName: string): unknown {
  switch (field.type) {
    case "int32":
      return "int";
    case "int64":
      return "long";
    case "float64":
      return "double";
    case "boolean":
      return "boolean";
    case "string":
      return "string";
    case "binary":
      return "bytes";
    case "timestamp":
      return TIMESTAMP_MILLIS;
    case "window":
      // Named after its column inside the top-level record's namespace, as Spark names nested records: unique per schema.
      return { type: "record", name: field.name, namespace: recordName, fields: [{ name: "start", type: TIMESTAMP_MILLIS }, { name: "end", type: TIMESTAMP_MILLIS }] };
  }
  // Types with no Avro form (Kafka headers).
  throw new AnalysisError(`column "${field.name}" has type ${field.type as string}, which Sluice does not write as Avro; drop it, or write headers with the Kafka sink's headers column`);
}
