import { Partitioners } from "kafkajs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { field, int32Column, makeBatch, utf8FromStrings, validityFromBytes, type Batch } from "../batch/batch.js";
import { col } from "../api/functions.js";
import { rowsToBatch } from "../batch/rows.js";
import { withSession } from "../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap, withAdmin } from "../testing/kafka.js";
import { asText, readPartition, readTopic } from "../testing/kafka-log.js";
import { KafkaSink, type KafkaSinkTuning } from "./kafka-sink.js";

const topics: string[] = [];
const sinks: KafkaSink[] = [];
afterAll(async () => {
  await Promise.all(sinks.map((s) => s.close()));
  const alive = await withAdmin((a) => a.listTopics());
  const mine = topics.filter((t) => alive.includes(t));
  if (mine.length) await deleteTopic(...mine);
});

async function newTopic(partitions: number, config: Record<string, string> = {}): Promise<string> {
  const topic = await createTopic("sink", partitions, config);
  topics.push(topic);
  return topic;
}

function sinkTo(topic: string | null, tuning: Partial<KafkaSinkTuning> = {}): KafkaSink {
  const sink = new KafkaSink({ bootstrapServers: kafkaBootstrap(), topic, clientId: "sluice-sink-test" }, tuning);
  sinks.push(sink);
  return sink;
}

const utf8 = new TextEncoder();

function strings(values: (string | null)[]) {
  return utf8FromStrings(values);
}

function ints(values: (number | null)[]) {
  const { bitmap, nullCount } = validityFromBytes(Uint8Array.from(values, (v) => (v === null ? 0 : 1)), values.length);
  return int32Column(Int32Array.from(values, (v) => v ?? 0), bitmap, nullCount);
}

function batchOf(columns: Record<string, ReturnType<typeof strings> | ReturnType<typeof ints>>): Batch {
  const names = Object.keys(columns);
  return makeBatch(
    names.map((n) => field(n, n === "partition" ? "int32" : "string")),
    names.map((n) => columns[n]!),
  );
}

