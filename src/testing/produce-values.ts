// Writing encoded values (Avro, Protobuf, raw bytes) to the test broker, one record per value, in order, for
// tests of the Kafka source's value formats.
import { Partitioners } from "kafkajs";
import { rowsToBatch } from "../batch/rows.js";
import type { EncodedValues } from "../formats/protobuf/protobuf-encode.js";
import type { Fields } from "../types/dtype.js";
import { createTopic, kafkaClient } from "./kafka.js";

/** Each encoded row's bytes as a value of its own. */
export function valuesOf(encoded: EncodedValues): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i + 1 < encoded.offsets.length; i++) out.push(encoded.bytes.slice(encoded.offsets[i]!, encoded.offsets[i + 1]!));
  return out;
}

/** Rows encoded by `encode` (encodeAvroValues, encodeProtobufValues) as one value per row. */
export function encodeRows(rows: readonly Record<string, unknown>[], fields: Fields, encode: (batch: ReturnType<typeof rowsToBatch>) => EncodedValues): Uint8Array[] {
  return valuesOf(encode(rowsToBatch(rows, fields)));
}

/** Writes `values` to partition 0 of `topic`, in order (an idempotent producer: no duplicates on retry). */
export async function produceValues(topic: string, values: readonly (Uint8Array | null)[]): Promise<void> {
  const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    await producer.send({ topic, messages: values.map((value) => ({ partition: 0, value: value === null ? null : Buffer.from(value.buffer, value.byteOffset, value.byteLength) })) });
  } finally {
    await producer.disconnect();
  }
}

/** A value in the Confluent wire format naming schema `id`, for a schema the registry does not have. */
export function framedWithId(id: number, payload: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(5 + payload.length);
  new DataView(bytes.buffer).setUint32(1, id);
  bytes.set(payload, 5);
  return bytes;
}

/** A new one-partition topic (named after `base`, added to `created` for the test's cleanup) holding `values`. */
export async function topicHolding(base: string, values: readonly (Uint8Array | null)[], created: string[]): Promise<string> {
  const topic = await createTopic(base, 1);
  created.push(topic);
  await produceValues(topic, values);
  return topic;
}
