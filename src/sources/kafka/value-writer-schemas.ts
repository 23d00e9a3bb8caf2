import { InternalError } from "../../errors/errors.js";
import { usesSchemaIds, writerSchemaIds, type WriterSchemasById } from "../../formats/value-format.js";
import type { ValueColumn } from "../../formats/value-records.js";
import { writerSchemaFetcher } from "../../schema-registry/writer-schemas.js";
import type { KafkaValueDecoding } from "./kafka-split.js";

/**
 * For values in the Confluent wire format, the writer schemas of the ids the batch's values name,
 * from the schema registry through the worker thread's fetcher (each id is asked for once per
 * thread); undefined for plain values. An id the registry does not know is left out, so its records
 * are malformed and the message names the registry; a registry that cannot be reached fails the task
 * with the client's SchemaRegistryError, after its retries, and the worker pool retries the task.
 */
export async function batchWriterSchemas(decoding: KafkaValueDecoding, column: ValueColumn): Promise<WriterSchemasById | undefined> {
  const format = decoding.format;
  if (!usesSchemaIds(format)) return undefined;
  if (decoding.registry === null) throw new InternalError(`${format.kind} values in the Confluent wire format are decoded without a schema registry`);
  return writerSchemaFetcher(decoding.registry).fetch(format.kind === "avro" ? "avro" : "protobuf", writerSchemaIds(format, column));
}
