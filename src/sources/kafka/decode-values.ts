import { type Batch, makeBatch, readNumbers, readValidity } from "../../batch/batch.js";
import { decodeFormattedValues } from "../../formats/value-format.js";
import { gatherColumn } from "../../kernels/gather.js";
import type { KafkaValueDecoding } from "./kafka-split.js";
import { sendToDeadLetterTopic } from "./dead-letter.js";
import type { KafkaConnectionOptions } from "./kafka-cluster.js";
import { batchWriterSchemas } from "./value-writer-schemas.js";

/**
 * Turns a batch of raw Kafka columns into the record schema's columns followed by Kafka's
 * metadata columns, decoding each value (JSON, Avro or Protobuf, Confluent-framed or plain) straight
 * from the value column's bytes. Malformed values follow the source's `mode`, and with a dead-letter
 * topic are also written there as they came, with headers naming where they were read. `raw` may
 * hold headers for the dead letters alone: they are kept only with `includeHeaders`.
 */
export async function decodeKafkaValues(
  raw: Batch,
  decoding: KafkaValueDecoding,
  connection: KafkaConnectionOptions,
  where: { topic: string; partition: number },
  includeHeaders: boolean,
): Promise<{ batch: Batch; numMalformed: number }> {
  const valueIndex = raw.fields.findIndex((f) => f.name === "value");
  const value = raw.columns[valueIndex]!;
  const column = { bytes: value.values as Uint8Array, offsets: value.valueOffsets as Int32Array, validity: readValidity(value) };
  // Read only when a record is described (a malformed one), not for every batch.
  let offsets: Float64Array | null = null;
  const offsetOf = (i: number) => (offsets ??= readNumbers(raw.columns[raw.fields.findIndex((f) => f.name === "offset")]!))[i];
  const format = decoding.format;
  const writerSchemas = await batchWriterSchemas(decoding, column);
  const result = decodeFormattedValues(format, column, decoding.fields, {
    mode: decoding.mode,
    // Avro has no corrupt-record column, as Spark's from_avro.
    columnNameOfCorruptRecord: format.kind === "avro" ? undefined : decoding.columnNameOfCorruptRecord,
    describeRecord: (i) => `topic ${where.topic} partition ${where.partition} offset ${offsetOf(i)}`,
    writerSchemas,
  });
  if (decoding.deadLetterTopic && result.malformedRows.length > 0) {
    await sendToDeadLetterTopic(connection, decoding.deadLetterTopic, raw, result.malformedRows, where);
  }
  const keepAll = result.keptRows.length === raw.numRows;
  const meta = raw.fields.flatMap((f, i) => (i === valueIndex || (f.name === "headers" && !includeHeaders) ? [] : [i]));
  const metaFields = meta.map((i) => raw.fields[i]!);
  const metaColumns = meta.map((i) => (keepAll ? raw.columns[i]! : gatherColumn(raw.columns[i]!, result.keptRows)));
  return {
    batch: makeBatch([...result.batch.fields, ...metaFields], [...result.batch.columns, ...metaColumns], result.batch.numRows),
    numMalformed: result.numMalformed,
  };
}
