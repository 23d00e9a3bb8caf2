import { InternalError } from "../../errors/errors.js";
import { readerSchemaOfColumns } from "../../formats/avro/columns-reader-schema.js";
import type { AvroSchema } from "../../formats/avro/avro-schema-types.js";
import { usesSchemaIds, writerSchemaIds, type ValueFormat, type WriterSchemasById } from "../../formats/value-format.js";
import type { ValueColumn } from "../../formats/value-records.js";
import { WriterSchemasFrom } from "../../formats/writer-schema-source.js";
import { writerSchemaFetcher } from "../../schema-registry/writer-schemas.js";
import type { KafkaValueDecoding } from "./kafka-split.js";

/** What a task decodes one batch of values with: the format, and the writer schemas its values name. */
export interface BatchDecoding {
  readonly format: ValueFormat;
  readonly writerSchemas: WriterSchemasById | undefined;
}

/**
 * For values in the Confluent wire format, the writer schemas of the ids the batch's values name,
 * from the schema registry through the worker thread's fetcher (each id is asked for once per
 * thread). An id the registry does not know is left out, so its records are malformed, and the
 * message names the registry; a registry that cannot be reached fails the task with the client's
 * SchemaRegistryError, after its retries, and the worker pool retries the task. Avro read with the
 * columns' own reader schema gets one named after the batch's writer records.
 */
export async function batchDecoding(decoding: KafkaValueDecoding, column: ValueColumn): Promise<BatchDecoding> {
  const format = decoding.format;
  if (!usesSchemaIds(format)) return { format, writerSchemas: undefined };
  if (decoding.registry === null) throw new InternalError(`${format.kind} values in the Confluent wire format are decoded without a schema registry`);
  const fetcher = writerSchemaFetcher(decoding.registry);
  const ids = writerSchemaIds(format, column);
  const writerSchemas = new WriterSchemasFrom(await fetcher.fetch(format.kind === "avro" ? "avro" : "protobuf", ids), `the schema registry at ${fetcher.client.url}`);
  if (format.kind !== "avro" || !decoding.readerSchemaOfColumns) return { format, writerSchemas };
  const readerSchema = readerSchemaOfColumns(decoding.fields, writerSchemas.values() as Iterable<AvroSchema>);
  return { format: { ...format, readerSchema }, writerSchemas };
}
