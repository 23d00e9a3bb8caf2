import { CompressionCodecs, CompressionTypes, Partitioners } from "kafkajs";
import { compressionCode, compressRecords, decompressRecords } from "./record-batch/compression.js";
import { afterAll, describe, expect, it } from "vitest";
import { col, count } from "../../api/functions.js";
import { withSession } from "../../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap, kafkaClient } from "../../testing/kafka.js";

const topics: string[] = [];
afterAll(async () => {
  if (topics.length) await deleteTopic(...topics);
});

async function topicWith(partitions: number, messages: { partition: number; key: string | null; value: string }[], compression = CompressionTypes.None) {
  const topic = await createTopic("sluice-src", partitions);
  topics.push(topic);
  const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic, compression, messages: messages.map((m) => ({ partition: m.partition, key: m.key, value: m.value })) });
  await producer.disconnect();
  return topic;
}

/** A binary Kafka column as text, under its own name: Spark's `CAST(value AS STRING)`. */
const text = <N extends "key" | "value">(name: N) => col(name).cast("string").alias(name);
const utf8 = (s: string) => new TextEncoder().encode(s);

const source = (session: Parameters<Parameters<typeof withSession>[1]>[0], topic: string, extra: Record<string, string | number | boolean> = {}) =>
  session.readStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).option("startingOffsets", "earliest").options(extra).load();

