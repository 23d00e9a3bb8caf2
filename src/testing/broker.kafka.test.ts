// The test broker itself, through kafkajs 2.2.4: Kafka 4 dropped old protocol versions (KIP-896), so this
// checks the calls Sluice relies on (produce, idempotence, compression, transactions, list offsets, groups,
// offset commit and fetch) against the real broker.
import { afterAll, describe, expect, it, vi } from "vitest";
import { CompressionTypes, Partitioners, type Consumer, type KafkaMessage } from "kafkajs";
import { createTopic, deleteTopic, kafkaClient, uniqueTopicName, withAdmin } from "./kafka.js";

const topics: string[] = [];
afterAll(async () => {
  if (topics.length > 0) await deleteTopic(...topics);
});

interface Received {
  partition: number;
  offset: number;
  value: string;
}

/** Runs `consumer` on `topic` from the beginning until `done(received)` holds, then stops it. */
async function consumeUntil(
  consumer: Consumer,
  topic: string,
  done: (received: readonly Received[]) => boolean,
): Promise<Received[]> {
  const received: Received[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer.on(consumer.events.CRASH, (event) => reject(event.payload.error));
    consumer
      .run({
        eachMessage: async ({ partition, message }: { partition: number; message: KafkaMessage }) => {
          received.push({ partition, offset: Number(message.offset), value: message.value?.toString() ?? "" });
          if (done(received)) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return received;
}

describe("the test broker (Kafka 4.x) with kafkajs 2.2.4", () => {
  it("takes 1,000 idempotent, half gzip-compressed messages on 4 partitions and serves them to a group", async () => {
    const topic = await createTopic("broker-basics", 4);
    topics.push(topic);
    const kafka = kafkaClient("broker-basics");

    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const messages = Array.from({ length: 1000 }, (_, i) => ({ partition: i % 4, key: `k${i}`, value: `v${i}` }));
    await producer.send({ topic, compression: CompressionTypes.GZIP, messages: messages.slice(0, 500) });
    await producer.send({ topic, compression: CompressionTypes.None, messages: messages.slice(500) });
    await producer.disconnect();

    const offsets = await withAdmin((admin) => admin.fetchTopicOffsets(topic));
    expect(offsets.map(({ partition, low, high }) => ({ partition, low, high })).sort((a, b) => a.partition - b.partition))
      .toEqual([0, 1, 2, 3].map((partition) => ({ partition, low: "0", high: "250" })));

    const groupId = uniqueTopicName("broker-basics-group");
    const received = await consumeUntil(
      kafka.consumer({ groupId, readUncommitted: false }),
      topic,
      (r) => r.length >= 1000,
    );
    expect(received).toHaveLength(1000);
    for (const partition of [0, 1, 2, 3]) {
      const own = received.filter((r) => r.partition === partition);
      // Each partition holds every fourth message, in order, at offsets 0..249.
      expect(own.map((r) => r.offset)).toEqual(Array.from({ length: 250 }, (_, i) => i));
      expect(own.map((r) => r.value)).toEqual(Array.from({ length: 250 }, (_, i) => `v${i * 4 + partition}`));
    }

    // The group committed its position at the end of every partition.
    const committed = await withAdmin((admin) => admin.fetchOffsets({ groupId, topics: [topic] }));
    expect(committed[0].partitions.map(({ partition, offset }) => ({ partition, offset })).sort((a, b) => a.partition - b.partition))
      .toEqual([0, 1, 2, 3].map((partition) => ({ partition, offset: "250" })));
  });

  it("shows a read_committed consumer only the committed transaction", async () => {
    const topic = await createTopic("broker-transactions", 1);
    topics.push(topic);
    const kafka = kafkaClient("broker-transactions");

    const producer = kafka.producer({
      transactionalId: uniqueTopicName("broker-transactions-producer"),
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [{ value: "aborted-1" }, { value: "aborted-2" }] });
    await aborted.abort();
    const committed = await producer.transaction();
    await committed.send({ topic, compression: CompressionTypes.GZIP, messages: [{ value: "committed-1" }, { value: "committed-2" }] });
    await committed.commit();
    await producer.disconnect();

    // Two aborted records, the abort marker, two committed records, the commit marker. The
    // coordinator acknowledges the commit once it has logged it, and writes the markers to the
    // partition after: until then the offsets stop at the open transaction (3). Bounded wait.
    await vi.waitFor(
      async () => {
        const offsets = await withAdmin((admin) => admin.fetchTopicOffsets(topic));
        expect(offsets).toEqual([expect.objectContaining({ partition: 0, low: "0", high: "6" })]);
      },
      { timeout: 10_000, interval: 50 },
    );

    // Records come in log order, so the aborted ones would arrive before the last committed one.
    const received = await consumeUntil(
      kafka.consumer({ groupId: uniqueTopicName("broker-transactions-group"), readUncommitted: false }),
      topic,
      (r) => r.some((m) => m.value === "committed-2"),
    );
    expect(received).toEqual([
      { partition: 0, offset: 3, value: "committed-1" },
      { partition: 0, offset: 4, value: "committed-2" },
    ]);
  });
});
