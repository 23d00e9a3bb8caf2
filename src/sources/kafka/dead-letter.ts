import type { Producer } from "kafkajs";
import { type Batch, readNumbers, readString } from "../../batch/batch.js";
import { SluiceError } from "../../errors/errors.js";
import { kafkaClientConfig, type KafkaConnectionOptions } from "./kafka-cluster.js";
import { loadKafkajs } from "./kafkajs.js";

const producers = new Map<string, Promise<Producer>>();

function producerFor(c: KafkaConnectionOptions): Promise<Producer> {
  const key = JSON.stringify([c.bootstrapServers, c.security]);
  let p = producers.get(key);
  if (!p) {
    p = kafkaClientConfig(c, `${c.clientId}-dead-letter`).then(async (config) => {
      const { Kafka } = await loadKafkajs();
      const producer = new Kafka(config).producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      return producer;
    });
    producers.set(key, p);
    p.catch(() => producers.delete(key));
  }
  return p;
}

/**
 * Writes malformed records, key and value unchanged, to a dead-letter topic, with headers that
 * say where each came from. The batch waits for the write: a record is never dropped silently.
 */
export async function sendToDeadLetterTopic(
  connection: KafkaConnectionOptions,
  topic: string,
  raw: Batch,
  rows: Int32Array,
  where: { topic: string; partition: number },
): Promise<void> {
  const col = (name: string) => raw.columns[raw.fields.findIndex((f) => f.name === name)]!;
  const key = col("key");
  const value = col("value");
  const offsets = readNumbers(col("offset"));
  const messages = Array.from(rows, (i) => ({
    key: readString(key, i),
    value: readString(value, i),
    headers: { "sluice.source.topic": where.topic, "sluice.source.partition": String(where.partition), "sluice.source.offset": String(offsets[i]) },
  }));
  try {
    const producer = await producerFor(connection);
    await producer.send({ topic, messages, acks: -1 });
  } catch (e) {
    throw new SluiceError(`cannot write ${rows.length} malformed record(s) to dead-letter topic ${topic}: ${(e as Error).message}`, { cause: e });
  }
}