describe("Kafka sink against the real broker", () => {
  it("puts each key on the partition Java's default partitioner picks: toPositive(murmur2(key)) % partitions", async () => {
    const topic = await newTopic(7);
    // Hashes published by the Java client's tests (UtilsTest) and librdkafka's: independent of Sluice's murmur2.
    const javaHashes: Record<string, number> = {
      "21": -973932308,
      foobar: -790332482,
      "a-little-bit-long-string": -985981536,
      "a-little-bit-longer-string": -1486304829,
      lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8: -58897971,
      abc: 479470107,
      "": 275646681,
      a: -1563381124,
    };
    const more = ["key1", "ключ-ü-🙂", "日本語"];
    const keys = [...Object.keys(javaHashes), ...more];
    await sinkTo(topic).addBatch(0, batchOf({ key: strings(keys), value: strings(keys.map((k) => `v-${k}`)) }));

    const stored = await readTopic(topic, 7);
    const partitionOf = new Map(stored.flatMap((records, p) => records.map((r) => [asText(r.key)!, p] as const)));
    expect(stored.flat().length).toBe(keys.length);
    for (const [key, hash] of Object.entries(javaHashes)) expect([key, partitionOf.get(key)]).toEqual([key, (hash & 0x7fffffff) % 7]);
    // kafkajs's DefaultPartitioner (its port of the Java one) for keys without a published hash.
    const partitioner = Partitioners.DefaultPartitioner();
    const partitionMetadata = Array.from({ length: 7 }, (_, p) => ({ partitionId: p, leader: 1, partitionErrorCode: 0, replicas: [1], isr: [1] }));
    for (const key of more) {
      expect([key, partitionOf.get(key)]).toEqual([key, partitioner({ topic, partitionMetadata, message: { key: Buffer.from(key), value: null } })]);
    }
    expect(stored.flat().map((r) => [asText(r.key), asText(r.value)]).sort()).toEqual(keys.map((k) => [k, `v-${k}`]).sort());
  });

  it("keys, values and headers round-trip byte for byte, non-ASCII, null and empty included", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const keys = ["k-ascii", null, "ключ", "", "🙂"];
      const values = ["plain", "ünïcødé ✓ 日本語 🙂", null, "", "x".repeat(1000)];
      const headers = [
        '[{"key":"trace","value":"abc"},{"key":"ü-key","value":"ü-value 🙂"}]',
        null,
        '[{"key":"dup","value":"1"},{"key":"dup","value":"2"},{"key":"nothing","value":null},{"key":"n","value":42}]',
        "[]",
        '[{"key":"empty","value":""}]',
      ];
      await sinkTo(topic).addBatch(0, batchOf({ key: strings(keys), value: strings(values), headers: strings(headers) }));

      const records = (await readTopic(topic, 1))[0]!;
      const bytes = (s: string | null) => (s === null ? null : utf8.encode(s));
      expect(records.map((r) => r.key)).toEqual(keys.map(bytes));
      expect(records.map((r) => r.value)).toEqual(values.map(bytes));
      expect(records.map((r) => r.headers)).toEqual([
        [
          ["trace", bytes("abc")],
          ["ü-key", bytes("ü-value 🙂")],
        ],
        [],
        [
          ["dup", bytes("1")],
          ["dup", bytes("2")],
          ["nothing", null],
          ["n", bytes("42")],
        ],
        [],
        [["empty", bytes("")]],
      ]);
      // Sluice's own Kafka source reads the same rows back: binary keys and values, typed headers.
      const read = session.read.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).option("includeHeaders", true);
      const rows = await read.load().select("key", "value", "headers").collect();
      const header = (key: string, value: string | null) => ({ key, value: bytes(value) });
      expect(rows).toEqual([
        { key: bytes("k-ascii"), value: bytes("plain"), headers: [header("trace", "abc"), header("ü-key", "ü-value 🙂")] },
        { key: null, value: bytes("ünïcødé ✓ 日本語 🙂"), headers: null },
        { key: bytes("ключ"), value: null, headers: [header("dup", "1"), header("dup", "2"), header("nothing", null), header("n", "42")] },
        { key: bytes(""), value: bytes(""), headers: null },
        { key: bytes("🙂"), value: bytes("x".repeat(1000)), headers: [header("empty", "")] },
      ]);
    }));

  it("writes binary keys and values exactly, and a source's headers column back byte for byte", () =>
    withSession(1, async (session) => {
      const from = await newTopic(1);
      const to = await newTopic(1);
      const notUtf8 = Uint8Array.of(0xff, 0xfe, 0x00, 0x80);
      const Raw = z.object({ key: z.instanceof(Uint8Array).nullable(), value: z.instanceof(Uint8Array) });
      const raw = session.memoryStream(Raw);
      const first = raw.toDF().writeStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("topic", from).start();
      raw.addData({ key: notUtf8, value: Uint8Array.of(0xc3) }, { key: null, value: notUtf8 });
      await first.processAllAvailable();
      await first.stop();
      expect((await readTopic(from, 1))[0]!.map((r) => [r.key, r.value])).toEqual([
        [notUtf8, Uint8Array.of(0xc3)],
        [null, notUtf8],
      ]);

      // Headers with a duplicate key, an empty value, no value and a value that is not UTF-8: read, then written again as they came.
      const headers = [
        { key: "dup", value: new Uint8Array(0) },
        { key: "dup", value: null },
        { key: "raw", value: notUtf8 },
      ];
      await sinkTo(from).addBatch(1, rowsToBatch([{ value: utf8.encode("h"), headers }], [field("value", "binary"), field("headers", "headers")]));
      const copy = session.readStream
        .format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", from)
        .option("startingOffsets", "earliest")
        .option("includeHeaders", true)
        .load()
        .select("key", "value", "headers")
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("topic", to)
        .trigger({ availableNow: true })
        .start();
      await copy.awaitTermination();
      const strip = (records: Awaited<ReturnType<typeof readTopic>>[number]) => records.map((r) => ({ key: r.key, value: r.value, headers: r.headers }));
      expect(strip((await readTopic(to, 1))[0]!)).toEqual(strip((await readTopic(from, 1))[0]!));
      expect((await readTopic(to, 1))[0]![2]!.headers).toEqual([
        ["dup", new Uint8Array(0)],
        ["dup", null],
        ["raw", notUtf8],
      ]);
    }));

  it("splits a large write into record batches under 1 MB, stamped by one idempotent producer with consecutive sequence numbers", async () => {
    const topic = await newTopic(1);
    const sink = sinkTo(topic);
    const value = (i: number) => `value-${String(i).padStart(8, "0")}-${"z".repeat(84)}`;
    const first = Array.from({ length: 25_000 }, (_, i) => value(i));
    const second = Array.from({ length: 5 }, (_, i) => value(25_000 + i));
    await sink.addBatch(0, batchOf({ value: strings(first) }));
    await sink.addBatch(1, batchOf({ value: strings(second) }));

    const batches = await readPartition(topic, 0);
    expect(batches.flatMap((b) => b.records.map((r) => asText(r.value)))).toEqual([...first, ...second]);
    expect(batches.flatMap((b) => b.records.map((r) => r.offset))).toEqual(Array.from({ length: 25_005 }, (_, i) => i));
    // 25,000 records of 100 bytes (about 2.6 MB) need three batches; the second write is a fourth.
    expect(batches.map((b) => b.size <= 1_000_000)).toEqual([true, true, true, true]);
    expect(batches.slice(0, 3).every((b) => b.size > 800_000 || b === batches[2])).toBe(true);
    expect(batches.at(-1)!.count).toBe(5);
    const producerId = batches[0]!.producerId;
    expect(producerId >= 0n).toBe(true);
    expect(batches.map((b) => [b.producerId, b.producerEpoch])).toEqual(batches.map(() => [producerId, batches[0]!.producerEpoch]));
    let sequence = 0;
    for (const b of batches) {
      expect(b.baseSequence).toBe(sequence);
      sequence += b.count;
    }
  });

  it("writes each row to its topic column's topic, null topics to the topic option, explicit partitions first", async () => {
    const [a, b, fallback] = [await newTopic(2), await newTopic(1), await newTopic(1)];
    await sinkTo(fallback).addBatch(
      0,
      batchOf({
        topic: strings([a, b, null, a, a, b]),
        partition: ints([1, null, null, 0, null, 0]),
        key: strings([null, "k", null, null, "21", null]),
        value: strings(["a1", "b1", "f1", "a0", "a-key", "b2"]),
      }),
    );
    const values = async (topic: string, n: number) => (await readTopic(topic, n)).map((records) => records.map((r) => asText(r.value)));
    // Key "21" on 2 partitions: Java hash -973932308 -> partition 0.
    expect((-973932308 & 0x7fffffff) % 2).toBe(0);
    expect(await values(a, 2)).toEqual([["a0", "a-key"], ["a1"]]);
    expect(await values(b, 1)).toEqual([["b1", "b2"]]);
    expect(await values(fallback, 1)).toEqual([["f1"]]);
  });

  it("a streaming query with a topic column writes each row to its own topic", () =>
    withSession(0, async (session) => {
      const [x, y] = [await newTopic(1), await newTopic(1)];
      const input = session.memoryStream(z.object({ to: z.string(), body: z.string() }));
      const q = input
        .toDF()
        .select(col("to").alias("topic"), col("body").alias("value"))
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .start();
      input.addData({ to: x, body: "one" }, { to: y, body: "two" }, { to: x, body: "three" });
      await q.processAllAvailable();
      input.addData({ to: y, body: "four" });
      await q.processAllAvailable();
      await q.stop();
      const values = async (topic: string) => (await readTopic(topic, 1))[0]!.map((r) => asText(r.value));
      expect([await values(x), await values(y)]).toEqual([
        ["one", "three"],
        ["two", "four"],
      ]);
    }));

  it("a batch over the topic's max.message.bytes fails naming the topic-partition and MESSAGE_TOO_LARGE", async () => {
    const topic = await newTopic(1, { "max.message.bytes": "2000" });
    const write = sinkTo(topic).addBatch(0, batchOf({ value: strings(["small", "y".repeat(5000)]) }));
    await expect(write).rejects.toThrow(new RegExp(`writing to ${topic}-0 on Kafka at .* failed: MESSAGE_TOO_LARGE .*the \\d+-byte record batch \\(2 records\\) is larger than the topic's max\\.message\\.bytes`));
  });

  it("a topic the broker does not have is an error naming it (this broker does not auto-create topics)", async () => {
    const missing = `sluice-sink-missing-${Date.now()}`;
    await expect(sinkTo(missing).addBatch(0, batchOf({ value: strings(["v"]) }))).rejects.toThrow(
      `Kafka sink: topic "${missing}" does not exist and the broker did not create it (it creates topics on demand only with auto.create.topics.enable=true): create the topic first (Kafka at ${kafkaBootstrap()})`,
    );
    const present = await newTopic(1);
    await expect(sinkTo(null).addBatch(0, batchOf({ topic: strings([present, missing]), value: strings(["v", "w"]) }))).rejects.toThrow(`topic "${missing}" does not exist`);
  });

  it("a partition column value the topic does not have is an error", async () => {
    const topic = await newTopic(2);
    await expect(sinkTo(topic).addBatch(0, batchOf({ partition: ints([0, 2]), value: strings(["v", "w"]) }))).rejects.toThrow(
      `row 1: partition 2 is not a partition of topic "${topic}", which has partitions 0 to 1`,
    );
  });

  it("retries a partition the broker refuses with a retriable error a bounded number of times, then names it and the error", async () => {
    const topic = await newTopic(1);
    const sink = sinkTo(topic, { retries: 2, retryBackoffMs: 20 });
    await sink.addBatch(0, batchOf({ value: strings(["before"]) }));
    await deleteTopic(topic);
    await vi.waitFor(async () => expect(await withAdmin((a) => a.listTopics())).not.toContain(topic), { timeout: 10_000, interval: 100 });
    // The sink still has the topic's metadata: the broker answers the Produce request with a retriable error.
    await expect(sink.addBatch(1, batchOf({ value: strings(["after"]) }))).rejects.toThrow(
      new RegExp(`^cannot write to Kafka at ${kafkaBootstrap()}: ${topic}-0 still failing after 3 attempts: (UNKNOWN_TOPIC_OR_PARTITION|NOT_LEADER_FOR_PARTITION) `),
    );
  });
});
