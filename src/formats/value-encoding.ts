import type * as arrow from "apache-arrow";
import { binaryColumn, emptyBatch, type Batch } from "../batch/batch.js";
import { AnalysisError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import { avroSchemaOfFields, type AvroRecordNaming } from "./avro/avro-columns.js";
import { encodeAvroValues } from "./avro/avro-encode.js";
import type { ProtoMessage } from "./protobuf/proto-descriptor.js";
import { encodeProtobufValues } from "./protobuf/protobuf-encode.js";

/**
 * How rows become binary values, as Spark's `to_avro` and `to_protobuf`: plain data that travels to
 * workers with a task. The Confluent wire format's header is added when a registry id is given.
 */
export type ValueEncoding =
  | {
      readonly kind: "avro";
      readonly naming: AvroRecordNaming;
      /** false: the value of a single column, in that column's own Avro type (Spark's to_avro of a column that is not a struct). */
      readonly record: boolean;
    }
  | {
      readonly kind: "protobuf";
      readonly message: ProtoMessage;
      /** The message's indexes in its schema, for the Confluent header. */
      readonly messageIndexes: readonly number[];
    };

/** Each row of `batch` as one value; with `schemaId`, behind the Confluent wire-format header. */
export function encodeFormattedValues(encoding: ValueEncoding, batch: Batch, schemaId: number | undefined): arrow.Data<arrow.Binary> {
  const { offsets, bytes } =
    encoding.kind === "avro"
      ? // A record's binary form is its fields' forms one after the other, so a lone column's value is a one-field record's.
        encodeAvroValues(batch, schemaId === undefined ? {} : { schemaId })
      : encodeProtobufValues(batch, encoding.message, schemaId === undefined ? {} : { confluent: { schemaId, messageIndexes: encoding.messageIndexes } });
  return binaryColumn(offsets, bytes);
}

/** The Avro schema (JSON) that `encodeFormattedValues` writes rows of `fields` in: a record, or a lone column's own type. */
export function avroWriterSchemaOf(encoding: Extract<ValueEncoding, { kind: "avro" }>, fields: Fields): unknown {
  const record = avroSchemaOfFields(fields, encoding.naming) as { fields: { type: unknown }[] };
  return encoding.record ? record : record.fields[0]!.type;
}

/** Checks that rows of `fields` can be encoded (names, types, the message's fields) before anything runs: the encoders' own checks, on no rows. */
export function checkValueEncoding(encoding: ValueEncoding, fields: Fields, fn: string): void {
  try {
    encodeFormattedValues(encoding, emptyBatch(fields), undefined);
  } catch (e) {
    if (e instanceof AnalysisError) throw new AnalysisError(`${fn}: ${e.message}`, { cause: e });
    throw e;
  }
}
