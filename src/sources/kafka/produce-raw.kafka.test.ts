import { afterAll, describe, expect, it } from "vitest";
import { createTopic, deleteTopic, kafkaBootstrap, withAdmin } from "../../testing/kafka.js";
import { connection } from "../../testing/kafka-load.js";
import { fetchPartitionRaw } from "./fetch-raw.js";
import { clusterFor } from "./kafka-cluster.js";
import { ProduceError, produceRaw } from "./produce-raw.js";
import { encodeRecordBatch } from "./record-batch/encode.js";
import { decode } from "./record-batch/test-support.js";

const topics: string[] = [];
afterAll(async () => {
  const alive = await withAdmin((a) => a.listTopics());
  const mine = topics.filter((t) => alive.includes(t));
  if (mine.length) await deleteTopic(...mine);
});

async function newTopic(partitions: number): Promise<string> {
  const topic = await createTopic("produce-raw", partitions);
  topics.push(topic);
  return topic;
}

const T0 = 1714521600000;
const records = (...values: string[]) => values.map((value) => ({ key: null, value, timestamp: T0 }));

async function leaderOf(topic: string) {
  const cluster = await clusterFor(connection(kafkaBootstrap()));
  await cluster.addMultipleTargetTopics([topic]);
  return { cluster, broker: await cluster.findBroker({ nodeId: cluster.findTopicPartitionMetadata(topic)[0]!.leader }) };
}

/**
 * The partition's values from offset 0, once `count` are readable: a fetch right after a produce
 * can come before the leader's high watermark has moved past the new records (within 10 s).
 */
async function values(topic: string, partition: number, count: number): Promise<(string | null)[]> {
  const cluster = await clusterFor(connection(kafkaBootstrap()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const got = await fetchPartitionRaw(cluster, { topic, partition, offset: 0, maxBytes: 1 << 20, isolationLevel: 0 });
    const rows = decode(got.records, { topic, partition }).rows.map((r) => r.value);
    if (rows.length >= count || Date.now() > deadline) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * An idempotent producer id. A broker that has just started answers COORDINATOR_LOAD_IN_PROGRESS
 * while it loads the transaction log, as Kafka's producers expect: ask again (within 30 s).
 */
async function idempotentProducerId(cluster: Awaited<ReturnType<typeof clusterFor>>): Promise<{ producerId: string; producerEpoch: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await (await cluster.findControllerBroker()).initProducerId({ transactionTimeout: 60_000 });
    } catch (e) {
      if ((e as { retriable?: boolean }).retriable !== true || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe("produceRaw against the real broker", () => {
  it("appends one batch per partition for several partitions in one request and returns each base offset", async () => {
    const topic = await newTopic(3);
    const { broker } = await leaderOf(topic);
    const first = await produceRaw(broker, [0, 1, 2].map((p) => ({ topic, partition: p, batch: encodeRecordBatch(records(`a${p}`, `b${p}`)) })));
    const second = await produceRaw(broker, [{ topic, partition: 1, batch: encodeRecordBatch(records("c1")) }]);
    expect([...first].sort((x, y) => x.partition - y.partition)).toEqual([0, 1, 2].map((p) => ({ topic, partition: p, errorCode: 0, baseOffset: 0 })));
    expect(second).toEqual([{ topic, partition: 1, errorCode: 0, baseOffset: 2 }]);
    expect([await values(topic, 0, 2), await values(topic, 1, 3), await values(topic, 2, 2)]).toEqual([
      ["a0", "b0"],
      ["a1", "b1", "c1"],
      ["a2", "b2"],
    ]);
  });

  it("an idempotent batch sent again (same producer id and sequence) is written once; the next sequence appends", async () => {
    const topic = await newTopic(1);
    const { cluster, broker } = await leaderOf(topic);
    const { producerId, producerEpoch } = await idempotentProducerId(cluster);
    const producer = { producerId: BigInt(producerId), producerEpoch };
    const batch = encodeRecordBatch(records("x", "y", "z"), { producer, baseSequence: 0 });
    const sent = await produceRaw(broker, [{ topic, partition: 0, batch }]);
    const again = await produceRaw(broker, [{ topic, partition: 0, batch }]);
    const next = await produceRaw(broker, [{ topic, partition: 0, batch: encodeRecordBatch(records("w"), { producer, baseSequence: 3 }) }]);
    expect([sent[0]!.baseOffset, again[0]!.baseOffset, next[0]!.baseOffset]).toEqual([0, 0, 3]);
    expect(await values(topic, 0, 4)).toEqual(["x", "y", "z", "w"]);
  });

  it("a failed partition raises ProduceError naming topic-partition and Kafka's error name, with every partition's result", async () => {
    const topic = await newTopic(1);
    const { broker } = await leaderOf(topic);
    const request = produceRaw(broker, [
      { topic, partition: 0, batch: encodeRecordBatch(records("ok")) },
      { topic, partition: 5, batch: encodeRecordBatch(records("nowhere")) },
    ]);
    const error = await request.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProduceError);
    expect((error as ProduceError).message).toBe(
      `produce to Kafka failed: ${topic}-5: UNKNOWN_TOPIC_OR_PARTITION (This server does not host this topic-partition)`,
    );
    expect([...(error as ProduceError).results].sort((x, y) => x.partition - y.partition)).toEqual([
      { topic, partition: 0, errorCode: 0, baseOffset: 0 },
      { topic, partition: 5, errorCode: 3, baseOffset: -1 },
    ]);
    expect(await values(topic, 0, 1)).toEqual(["ok"]);
  });
});
