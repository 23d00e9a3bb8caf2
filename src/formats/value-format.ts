import { AnalysisError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import { decodeAvroValues, schemaIdsIn as avroSchemaIds } from "./avro/avro-values.js";
import type { AvroSchema } from "./avro/avro-schema-types.js";
import { decodeJsonValues, type JsonValuesResult } from "./json-values.js";
import { schemaIdsIn as protobufSchemaIds } from "./protobuf/confluent-framing.js";
import type { ProtoMessage, ProtoSchema } from "./protobuf/proto-descriptor.js";
import { decodeProtobufValues } from "./protobuf/protobuf-values.js";
import type { ReadMode } from "./read-mode.js";
import type { ValueColumn } from "./value-records.js";

/**
 * How a column of values (a Kafka value, a binary or string column) is encoded, as plain data that
 * travels to workers with a task: JSON text, Avro binary or Protobuf, each optionally in the
 * Confluent wire format (magic byte, schema id), whose writer schemas come from a schema registry
 * by id. One decoder entry point serves the Kafka source's fetch path and the from_json /
 * from_avro / from_protobuf functions, so their modes and messages agree.
 */
export type ValueFormat =
  | { readonly kind: "json" }
  | {
      readonly kind: "avro";
      /**
       * The reader's record schema: defaults, aliases and enum symbols for resolution. Null: the
       * columns alone are the reader, matched to the writer record's fields by name, whatever the
       * record is called (a nullable column the writer lacks reads as null).
       */
      readonly readerSchema: AvroSchema | null;
      /** Every value is a plain datum of this schema; null: the Confluent wire format, writer schemas by id. */
      readonly writerSchema: AvroSchema | null;
    }
  | {
      readonly kind: "protobuf";
      readonly message: ProtoMessage;
      /** Values are in the Confluent wire format (schema id and message indexes first). */
      readonly confluent: boolean;
      readonly emitDefaultValues: boolean;
      readonly enumsAsInts: boolean;
      readonly upcastUnsignedInts: boolean;
    };

/** Writer schemas by registry id: Avro schemas for an Avro format, Protobuf schemas for a Protobuf one. */
export type WriterSchemasById = ReadonlyMap<number, AvroSchema | ProtoSchema>;

/** The format's name in messages and options: "json", "avro" or "protobuf". */
export type ValueFormatName = ValueFormat["kind"];

export interface FormattedValuesOptions {
  readonly mode: ReadMode;
  /** How a FAILFAST message names record i, such as "topic t partition 0 offset 42". */
  readonly describeRecord: (i: number) => string;
  /**
   * The column that keeps a malformed record in PERMISSIVE mode, where `fields` has it: its text
   * (a string column) for JSON, its bytes (a binary column) for Protobuf. Avro has none, as Spark's
   * from_avro.
   */
  readonly columnNameOfCorruptRecord?: string;
  /** The writer schemas of the ids the column holds (`writerSchemaIds`), for the Confluent wire format. */
  readonly writerSchemas?: WriterSchemasById;
}

/** Whether values carry a registry schema id, so that writer schemas must be fetched before decoding. */
export function usesSchemaIds(format: ValueFormat): boolean {
  return (format.kind === "avro" && format.writerSchema === null) || (format.kind === "protobuf" && format.confluent);
}

/** The registry ids of the writer schemas a column's values name, in the order first met; none unless `usesSchemaIds`. */
export function writerSchemaIds(format: ValueFormat, column: ValueColumn): number[] {
  if (!usesSchemaIds(format)) return [];
  return format.kind === "avro" ? [...avroSchemaIds(column.bytes, column.offsets, column.validity)] : protobufSchemaIds(column.bytes, column.offsets, column.validity);
}

/**
 * The column's values decoded into `fields`, with the bad-record `mode`. A value whose schema id is
 * not among `writerSchemas` is malformed (the registry did not know it).
 */
export function decodeFormattedValues(format: ValueFormat, column: ValueColumn, fields: Fields, options: FormattedValuesOptions): JsonValuesResult {
  const { bytes, offsets, validity } = column;
  switch (format.kind) {
    case "json":
      return decodeJsonValues(bytes, offsets, validity, fields, {
        mode: options.mode,
        columnNameOfCorruptRecord: options.columnNameOfCorruptRecord ?? "_corrupt_record",
        describeRecord: options.describeRecord,
      });
    case "avro":
      return decodeAvroValues(bytes, offsets, validity, fields, {
        mode: options.mode,
        ...(format.readerSchema === null ? {} : { readerSchema: format.readerSchema }),
        writer:
          format.writerSchema === null
            ? { framing: "confluent", schemas: (options.writerSchemas ?? new Map()) as ReadonlyMap<number, AvroSchema> }
            : { framing: "plain", schema: format.writerSchema },
        describeRecord: options.describeRecord,
      });
    case "protobuf":
      return decodeProtobufValues(bytes, offsets, validity, fields, {
        message: format.message,
        mode: options.mode,
        describeRecord: options.describeRecord,
        columnNameOfCorruptRecord: options.columnNameOfCorruptRecord,
        emitDefaultValues: format.emitDefaultValues,
        enumsAsInts: format.enumsAsInts,
        upcastUnsignedInts: format.upcastUnsignedInts,
        ...(format.confluent ? { confluent: { writerSchemas: (options.writerSchemas ?? new Map()) as ReadonlyMap<number, ProtoSchema> } } : {}),
      });
  }
}

const NO_VALUES: ValueColumn = { bytes: new Uint8Array(0), offsets: new Int32Array(1), validity: null };

/**
 * Checks that `fields` can be read from values of `format`, so that a wrong declaration fails when the
 * query is defined rather than on its first record: the decoders' own checks, run on no values (each
 * column names a field of the schema and has the type that field reads as; the corrupt-record column
 * is a nullable binary one for Protobuf). Values in the Confluent wire format are checked against the
 * reader's schema, their writer schemas coming with the records; Avro read by the columns alone has
 * nothing to check before then. The AnalysisError keeps the decoder's words, which name the column,
 * after `where`.
 */
export function checkValueFormat(format: ValueFormat, fields: Fields, where: string, columnNameOfCorruptRecord?: string): void {
  let checked = format;
  if (format.kind === "avro" && format.writerSchema === null) {
    if (format.readerSchema === null) return;
    checked = { ...format, writerSchema: format.readerSchema };
  } else if (format.kind === "protobuf") checked = { ...format, confluent: false };
  try {
    decodeFormattedValues(checked, NO_VALUES, fields, { mode: "FAILFAST", describeRecord: (i) => `record ${i}`, columnNameOfCorruptRecord });
  } catch (e) {
    if (e instanceof AnalysisError) throw new AnalysisError(`${where}: ${e.message}`, { cause: e });
    throw e;
  }
}