describe("Kafka source against the real broker", () => {
  it("reads every record once, with Spark's columns, in batches capped by maxOffsetsPerTrigger", () =>
    withSession(2, async (session) => {
      const messages = Array.from({ length: 400 }, (_, i) => ({ partition: i % 4, key: i % 2 ? `k${i}` : null, value: `{"n":${i}}` }));
      const topic = await topicWith(4, messages);
      const seen: { value: Uint8Array | null; key: Uint8Array | null; partition: number; offset: number }[] = [];
      const q = source(session, topic, { maxOffsetsPerTrigger: 150 })
        .select("key", "value", "partition", "offset")
        .writeStream.foreachBatch(async (df) => {
          seen.push(...(await df.collect()));
        })
        .trigger({ availableNow: true })
        .start();
      await q.awaitTermination();
      expect(seen).toHaveLength(400);
      expect(new Set(seen.map((r) => new TextDecoder().decode(r.value!))).size).toBe(400);
      // 150 shared by backlog: floor(150 * 100 / 400) = 37 per partition, as Spark prorates.
      expect(q.recentProgress.map((p) => p.numInputRows)).toEqual([148, 148, 104]);
      // The first batch ended at 37 per partition, while each partition held 100.
      expect(q.recentProgress[0]!.sources[0]!.latestOffset).toEqual({ [topic]: { "0": 100, "1": 100, "2": 100, "3": 100 } });
      expect(q.recentProgress[0]!.sources[0]!.metrics).toMatchObject({ minOffsetsBehindLatest: "63", maxOffsetsBehindLatest: "63", avgOffsetsBehindLatest: "63" });
      // key and value are binary, as in Spark: the record's bytes.
      const first = seen.find((r) => r.offset === 1 && r.partition === 1)!;
      expect(first).toEqual({ key: utf8("k5"), value: utf8('{"n":5}'), partition: 1, offset: 1 });
      expect(q.lastProgress!.sources[0]!.description).toBe(`KafkaV2[Subscribe[${topic}]]`);
      expect(q.lastProgress!.sources[0]!.endOffset).toEqual({ [topic]: { "0": 100, "1": 100, "2": 100, "3": 100 } });
      expect(q.lastProgress!.sources[0]!.metrics).toMatchObject({ minOffsetsBehindLatest: "0", maxOffsetsBehindLatest: "0" });
    }));

  it("an availableNow run reads the offsets there when it started, while records keep arriving (Spark's prepareForTriggerAvailableNow)", () =>
    withSession(1, async (session) => {
      const topic = await topicWith(2, Array.from({ length: 60 }, (_, i) => ({ partition: i % 2, key: null, value: `${i}` })));
      const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      try {
        let batches = 0;
        const q = source(session, topic, { maxOffsetsPerTrigger: 25 })
          .select(text("value"))
          .writeStream.foreachBatch(async () => {
            // Ten more records per partition after every batch: a run that followed the live end would not stop.
            batches++;
            await producer.send({ topic, messages: Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value: "late" })) });
          })
          .trigger({ availableNow: true })
          .start();
        expect(await q.awaitTermination(30_000)).toBe(true);
        expect(q.recentProgress.map((p) => p.numInputRows)).toEqual([24, 24, 12]);
        expect(q.lastProgress!.sources[0]!.endOffset).toEqual({ [topic]: { "0": 30, "1": 30 } });
        expect(batches).toBe(3);
      } finally {
        await producer.disconnect();
      }
    }));

  it("reads a range spanning many fetch responses, and values of every size, into one batch in offset order", () =>
    withSession(1, async (session) => {
      // 30 produce requests make 30 record batches; 16 KiB fetches return a few of them at a time,
      // so the task's buffers, sized from the first response, must grow for the longer values.
      const topic = await createTopic("sluice-src", 1);
      topics.push(topic);
      const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      const value = (i: number) => `${i}:${"x".repeat(i < 100 ? 10 : i % 700)}`;
      for (let b = 0; b < 30; b++) {
        await producer.send({ topic, messages: Array.from({ length: 20 }, (_, j) => ({ partition: 0, value: value(b * 20 + j) })) });
      }
      await producer.disconnect();
      const rows = await session.read
        .format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", topic)
        .option("kafka.max.partition.fetch.bytes", 16 * 1024)
        .load()
        .select(text("value"), "offset")
        .collect();
      expect(rows).toEqual(Array.from({ length: 600 }, (_, i) => ({ value: value(i), offset: i })));
    }));

  it("reads gzip-compressed batches", () =>
    withSession(0, async (session) => {
      const topic = await topicWith(1, Array.from({ length: 50 }, (_, i) => ({ partition: 0, key: null, value: `v${i}` })), CompressionTypes.GZIP);
      const rows = await session.read.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).load().select(text("value"), "offset").collect();
      expect(rows.map((r) => r.value)).toEqual(Array.from({ length: 50 }, (_, i) => `v${i}`));
      expect(rows.map((r) => r.offset)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    }));

  it.each([
    ["snappy", CompressionTypes.Snappy],
    ["lz4", CompressionTypes.LZ4],
  ] as const)("reads %s-compressed batches written by another producer", (name, type) =>
    withSession(1, async (session) => {
      // kafkajs has no snappy or lz4 of its own: give it Sluice's, so the broker (which checks every
      // batch it receives) and Sluice's reader both see batches framed as Kafka's Java clients frame them.
      CompressionCodecs[type] = () => ({
        compress: async (encoder: { buffer: Buffer }) => Buffer.from(compressRecords(name, encoder.buffer)),
        decompress: async (buffer: Buffer) => Buffer.from(decompressRecords(compressionCode(name), buffer)),
      });
      const topic = await topicWith(1, Array.from({ length: 300 }, (_, i) => ({ partition: 0, key: null, value: `${name}-${i}` })), type);
      const rows = await session.read.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).load().select(text("value")).collect();
      expect(rows.map((r) => r.value)).toEqual(Array.from({ length: 300 }, (_, i) => `${name}-${i}`));
    }));

  it("aggregates a topic by its binary key in a streaming query and continues from the checkpoint after a restart", () =>
    withSession(1, async (session) => {
      const topic = await topicWith(2, Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, key: `k${i % 3}`, value: "x" })));
      const start = () =>
        source(session, topic)
          .groupBy("key")
          .agg(count().alias("n"))
          .writeStream.outputMode("complete")
          .format("memory")
          .queryName("kafka_counts")
          .option("checkpointLocation", `/tmp/sluice-kafka-ckpt-${topic}`)
          .start();
      const q1 = start();
      await q1.processAllAvailable();
      await q1.stop();
      const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      await producer.send({ topic, messages: [{ partition: 0, key: "k0", value: "y" }] });
      await producer.disconnect();
      const q2 = start();
      await q2.processAllAvailable();
      await q2.stop();
      expect(await session.table("kafka_counts").orderBy("key").collect()).toEqual([
        { key: utf8("k0"), n: 8 },
        { key: utf8("k1"), n: 7 },
        { key: utf8("k2"), n: 6 },
      ]);
      expect(q2.recentProgress.map((p) => p.numInputRows)).toEqual([1]);
    }));

  it("rejects Spark's invalid option combinations", () =>
    withSession(0, async (session) => {
      const base = () => session.readStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap());
      expect(() => base().load()).toThrow("One of the following options must be specified for Kafka source: subscribe, subscribePattern, assign. See the docs for more details.");
      expect(() => base().option("subscribe", "a").option("assign", '{"a":[0]}').load()).toThrow(
        "Only one of the following options can be specified for Kafka source: subscribe, subscribePattern, assign. See the docs for more details.",
      );
      expect(() => base().option("subscribe", "a").option("kafka.auto.offset.reset", "earliest").load()).toThrow(/Kafka option 'auto.offset.reset' is not supported/);
      expect(() => base().option("subscribe", "a").option("endingOffsets", "latest").load()).toThrow(/Ending offset not valid in streaming queries/);
      expect(() => session.read.format("kafka").option("kafka.bootstrap.servers", "x:1").option("subscribe", "a").option("startingOffsets", "latest").load()).toThrow(
        "starting offset can't be latest for batch queries on Kafka",
      );
      expect(() => session.readStream.format("kafka").option("subscribe", "a").load()).toThrow(/kafka\.bootstrap\.servers/);
    }));
});
