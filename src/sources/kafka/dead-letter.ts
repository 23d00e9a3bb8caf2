import type * as arrow from "apache-arrow";
import { type Batch, field, makeBatch, readNumbers } from "../../batch/batch.js";
import { SluiceError } from "../../errors/errors.js";
import { gatherColumn } from "../../kernels/gather.js";
import { headersColumn, headersOf, type HeadersView, nullBitsOf } from "../../kernels/headers.js";
import { encodeUtf8, Utf8Builder } from "../../kernels/utf8.js";
import { KafkaSink } from "../../sinks/kafka-sink.js";
import type { KafkaConnectionOptions } from "./kafka-cluster.js";

/**
 * Malformed records written to a dead-letter topic as they came: key, value and headers are the
 * record's own bytes (Binary columns and the headers column, copied without decoding), followed by
 * headers that say where each came from. The write goes through the Kafka sink (idempotent
 * producer, murmur2 partitioning of the key as Java clients do), one per thread and topic; the
 * batch waits for it, so a record is never dropped silently.
 */

const sinks = new Map<string, KafkaSink>();

function sinkFor(connection: KafkaConnectionOptions, topic: string): KafkaSink {
  const key = JSON.stringify([connection.bootstrapServers, connection.security, topic]);
  let sink = sinks.get(key);
  if (!sink) {
    sink = new KafkaSink({ bootstrapServers: connection.bootstrapServers, topic, clientId: `${connection.clientId}-dead-letter`, resolvedSecurity: connection.security });
    sinks.set(key, sink);
  }
  return sink;
}

/** Header keys naming a dead letter's origin, as UTF-8. */
const SOURCE_TOPIC = encodeUtf8("sluice.source.topic");
const SOURCE_PARTITION = encodeUtf8("sluice.source.partition");
const SOURCE_OFFSET = encodeUtf8("sluice.source.offset");

/**
 * `raw` holds Spark's Kafka columns, and `headers` whenever a dead-letter topic is set (the fetch
 * path decodes them for it). `rows` are the malformed records' rows.
 */
export async function sendToDeadLetterTopic(connection: KafkaConnectionOptions, topic: string, raw: Batch, rows: Int32Array, where: { topic: string; partition: number }): Promise<void> {
  const col = (name: string) => {
    const i = raw.fields.findIndex((f) => f.name === name);
    return i < 0 ? null : raw.columns[i]!;
  };
  const offsets = readNumbers(col("offset")!);
  const original = col("headers");
  const headers = withOrigin(original === null ? null : headersOf(original), rows, (i) => [encodeUtf8(where.topic), encodeUtf8(String(where.partition)), encodeUtf8(String(offsets[i]))]);
  const letters = makeBatch(
    [field("key", "binary"), field("value", "binary"), field("headers", "headers")],
    [gatherColumn(col("key")!, rows), gatherColumn(col("value")!, rows), headers],
    rows.length,
  );
  try {
    await sinkFor(connection, topic).addBatch(0, letters);
  } catch (e) {
    throw new SluiceError(`cannot write ${rows.length} malformed record(s) to dead-letter topic ${topic}: ${(e as Error).message}`, { cause: e });
  }
}

/** Each row's own headers (none when `original` is null), then the three headers naming its origin. */
function withOrigin(original: HeadersView | null, rows: Int32Array, origin: (row: number) => Uint8Array[]): arrow.Data {
  const n = rows.length;
  const own = (i: number) => (original === null ? 0 : original.offsets[i + 1]! - original.offsets[i]!);
  const offsets = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) offsets[j + 1] = offsets[j]! + own(rows[j]!) + 3;
  const entries = offsets[n]!;
  const keys = new Utf8Builder(entries);
  const values = new Utf8Builder(entries);
  const valueValid = new Uint8Array(entries).fill(1);
  for (let j = 0; j < n; j++) {
    const i = rows[j]!;
    if (original !== null) {
      const { keys: k, values: v, valueValid: has } = original;
      for (let e = original.offsets[i]!; e < original.offsets[i + 1]!; e++) {
        keys.appendRange(k.bytes, k.offsets[e]!, k.offsets[e + 1]!);
        if (has === null || has[e]) values.appendRange(v.bytes, v.offsets[e]!, v.offsets[e + 1]!);
        else {
          values.endRow();
          valueValid[offsets[j]! + e - original.offsets[i]!] = 0;
        }
      }
    }
    const [t, p, o] = origin(i);
    for (const [key, value] of [
      [SOURCE_TOPIC, t!],
      [SOURCE_PARTITION, p!],
      [SOURCE_OFFSET, o!],
    ] as const) {
      keys.appendRange(key, 0, key.length);
      values.appendRange(value, 0, value.length);
    }
  }
  const key = keys.finish();
  const value = values.finish();
  return headersColumn({
    length: n,
    offsets,
    rowNulls: null,
    keyOffsets: key.offsets,
    keyBytes: key.bytes,
    valueOffsets: value.offsets,
    valueBytes: value.bytes,
    valueNulls: nullBitsOf(valueValid, entries),
  });
}
