import { type KafkaMessage, Partitioners } from "kafkajs";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, from_json, sum, window } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { withSession } from "../../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap, kafkaClient } from "../../testing/kafka.js";
import { produceJson } from "../../testing/kafka-load.js";
import { readTopic } from "../../testing/kafka-log.js";

const topics: string[] = [];
afterAll(async () => {
  if (topics.length) await deleteTopic(...topics);
});

const Reading = z.object({ sensor: z.string(), value: z.int32(), time: z.iso.datetime() });

/** A stream of `topic` from its start, values decoded with the Reading schema. */
const readings = (session: Session, topic: string) =>
  session.readStream.format("kafka").schema(Reading).option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).option("startingOffsets", "earliest");
const BASE = Date.UTC(2026, 0, 1);

async function produceValues(topic: string, partitions: number, values: readonly (string | null)[]): Promise<void> {
  const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const CHUNK = 25_000;
  for (let from = 0; from < values.length; from += CHUNK) {
    const messages = values.slice(from, from + CHUNK).map((value, j) => ({ value, partition: (from + j) % partitions }));
    await producer.send({ topic, messages });
  }
  await producer.disconnect();
}

describe("Kafka JSON values decoded in the fetch path", () => {
  it("1,000,000 JSON records in 4 partitions -> windowed aggregation with maxOffsetsPerTrigger -> exact counts", () =>
    withSession(2, async (session) => {
      const N = 1_000_000;
      const topic = await createTopic("sluice-million", 4);
      topics.push(topic);
      await produceJson(kafkaBootstrap(), topic, 4, N, (i) => `{"sensor":"s${i % 7}","value":${i % 100},"time":"${new Date(BASE + i).toISOString()}"}`);

      const q = readings(session, topic)
        .option("maxOffsetsPerTrigger", 300_000)
        .load()
        .withWatermark("time", "1 minute")
        .groupBy(window(col("time"), "1 minute"))
        .agg(count().alias("n"), sum(col("value")).alias("total"))
        .writeStream.outputMode("complete")
        .format("memory")
        .queryName(`million_${topics.length}`)
        .trigger({ availableNow: true })
        .start();
      await q.awaitTermination();

      const expected = new Map<number, { n: number; total: number }>();
      for (let i = 0; i < N; i++) {
        const start = Math.floor(i / 60_000) * 60_000;
        const e = expected.get(start) ?? { n: 0, total: 0 };
        e.n++;
        e.total += i % 100;
        expected.set(start, e);
      }
      const rows = await session.table(`million_${topics.length}`).orderBy("window").collect();
      expect(rows).toEqual([...expected].map(([start, e]) => ({ window: { start: new Date(BASE + start), end: new Date(BASE + start + 60_000) }, n: e.n, total: e.total })));
      expect(q.recentProgress.reduce((n, p) => n + p.numInputRows, 0)).toBe(N);
      expect(q.recentProgress.filter((p) => p.numInputRows > 0).map((p) => p.numInputRows)).toEqual([300_000, 300_000, 300_000, 100_000]);
    }), 180_000);

  const BAD = ['{"sensor":"a","value":1,"time":"2026-01-01T00:00:00Z"}', '{"sensor":"b","value":', null, '{"sensor":"c","value":"x","time":"2026-01-01T00:00:01Z"}'];

  it.each([
    ["PERMISSIVE", [{ sensor: "a", value: 1 }, { sensor: null, value: null }, { sensor: null, value: null }, { sensor: null, value: null }], 2],
    ["DROPMALFORMED", [{ sensor: "a", value: 1 }, { sensor: null, value: null }], 2],
  ] as const)("malformed values under %s", (mode, rows, malformed) =>
    withSession(0, async (session) => {
      const topic = await createTopic("sluice-bad", 1);
      topics.push(topic);
      await produceValues(topic, 1, BAD);
      const q = readings(session, topic)
        .option("mode", mode)
        .load()
        .select("sensor", "value")
        .writeStream.format("memory")
        .queryName(`bad_${mode}`)
        .start();
      await q.processAllAvailable();
      await q.stop();
      // A null value is a row of nulls (as from_json(null)), not a malformed record.
      expect(await session.table(`bad_${mode}`).collect()).toEqual(rows);
      expect(q.lastProgress!.sources[0]!.metrics.numMalformedRecords).toBe(String(malformed));
    }));

  it("from_json(col(\"value\"), schema) parses raw Kafka values in a select", () =>
    withSession(1, async (session) => {
      const topic = await createTopic("sluice-from-json", 1);
      topics.push(topic);
      await produceValues(topic, 1, BAD);
      const rows = await session.read
        .format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", topic)
        .load()
        .select(from_json(col("value"), Reading), "offset")
        .select("sensor", "value", "offset")
        .collect();
      expect(rows).toEqual([
        { sensor: "a", value: 1, offset: 0 },
        { sensor: null, value: null, offset: 1 },
        { sensor: null, value: null, offset: 2 },
        { sensor: null, value: null, offset: 3 },
      ]);
    }));

  it("FAILFAST names topic, partition and offset of the bad record", () =>
    withSession(1, async (session) => {
      const topic = await createTopic("sluice-failfast", 1);
      topics.push(topic);
      await produceValues(topic, 1, BAD);
      const q = readings(session, topic)
        .option("mode", "FAILFAST")
        .load()
        .writeStream.format("memory")
        .queryName("bad_failfast")
        .start();
      await expect(q.awaitTermination()).rejects.toThrow(`topic ${topic} partition 0 offset 1`);
    }));

  it("sends malformed records to a dead-letter topic byte for byte: key, value and headers as they came, then where they came from", () =>
    withSession(0, async (session) => {
      const topic = await createTopic("sluice-dlq-src", 1);
      const dlq = await createTopic("sluice-dlq", 1);
      topics.push(topic, dlq);
      // Not UTF-8: 0xff and 0xfe never occur in it, 0x80 only after a lead byte.
      const notUtf8 = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
      const truncated = Buffer.from('{"sensor":"b","value":');
      const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      await producer.send({
        topic,
        messages: [
          { value: BAD[0]! },
          { key: notUtf8, value: notUtf8, headers: { trace: [Buffer.from("t1"), Buffer.from("t2")], raw: Buffer.from([0x80]) } },
          { value: truncated },
        ],
      });
      await producer.disconnect();
      const q = readings(session, topic).option("mode", "DROPMALFORMED").option("deadLetterTopic", dlq).load().writeStream.format("memory").queryName("dlq_q").start();
      await q.processAllAvailable();
      await q.stop();
      expect(await session.table("dlq_q").select("sensor").collect()).toEqual([{ sensor: "a" }]);

      const dead = await consume(dlq, 2);
      expect(dead.map((m) => [m.key, m.value])).toEqual([
        [notUtf8, notUtf8],
        [null, truncated],
      ]);
      const origin = (offset: string) => ({ "sluice.source.topic": Buffer.from(topic), "sluice.source.partition": Buffer.from("0"), "sluice.source.offset": Buffer.from(offset) });
      expect(dead.map((m) => m.headers)).toEqual([{ trace: [Buffer.from("t1"), Buffer.from("t2")], raw: Buffer.from([0x80]), ...origin("1") }, origin("2")]);
      // The record's own headers first, in their order, then the three that name its origin.
      const stored = (await readTopic(dlq, 1))[0]!;
      expect(stored.map((r) => r.headers.map(([key]) => key))).toEqual([
        ["trace", "trace", "raw", "sluice.source.topic", "sluice.source.partition", "sluice.source.offset"],
        ["sluice.source.topic", "sluice.source.partition", "sluice.source.offset"],
      ]);
    }));

  it("from_json reads binary values straight from their bytes; bytes that are not UTF-8 JSON are a malformed record", () =>
    withSession(1, async (session) => {
      const topic = await createTopic("sluice-from-json-bytes", 1);
      topics.push(topic);
      const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      await producer.send({ topic, messages: [{ value: Buffer.from(BAD[0]!) }, { value: Buffer.from([0xff, 0xfe, 0x00, 0x80]) }] });
      await producer.disconnect();
      const df = session.read.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).load();
      expect(await df.select(from_json(col("value"), Reading), "offset").select("sensor", "offset").collect()).toEqual([
        { sensor: "a", offset: 0 },
        { sensor: null, offset: 1 },
      ]);
      await expect(df.select(from_json(col("value"), Reading, { mode: "FAILFAST" })).collect()).rejects.toThrow("row 1 of the batch");
    }));
});

