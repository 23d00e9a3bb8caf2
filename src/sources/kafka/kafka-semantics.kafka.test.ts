import { Partitioners } from "kafkajs";
import { afterAll, describe, expect, it } from "vitest";
import { col } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { withSession } from "../../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap, kafkaClient, withAdmin } from "../../testing/kafka.js";

const topics: string[] = [];
afterAll(async () => {
  const alive = await withAdmin((a) => a.listTopics());
  const mine = topics.filter((t) => alive.includes(t));
  if (mine.length) await deleteTopic(...mine);
});

async function newTopic(partitions: number, config: Record<string, string> = {}): Promise<string> {
  const topic = await createTopic("sluice-sem", partitions, config);
  topics.push(topic);
  return topic;
}

async function produce(topic: string, messages: { key?: string; value: string; partition?: number; headers?: Record<string, string> }[]): Promise<void> {
  // Idempotent: a send retried after a leadership change (new partitions) is not written twice.
  const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({ topic, messages: messages.map((m) => ({ partition: 0, ...m })) });
  await producer.disconnect();
}

/** A stream of `topic` from its start. */
function stream(session: Session, topic: string) {
  return session.readStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).option("startingOffsets", "earliest");
}

function read(session: Session, topic: string, extra: Record<string, string | number | boolean> = {}) {
  return session.read.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", topic).options(extra).load();
}

/** A binary Kafka column as text, under its own name: Spark's `CAST(value AS STRING)`. */
const text = <N extends "key" | "value">(name: N) => col(name).cast("string").alias(name);
const utf8 = (s: string) => new TextEncoder().encode(s);

