import { describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { AnalysisError } from "../../errors/errors.js";
import type { Field } from "../../types/dtype.js";
import { avroSchemaOfFields, columnTypeOfAvro, fieldsOfAvroSchema } from "./avro-columns.js";
import { parseAvroSchema } from "./avro-schema.js";
import type { AvroRecord } from "./avro-schema-types.js";

/** A type name is passed as JSON text, as a registry gives it. */
const typeOf = (schema: unknown) => columnTypeOfAvro(parseAvroSchema(typeof schema === "string" ? JSON.stringify(schema) : (schema as object)), "f");

describe("Avro types as Sluice columns (Spark's SchemaConverters)", () => {
  it.each([
    ["boolean", "boolean", false],
    ["int", "int32", false],
    [{ type: "int", logicalType: "time-millis" }, "int32", false],
    ["long", "int64", false],
    [{ type: "long", logicalType: "time-micros" }, "int64", false],
    ["float", "float64", false],
    ["double", "float64", false],
    ["string", "string", false],
    [{ type: "string", logicalType: "uuid" }, "string", false],
    [{ type: "enum", name: "E", symbols: ["A"] }, "string", false],
    ["bytes", "binary", false],
    [{ type: "fixed", name: "F", size: 3 }, "binary", false],
    [{ type: "fixed", name: "U", size: 16, logicalType: "uuid" }, "binary", false],
    [{ type: "fixed", name: "D", size: 12, logicalType: "duration" }, "binary", false],
    [{ type: "long", logicalType: "timestamp-millis" }, "timestamp", false],
    [{ type: "long", logicalType: "timestamp-micros" }, "timestamp", false],
    [{ type: "long", logicalType: "timestamp-nanos" }, "timestamp", false],
    [{ type: "long", logicalType: "local-timestamp-millis" }, "timestamp", false],
    [{ type: "long", logicalType: "local-timestamp-micros" }, "timestamp", false],
    [{ type: "int", logicalType: "date" }, "timestamp", false],
    [["null", "string"], "string", true],
    [["double", "null"], "float64", true],
    [["int", "long"], "int64", false],
    [["long", "null", "int"], "int64", true],
    [["float", "double"], "float64", false],
    // An invalid logical type is the underlying type.
    [{ type: "int", logicalType: "timestamp-millis" }, "int32", false],
  ])("%j reads as %s (nullable: %s)", (schema, type, nullable) => {
    expect(typeOf(schema)).toEqual({ type, nullable });
  });

  it.each([
    [{ type: "record", name: "com.acme.Address", fields: [] }, 'field "f" is an Avro record com.acme.Address, and Sluice has no struct columns yet: leave the field out of the columns read, and it is skipped'],
    [{ type: "array", items: "int" }, 'field "f" is an Avro array, and Sluice has no list columns yet: leave the field out of the columns read, and it is skipped'],
    [["null", { type: "map", values: "int" }], 'field "f" is an Avro map, and Sluice has no map columns yet: leave the field out of the columns read, and it is skipped'],
    [
      ["null", "int", "string"],
      'field "f" is an Avro union [null, int, string], which Sluice cannot read into one column (Spark reads such a union as a struct of member0, member1, ...); Sluice reads [null, T] in either order and the numeric unions [int, long] and [float, double]',
    ],
    [
      ["int", "double"],
      'field "f" is an Avro union [int, double], which Sluice cannot read into one column (Spark reads such a union as a struct of member0, member1, ...); Sluice reads [null, T] in either order and the numeric unions [int, long] and [float, double]',
    ],
    [["null"], 'field "f" is an Avro union [null], which holds only nulls; leave it out of the columns read'],
    ["null", 'field "f" is an Avro null, which holds no value; leave it out of the columns read'],
    [
      { type: "bytes", logicalType: "decimal", precision: 10, scale: 2 },
      "field \"f\" is an Avro decimal(10, 2) on bytes, and Sluice has no decimal type yet: declare the column as binary to read the unscaled big-endian two's-complement bytes",
    ],
    [{ type: "bytes", logicalType: "big-decimal" }, 'field "f" is an Avro big-decimal, and Sluice has no decimal type yet: declare the column as binary to read its bytes'],
  ])("%j is refused", (schema, message) => {
    expect(() => typeOf(schema)).toThrow(new AnalysisError(message));
  });

  it("fieldsOfAvroSchema gives a record's columns, and refuses other schemas", () => {
    const schema = parseAvroSchema({
      type: "record",
      name: "R",
      fields: [
        { name: "id", type: "long" },
        { name: "name", type: ["null", "string"] },
        { name: "at", type: { type: "long", logicalType: "timestamp-millis" } },
      ],
    });
    expect(fieldsOfAvroSchema(schema)).toEqual([field("id", "int64", false), field("name", "string", true), field("at", "timestamp", false)]);
    expect(() => fieldsOfAvroSchema(parseAvroSchema('"string"'))).toThrow(new AnalysisError("the Avro schema is a string, not a record: it has no fields to make columns of"));
  });
});

describe("Sluice columns as an Avro record schema", () => {
  const every: Field[] = [
    field("i", "int32", false),
    field("l", "int64"),
    field("f", "float64"),
    field("b", "boolean", false),
    field("s", "string"),
    field("y", "binary"),
    field("t", "timestamp"),
    field("w", "window", false),
  ];

  it("maps each type, nullable columns to [null, T] with default null, windows to records of two timestamps", () => {
    const millis = { type: "long", logicalType: "timestamp-millis" };
    expect(avroSchemaOfFields(every)).toEqual({
      type: "record",
      name: "topLevelRecord",
      fields: [
        { name: "i", type: "int" },
        { name: "l", type: ["null", "long"], default: null },
        { name: "f", type: ["null", "double"], default: null },
        { name: "b", type: "boolean" },
        { name: "s", type: ["null", "string"], default: null },
        { name: "y", type: ["null", "bytes"], default: null },
        { name: "t", type: ["null", millis], default: null },
        { name: "w", type: { type: "record", name: "w", namespace: "topLevelRecord", fields: [{ name: "start", type: millis }, { name: "end", type: millis }] } },
      ],
    });
    // The schema is valid Avro, and reads back as the same columns where Sluice reads the type.
    const parsed = parseAvroSchema(avroSchemaOfFields(every, { name: "Row", namespace: "com.acme" })) as AvroRecord;
    expect(fieldsOfAvroSchema({ ...parsed, fields: parsed.fields.slice(0, 7) })).toEqual(every.slice(0, 7));
  });

  it("takes a record name and namespace", () => {
    expect(avroSchemaOfFields([field("a", "int32", false)], { name: "Row", namespace: "com.acme" })).toEqual({ type: "record", name: "Row", namespace: "com.acme", fields: [{ name: "a", type: "int" }] });
  });

  it("refuses headers columns", () => {
    expect(() => avroSchemaOfFields([field("headers", "headers")])).toThrow(
      new AnalysisError('column "headers" has type headers, which Sluice does not write as Avro; drop it, or write headers with the Kafka sink\'s headers column'),
    );
  });

  it("refuses column names that are not Avro names", () => {
    expect(() => avroSchemaOfFields([field("count(1)", "int64")])).toThrow(
      new AnalysisError('column "count(1)" is not a valid Avro field name ([A-Za-z_][A-Za-z0-9_]*); rename it (alias or withColumnRenamed) before writing Avro'),
    );
  });
});
