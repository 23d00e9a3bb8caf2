import { create } from "@bufbuild/protobuf";
import type { z } from "zod";
import { fieldsFromZod } from "../../schema/zod-schema.js";
import type { DType, Fields } from "../../types/dtype.js";
import { type DataType, DataTypeSchema } from "../gen/spark/connect/types_pb.js";

/**
 * Sluice's column types as Spark names them: the `spark.connect.DataType` message (casts, typed
 * null literals) and DDL text (a source's or a local relation's schema, from_json's schema).
 * Timestamps are Spark's TIMESTAMP (an instant, shown in the session time zone), not TIMESTAMP_NTZ.
 */

/** The DDL type name of a Sluice type, e.g. "BIGINT", "STRUCT<start: TIMESTAMP, end: TIMESTAMP>". */
export function sparkTypeName(t: DType): string {
  switch (t) {
    case "string":
      return "STRING";
    case "float64":
      return "DOUBLE";
    case "int32":
      return "INT";
    case "int64":
      return "BIGINT";
    case "boolean":
      return "BOOLEAN";
    case "timestamp":
      return "TIMESTAMP";
    case "window":
      return "STRUCT<start: TIMESTAMP, end: TIMESTAMP>";
    case "binary":
      return "BINARY";
    case "headers":
      return "ARRAY<STRUCT<key: STRING, value: BINARY>>";
  }
}

/** A column name as Spark's parser reads it: bare when it is a plain identifier, else in backquotes. */
export function quoteIdentifier(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name.replaceAll("`", "``")}\``;
}

/** A schema as Spark's DDL: `a INT NOT NULL, ts TIMESTAMP, ...`. */
export function sparkDdl(fields: Fields): string {
  return fields.map((f) => `${quoteIdentifier(f.name)} ${sparkTypeName(f.type)}${f.nullable ? "" : " NOT NULL"}`).join(", ");
}

/** The DDL of a zod object schema's columns (as `fieldsFromZod` reads them). */
export function sparkDdlOfZod(schema: z.ZodObject<any>): string {
  return sparkDdl(fieldsFromZod(schema));
}

const timestamp = (): DataType => create(DataTypeSchema, { kind: { case: "timestamp", value: {} } });

/** The `spark.connect.DataType` of a Sluice type. */
export function sparkDataType(t: DType): DataType {
  switch (t) {
    case "string":
      return create(DataTypeSchema, { kind: { case: "string", value: {} } });
    case "float64":
      return create(DataTypeSchema, { kind: { case: "double", value: {} } });
    case "int32":
      return create(DataTypeSchema, { kind: { case: "integer", value: {} } });
    case "int64":
      return create(DataTypeSchema, { kind: { case: "long", value: {} } });
    case "boolean":
      return create(DataTypeSchema, { kind: { case: "boolean", value: {} } });
    case "timestamp":
      return timestamp();
    case "binary":
      return create(DataTypeSchema, { kind: { case: "binary", value: {} } });
    case "window":
      return create(DataTypeSchema, {
        kind: {
          case: "struct",
          value: {
            fields: [
              { name: "start", dataType: timestamp(), nullable: true },
              { name: "end", dataType: timestamp(), nullable: true },
            ],
          },
        },
      });
    case "headers": {
      const entry = create(DataTypeSchema, {
        kind: {
          case: "struct",
          value: {
            fields: [
              { name: "key", dataType: sparkDataType("string"), nullable: false },
              { name: "value", dataType: sparkDataType("binary"), nullable: true },
            ],
          },
        },
      });
      return create(DataTypeSchema, { kind: { case: "array", value: { elementType: entry, containsNull: false } } });
    }
  }
}