/** The first `n` messages of `topic` as kafkajs's consumer hands them out: keys, values and headers as Buffers. */
async function consume(topic: string, n: number): Promise<KafkaMessage[]> {
  const consumer = kafkaClient().consumer({ groupId: `${topic}-reader` });
  const messages: KafkaMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, (event) => reject(event.payload.error));
      consumer
        .run({
          eachMessage: async ({ message }) => {
            messages.push(message);
            if (messages.length === n) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return messages;
}

describe("Kafka sink against the real broker", () => {
  it("writes value, key and topic columns, idempotently, and refuses a query without value", () =>
    withSession(0, async (session) => {
      const target = await createTopic("sluice-sink", 2);
      topics.push(target);
      const input = session.memoryStream(z.object({ id: z.string(), body: z.string() }));
      const q = input
        .toDF()
        .select(col("id").alias("key"), col("body").alias("value"))
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("topic", target)
        .start();
      input.addData({ id: "k1", body: "hello" }, { id: "k2", body: "world" });
      await q.processAllAvailable();
      await q.stop();
      const rows = await session.read
        .format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", target)
        .load()
        .select(col("key").cast("string").alias("key"), col("value").cast("string").alias("value"))
        .orderBy("key")
        .collect();
      expect(rows).toEqual([
        { key: "k1", value: "hello" },
        { key: "k2", value: "world" },
      ]);
      expect(() => input.toDF().select("id").writeStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("topic", target).start()).toThrow(
        "Required attribute 'value' not found",
      );
      expect(() => input.toDF().select(col("body").alias("value")).writeStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).start()).toThrow(
        "topic option required when no 'topic' attribute is present. Use the topic option for setting a topic.",
      );
    }));
});