describe("Kafka source semantics against the real broker", () => {
  it("read_committed skips aborted transactions and control records; read_uncommitted sees every record", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const producer = kafkaClient().producer({ transactionalId: `${topic}-tx`, idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      for (const [values, outcome] of [
        [["c1", "c2"], "commit"],
        [["a1", "a2"], "abort"],
        [["c3"], "commit"],
      ] as const) {
        const tx = await producer.transaction();
        await tx.send({ topic, messages: values.map((value) => ({ value, partition: 0 })) });
        await (outcome === "commit" ? tx.commit() : tx.abort());
      }
      await producer.disconnect();

      const committed = await read(session, topic, { "kafka.isolation.level": "read_committed" }).select(text("value"), "offset").collect();
      // Offsets 2 and 5 are transaction markers: the committed records have gaps between them.
      expect(committed).toEqual([
        { value: "c1", offset: 0 },
        { value: "c2", offset: 1 },
        { value: "c3", offset: 6 },
      ]);
      const all = await read(session, topic).select(text("value")).collect();
      expect(all.map((r) => r.value)).toEqual(["c1", "c2", "a1", "a2", "c3"]);
    }));

  it("reads a compacted topic whose offsets have gaps", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1, {
        "cleanup.policy": "compact",
        "segment.ms": "100",
        "min.cleanable.dirty.ratio": "0.001",
        "min.compaction.lag.ms": "0",
        "delete.retention.ms": "0",
      });
      await produce(topic, [
        { key: "a", value: "a1" },
        { key: "b", value: "b1" },
        { key: "a", value: "a2" },
        { key: "b", value: "b2" },
      ]);
      // Compaction only cleans closed segments: keep writing until the cleaner has run.
      let rows: { key: string | null; value: string | null; offset: number }[] = [];
      for (let i = 0; i < 60; i++) {
        await new Promise((r) => setTimeout(r, 500));
        await produce(topic, [{ key: "tick", value: `t${i}` }]);
        rows = await read(session, topic).select(text("key"), text("value"), "offset").filter(col("key").notEqual("tick")).collect();
        if (rows.length === 2) break;
      }
      expect(rows).toEqual([
        { key: "a", value: "a2", offset: 2 },
        { key: "b", value: "b2", offset: 3 },
      ]);
    }));

  it("startingOffsets and endingOffsets as per-partition JSON, and by timestamp", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(2);
      await produce(topic, [0, 1, 2, 3, 4].flatMap((i) => [{ value: `p0-${i}`, partition: 0 }, { value: `p1-${i}`, partition: 1 }]));
      const ranged = await read(session, topic, {
        startingOffsets: JSON.stringify({ [topic]: { "0": 1, "1": -2 } }),
        endingOffsets: JSON.stringify({ [topic]: { "0": 3, "1": -1 } }),
      })
        .select(text("value"))
        .orderBy("value")
        .collect();
      expect(ranged.map((r) => r.value)).toEqual(["p0-1", "p0-2", "p1-0", "p1-1", "p1-2", "p1-3", "p1-4"]);
      const future = Date.now() + 3_600_000;
      await expect(read(session, topic, { startingOffsetsByTimestamp: JSON.stringify({ [topic]: { "0": future, "1": future } }) }).collect()).rejects.toThrow(
        /No offset matched the timestamp .* startingOffsetsByTimestampStrategy/,
      );
      expect(await read(session, topic, { startingTimestamp: future, startingOffsetsByTimestampStrategy: "latest" }).count()).toBe(0);
      expect(await read(session, topic, { startingTimestamp: 0 }).count()).toBe(10);
    }));

  it("subscribePattern reads every matching topic; assign reads exactly the listed partitions", () =>
    withSession(0, async (session) => {
      const a = await newTopic(2);
      const b = await newTopic(1);
      await produce(a, [
        { value: "a0", partition: 0 },
        { value: "a1", partition: 1 },
      ]);
      await produce(b, [{ value: "b0", partition: 0 }]);
      const byPattern = await session.read
        .format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribePattern", `${a}|${b}`)
        .load()
        .select(text("value"))
        .orderBy("value")
        .collect();
      expect(byPattern.map((r) => r.value)).toEqual(["a0", "a1", "b0"]);
      const assigned = await session.read
        .format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("assign", JSON.stringify({ [a]: [1] }))
        .load()
        .select(text("value"), "topic", "partition")
        .collect();
      expect(assigned).toEqual([{ value: "a1", topic: a, partition: 1 }]);
      await expect(session.read.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("assign", "[0,1]").load().collect()).rejects.toThrow(
        'assign: expected JSON such as {"topicA":[0,1],"topicB":[2,4]}, got [0,1]',
      );
    }));

  it("minOffsetsPerTrigger waits for enough new offsets, up to maxTriggerDelay", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      await produce(topic, [{ value: "first" }]);
      const batches: number[] = [];
      const q = stream(session, topic)
        .option("minOffsetsPerTrigger", 3)
        .option("maxTriggerDelay", "2 seconds")
        .load()
        .writeStream.foreachBatch((df, id) => {
          batches.push(id);
        })
        .trigger({ processingTime: "100 milliseconds" })
        .start();
      await new Promise((r) => setTimeout(r, 700));
      // One offset is fewer than three, and the delay has not passed: no batch yet.
      expect(q.recentProgress).toHaveLength(0);
      await new Promise((r) => setTimeout(r, 2200));
      // maxTriggerDelay passed: the single record is processed anyway.
      expect(q.recentProgress.map((p) => p.numInputRows)).toEqual([1]);
      await produce(topic, [{ value: "a" }, { value: "b" }, { value: "c" }]);
      await new Promise((r) => setTimeout(r, 1000));
      await q.stop();
      expect(q.recentProgress.map((p) => p.numInputRows)).toEqual([1, 3]);
    }));

  it("includeHeaders adds the record headers, as Spark's array<struct<key: string, value: binary>>", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      await produce(topic, [{ value: "v", headers: { source: "web", "trace-id": "42" } }, { value: "w" }]);
      const rows = await session.read
        .format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("subscribe", topic)
        .option("includeHeaders", true)
        .load()
        .select(text("value"), "headers")
        .collect();
      expect(rows).toEqual([
        {
          value: "v",
          headers: [
            { key: "source", value: utf8("web") },
            { key: "trace-id", value: utf8("42") },
          ],
        },
        { value: "w", headers: null },
      ]);
    }));

  it("minPartitions splits large ranges into more tasks with the same rows", () =>
    withSession(2, async (session) => {
      const topic = await newTopic(1);
      await produce(topic, Array.from({ length: 100 }, (_, i) => ({ value: String(i) })));
      const rows = await read(session, topic, { minPartitions: 7 }).select("offset").collect();
      expect(rows.map((r) => r.offset)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    }));

  it("reads partitions added while the query runs from their earliest offset", () =>
    withSession(1, async (session) => {
      const topic = await newTopic(1);
      await produce(topic, [{ value: "before", partition: 0 }]);
      const q = stream(session, topic)
        .load()
        .select(text("value"), "partition")
        .writeStream.format("memory")
        .queryName(`grow_${topic.replace(/-/g, "_")}`)
        .start();
      await q.processAllAvailable();
      await withAdmin((a) => a.createPartitions({ topicPartitions: [{ topic, count: 3 }] }));
      await produce(topic, [
        { value: "new1", partition: 1 },
        { value: "new2", partition: 2 },
      ]);
      await new Promise((r) => setTimeout(r, 300));
      await q.processAllAvailable();
      await q.stop();
      const rows = await session.table(`grow_${topic.replace(/-/g, "_")}`).orderBy("partition").collect();
      expect(rows).toEqual([
        { value: "before", partition: 0 },
        { value: "new1", partition: 1 },
        { value: "new2", partition: 2 },
      ]);
    }));

  it("a deleted topic stops the query when failOnDataLoss is true, naming the partitions", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      await produce(topic, [{ value: "x" }]);
      const q = stream(session, topic)
        .load()
        .writeStream.format("memory")
        .queryName(`lossy_${topic.replace(/-/g, "_")}`)
        .start();
      await q.processAllAvailable();
      await deleteTopic(topic);
      await expect(q.awaitTermination(30_000)).rejects.toThrow(new RegExp(`Some data may have been lost.*${topic}-0`));
    }));

  it("a deleted topic is logged and skipped when failOnDataLoss is false", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      await produce(topic, [{ value: "x" }]);
      const q = stream(session, topic)
        .option("failOnDataLoss", "false")
        .load()
        .writeStream.format("memory")
        .queryName(`lenient_${topic.replace(/-/g, "_")}`)
        .start();
      await q.processAllAvailable();
      await deleteTopic(topic);
      await new Promise((r) => setTimeout(r, 1000));
      await q.processAllAvailable();
      expect(q.isActive).toBe(true);
      await q.stop();
      expect(q.exception).toBeNull();
    }));

  it("a deleted topic does not break reads of other topics through the same connections", () =>
    withSession(1, async (session) => {
      const gone = await newTopic(1);
      await produce(gone, [{ value: "old" }]);
      expect(await read(session, gone).select(text("value")).collect()).toEqual([{ value: "old" }]);
      await deleteTopic(gone);
      const next = await newTopic(1);
      await produce(next, [{ value: "a" }, { value: "b" }]);
      // The session's cached metadata still names the deleted topic; the new one is read in full.
      expect(await read(session, next).select(text("value")).collect()).toEqual([{ value: "a" }, { value: "b" }]);
      await produce(next, [{ value: "c" }]);
      expect(await read(session, next).select(text("value")).collect()).toEqual([{ value: "a" }, { value: "b" }, { value: "c" }]);
    }));

  it("commitOffsetsToGroup publishes each batch's end offsets to a consumer group", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(2);
      await produce(topic, [
        { value: "a", partition: 0 },
        { value: "b", partition: 1 },
        { value: "c", partition: 1 },
      ]);
      const group = `${topic}-lag`;
      const q = stream(session, topic)
        .option("commitOffsetsToGroup", group)
        .load()
        .writeStream.format("memory")
        .queryName(`grouped_${topic.replace(/-/g, "_")}`)
        .start();
      await q.processAllAvailable();
      await q.stop();
      const offsets = await withAdmin((a) => a.fetchOffsets({ groupId: group, topics: [topic] }));
      expect(offsets[0]!.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual([
        [0, "1"],
        [1, "2"],
      ]);
    }));
});
