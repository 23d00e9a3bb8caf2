import { randomUUID } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { col } from "../api/functions.js";
import { makeBatch, field, utf8FromStrings, type Batch } from "../batch/batch.js";
import { OptionError, StreamingQueryException } from "../errors/errors.js";
import type { MemoryStream } from "../api/memory-stream.js";
import type { Session } from "../api/session.js";
import type { SchemaOfZod } from "../schema/zod-schema.js";
import { withSession } from "../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap, withAdmin } from "../testing/kafka.js";
import { asText, readPartition, type RawBatch } from "../testing/kafka-log.js";
import { Event, eventsOf, runCrashChild, startEvents } from "../testing/kafka-crash-child.js";
import { tempDir } from "../testing/temp-dir.js";
import { KafkaSink, type KafkaSinkTuning } from "./kafka-sink.js";
import { ProducerFencedError } from "./kafka-transactions.js";
import type { SinkContext } from "./sink.js";

const topics: string[] = [];
const sinks: KafkaSink[] = [];
const dirs: ReturnType<typeof tempDir>[] = [];
afterAll(async () => {
  for (const d of dirs) d.remove();
  await Promise.all(sinks.map((s) => s.close()));
  const alive = await withAdmin((a) => a.listTopics());
  const mine = topics.filter((t) => alive.includes(t));
  if (mine.length) await deleteTopic(...mine);
});

async function newTopic(partitions: number, config: Record<string, string> = {}): Promise<string> {
  const topic = await createTopic("sink-eos", partitions, config);
  topics.push(topic);
  return topic;
}

function contextOf(queryId: string): SinkContext {
  return { queryId, checkpointLocation: "/checkpoint/not/used/by/the/sink", outputMode: "append" };
}

/** An exactly-once sink for `queryId`, opened. */
async function openSink(topic: string, queryId: string, o: { idPrefix?: string; timeoutMs?: number; tuning?: Partial<KafkaSinkTuning> } = {}): Promise<KafkaSink> {
  const sink = new KafkaSink(
    { bootstrapServers: kafkaBootstrap(), topic, clientId: "sluice-eos-test", transactional: { idPrefix: o.idPrefix ?? null, timeoutMs: o.timeoutMs ?? 60_000 } },
    o.tuning,
  );
  sinks.push(sink);
  await sink.open(contextOf(queryId));
  return sink;
}

function checkpointDir(): ReturnType<typeof tempDir> {
  const d = tempDir("sluice-eos-checkpoint-");
  dirs.push(d);
  return d;
}

function rows(keys: (string | null)[], values: string[]): Batch {
  return makeBatch([field("key", "string"), field("value", "string")], [utf8FromStrings(keys), utf8FromStrings(values)]);
}

/** What a read_committed consumer gets from the topic: (partition, key, value) in offset order per partition. */
async function committed(session: Session, topic: string): Promise<[number, string | null, string | null][]> {
  const read = session.read
    .format("kafka")
    .option("kafka.bootstrap.servers", kafkaBootstrap())
    .option("subscribe", topic)
    .option("kafka.isolation.level", "read_committed")
    .load()
    .select("partition", col("key").cast("string").alias("key"), col("value").cast("string").alias("value"));
  return (await read.collect()).map((r) => [r.partition, r.key, r.value]);
}

/** The partition's log as data batches (values) and markers, for asserting what a transaction left behind. */
function logShape(batches: readonly RawBatch[]): (string | (string | null)[])[] {
  return batches.map((b) => (b.marker !== null ? b.marker.toUpperCase() : b.records.map((r) => asText(r.value))));
}


/**
 * The transaction coordinator writes COMMIT and ABORT markers after EndTxn returns, so a log is
 * read until it shows what a test expects, for a bounded time.
 */
const MARKERS_WRITTEN = { timeout: 10_000, interval: 50 };
const shapeOf = async (topic: string) => logShape(await readPartition(topic, 0));

describe("Kafka sink, exactly-once mode, against the real broker", () => {
  it("writes each batch as one transaction: read_committed readers see every row once; the log holds transactional batches and a commit marker per batch", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(2);
      const queryId = randomUUID();
      const sink = await openSink(topic, queryId);
      expect(sink.guarantee).toBe("transactional");
      expect(sink.requiresCheckpoint).toBe(true);
      expect(sink.describe()).toBe(
        `KafkaSink[${topic}] (exactly-once: one Kafka transaction per batch under transactional id "sluice-${queryId}-0", committing the batch id with the records, ` +
          "so a batch re-run after a crash that already reached Kafka is skipped; consumers must read with isolation.level=read_committed)",
      );
      expect(sink.lastCommittedBatchId()).toBe(-1);
      // Keys "21" and "abc" go to partitions 0 and 1 of 2 (Java's murmur2: -973932308 and 479470107).
      await sink.addBatch(0, rows(["21", "abc", "21"], ["a", "b", "c"]));
      await sink.addBatch(1, rows(["abc"], ["d"]));
      expect(sink.lastCommittedBatchId()).toBe(1);

      expect(await committed(session, topic)).toEqual([
        [0, "21", "a"],
        [0, "21", "c"],
        [1, "abc", "b"],
        [1, "abc", "d"],
      ]);
      const [p0, p1] = [await readPartition(topic, 0), await readPartition(topic, 1)];
      expect([logShape(p0), logShape(p1)]).toEqual([
        [["a", "c"], "COMMIT"],
        [["b"], "COMMIT", ["d"], "COMMIT"],
      ]);
      const all = [...p0, ...p1];
      expect(all.every((b) => b.transactional)).toBe(true);
      expect(new Set(all.map((b) => `${b.producerId}/${b.producerEpoch}`)).size).toBe(1);
      // One producer epoch across transactions: sequence numbers go on from one batch to the next.
      expect(p1.filter((b) => b.marker === null).map((b) => b.baseSequence)).toEqual([0, 1]);
    }));

  it("a new instance on the same query skips a batch id already committed (a crash after EndTxn, before the query's commit log) and writes the next", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const queryId = randomUUID();
      const first = await openSink(topic, queryId);
      await first.addBatch(0, rows([null], ["a"]));
      await first.addBatch(1, rows([null, null], ["b", "c"]));
      // `first` is left as a crash leaves it: never closed.
      const second = await openSink(topic, queryId);
      expect(second.lastCommittedBatchId()).toBe(1);
      await second.addBatch(1, rows([null, null], ["b", "c"]));
      await second.addBatch(0, rows([null], ["a"]));
      await expect.poll(() => shapeOf(topic), MARKERS_WRITTEN).toEqual([["a"], "COMMIT", ["b", "c"], "COMMIT"]);

      await second.addBatch(2, rows([null], ["d"]));
      expect(second.lastCommittedBatchId()).toBe(2);
      expect(await committed(session, topic)).toEqual([
        [0, null, "a"],
        [0, null, "b"],
        [0, null, "c"],
        [0, null, "d"],
      ]);
      // Opening again bumped the producer epoch.
      const epochs = (await readPartition(topic, 0)).filter((b) => b.marker === null).map((b) => b.producerEpoch);
      expect(epochs.slice(1)).toEqual([epochs[0], epochs[0]! + 1]);
    }));

  it("a transaction a killed run left open is aborted by the next instance's open: read_committed readers never see its records; the batch is then written once", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const queryId = randomUUID();
      const crash = await runCrashChild({ kind: "sink", bootstrap: kafkaBootstrap(), topic, queryId, batches: [["a"], ["b", "c"]] }, "kafkaSinkBeforeCommit:1");
      expect(crash.signal).toBe("SIGKILL");
      expect(crash.stderr).toContain("SLUICE_CRASHED kafkaSinkBeforeCommit 1\n");
      // Batch 1's records are in the log, in a transaction nobody ended.
      await expect.poll(() => shapeOf(topic), MARKERS_WRITTEN).toEqual([["a"], "COMMIT", ["b", "c"]]);
      expect(await committed(session, topic)).toEqual([[0, null, "a"]]);

      const sink = await openSink(topic, queryId);
      expect(sink.lastCommittedBatchId()).toBe(0);
      await expect.poll(() => shapeOf(topic), MARKERS_WRITTEN).toEqual([["a"], "COMMIT", ["b", "c"], "ABORT"]);
      expect(await committed(session, topic)).toEqual([[0, null, "a"]]);
      await sink.addBatch(1, rows([null, null], ["b", "c"]));
      await expect.poll(() => shapeOf(topic), MARKERS_WRITTEN).toEqual([["a"], "COMMIT", ["b", "c"], "ABORT", ["b", "c"], "COMMIT"]);
      expect(await committed(session, topic)).toEqual([
        [0, null, "a"],
        [0, null, "b"],
        [0, null, "c"],
      ]);
    }));

  it("a run killed right after EndTxn committed batch 1: the next instance knows batch 1 is in Kafka and skips it", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const queryId = randomUUID();
      const crash = await runCrashChild({ kind: "sink", bootstrap: kafkaBootstrap(), topic, queryId, batches: [["a"], ["b"], ["never"]] }, "kafkaSinkAfterCommit:1");
      expect(crash.signal).toBe("SIGKILL");
      expect(crash.stderr).toContain("SLUICE_CRASHED kafkaSinkAfterCommit 1\n");

      const sink = await openSink(topic, queryId);
      expect(sink.lastCommittedBatchId()).toBe(1);
      await sink.addBatch(1, rows([null], ["b"]));
      await sink.addBatch(2, rows([null], ["c"]));
      await expect.poll(() => shapeOf(topic), MARKERS_WRITTEN).toEqual([["a"], "COMMIT", ["b"], "COMMIT", ["c"], "COMMIT"]);
      expect(await committed(session, topic)).toEqual([
        [0, null, "a"],
        [0, null, "b"],
        [0, null, "c"],
      ]);
    }));

  it("fences a zombie: an older instance writing after a newer one opened fails with ProducerFencedError, stays failed and writes nothing", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const queryId = randomUUID();
      const zombie = await openSink(topic, queryId);
      await zombie.addBatch(0, rows([null], ["a"]));
      const current = await openSink(topic, queryId);

      const write = zombie.addBatch(1, rows([null], ["zombie"]));
      await expect(write).rejects.toThrow(ProducerFencedError);
      await expect(write).rejects.toThrow(
        `Kafka sink: another run of this query took over transactional id "sluice-${queryId}-0" and fenced this one ` +
          `(AddPartitionsToTxn was answered INVALID_PRODUCER_EPOCH by ${kafkaBootstrap()}); ` +
          "this run stops without writing more. Run a query once at a time from one checkpoint, and give different queries different kafka.transactional.id.prefix values",
      );
      await expect(zombie.addBatch(2, rows([null], ["zombie again"]))).rejects.toThrow(ProducerFencedError);

      await current.addBatch(1, rows([null], ["b"]));
      expect(await committed(session, topic)).toEqual([
        [0, null, "a"],
        [0, null, "b"],
      ]);
      await expect.poll(() => shapeOf(topic), MARKERS_WRITTEN).toEqual([["a"], "COMMIT", ["b"], "COMMIT"]);
    }));

  it("a kafka.transactional.id.prefix reused by a new query fences the old query, and none of the new query's batches count as written", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const prefix = `orders-${randomUUID()}`;
      const before = await openSink(topic, randomUUID(), { idPrefix: prefix });
      expect(before.describe()).toContain(`under transactional id "${prefix}-0"`);
      await before.addBatch(0, rows([null], ["old 0"]));
      await before.addBatch(1, rows([null], ["old 1"]));

      const after = await openSink(topic, randomUUID(), { idPrefix: prefix });
      expect(after.lastCommittedBatchId()).toBe(-1);
      await after.addBatch(0, rows([null], ["new 0"]));
      await expect(before.addBatch(2, rows([null], ["old 2"]))).rejects.toThrow(ProducerFencedError);
      expect(await committed(session, topic)).toEqual([
        [0, null, "old 0"],
        [0, null, "old 1"],
        [0, null, "new 0"],
      ]);
    }));

  it("a batch that fails inside its transaction is aborted with none of its records visible; the next write opens a new transaction under a new epoch", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(2, { "max.message.bytes": "2000" });
      const queryId = randomUUID();
      const sink = await openSink(topic, queryId);
      await sink.addBatch(0, rows(["21"], ["small"]));
      // "fits" goes to partition 0 and is appended; the value for partition 1 is over the topic's limit.
      const write = sink.addBatch(1, rows(["21", "abc"], ["fits", "y".repeat(5000)]));
      await expect(write).rejects.toThrow(
        new RegExp(`^Kafka sink: batch 1 was not written \\(its transaction under transactional id "sluice-${queryId}-0" is aborted\\): writing to ${topic}-1 on Kafka at .* failed: MESSAGE_TOO_LARGE `),
      );
      expect(sink.lastCommittedBatchId()).toBe(0);
      expect(await committed(session, topic)).toEqual([[0, "21", "small"]]);

      await sink.addBatch(1, rows(["21", "abc"], ["fits", "now small"]));
      expect(await committed(session, topic)).toEqual([
        [0, "21", "small"],
        [0, "21", "fits"],
        [1, "abc", "now small"],
      ]);
      const [p0, p1] = [await readPartition(topic, 0), await readPartition(topic, 1)];
      expect([logShape(p0), logShape(p1)]).toEqual([
        [["small"], "COMMIT", ["fits"], "ABORT", ["fits"], "COMMIT"],
        ["ABORT", ["now small"], "COMMIT"],
      ]);
      const epochs = p0.filter((b) => b.marker === null).map((b) => b.producerEpoch);
      expect(epochs).toEqual([epochs[0], epochs[0], epochs[0]! + 1]);
      expect(p0.filter((b) => b.marker === null).map((b) => b.baseSequence)).toEqual([0, 1, 0]);
    }));

  it("kafka.transaction.timeout.ms above the broker's transaction.max.timeout.ms fails open with an OptionError that says what to change", async () => {
    const topic = await newTopic(1);
    const queryId = randomUUID();
    const open = openSink(topic, queryId, { timeoutMs: 900_001 });
    await expect(open).rejects.toThrow(OptionError);
    await expect(open).rejects.toThrow(
      `kafka.transaction.timeout.ms=900001 is refused by Kafka at ${kafkaBootstrap()} (transactional id "sluice-${queryId}-0"): ` +
        "it must not exceed the broker's transaction.max.timeout.ms (900000 ms unless the broker sets it); lower the option or raise transaction.max.timeout.ms on the brokers",
    );
  });
});

describe("a streaming query writing to Kafka exactly once", () => {
  const bootstrap = () => kafkaBootstrap();

  it("an aggregation stopped and restarted on its checkpoint writes each result once, also when a batch's commit log entry was lost after its transaction committed", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const ckpt = checkpointDir();
      const words = session.memoryStream(z.object({ word: z.string() }));
      const start = () =>
        words
          .toDF()
          .groupBy("word")
          .count()
          .select(col("word").alias("key"), col("count").cast("string").alias("value"))
          .writeStream.outputMode("update")
          .format("kafka")
          .option("kafka.bootstrap.servers", bootstrap())
          .option("topic", topic)
          .option("exactlyOnce", true)
          .option("checkpointLocation", ckpt.dir)
          .start();
      const first = start();
      words.addData({ word: "a" }, { word: "b" }, { word: "a" });
      await first.processAllAvailable();
      words.addData({ word: "b" }, { word: "c" });
      await first.processAllAvailable();
      await first.stop();
      expect(first.recentProgress.map((p) => p.batchId)).toEqual([0, 1]);
      // As if the process had died after batch 1's transaction committed, before commits/1 was written.
      rmSync(ckpt.path("commits", "1"));

      const second = start();
      words.addData({ word: "a" });
      await second.processAllAvailable();
      await second.stop();
      // Batch 1 ran again: the sink found it in Kafka and wrote nothing.
      expect(second.recentProgress.map((p) => p.batchId)).toEqual([1, 2]);
      expect(second.id).toBe(first.id);
      await expect.poll(() => shapeOf(topic), MARKERS_WRITTEN).toEqual([["2", "1"], "COMMIT", ["2", "1"], "COMMIT", ["3"], "COMMIT"]);
      expect(await committed(session, topic)).toEqual([
        [0, "a", "2"],
        [0, "b", "1"],
        [0, "b", "2"],
        [0, "c", "1"],
        [0, "a", "3"],
      ]);
    }));

  it.each([
    ["kafkaSinkBeforeCommit", [["a1", "a2"], "COMMIT", ["b1"], "ABORT", ["b1"], "COMMIT", ["c1", "c2"], "COMMIT"]],
    ["kafkaSinkAfterCommit", [["a1", "a2"], "COMMIT", ["b1"], "COMMIT", ["c1", "c2"], "COMMIT"]],
  ] as const)("a query killed at %s of batch 1 and restarted on its checkpoint in another process writes each row once", (point, log) =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const ckpt = checkpointDir();
      const blocks = [["a1", "a2"], ["b1"], ["c1", "c2"]];
      const crash = await runCrashChild({ kind: "query", bootstrap: bootstrap(), topic, checkpoint: ckpt.dir, blocks: blocks.slice(0, 2) }, `${point}:1`);
      expect(crash.signal).toBe("SIGKILL");
      expect(crash.stderr).toContain(`SLUICE_CRASHED ${point} 1\n`);
      // Killed inside the sink: batch 1 is planned but not committed in the checkpoint.
      expect([existsSync(ckpt.path("offsets", "1")), existsSync(ckpt.path("commits", "0")), existsSync(ckpt.path("commits", "1"))]).toEqual([true, true, false]);

      // A memory stream lives in its process: the restarted query is given the same blocks again.
      const events = session.memoryStream(Event);
      events.addData(...eventsOf(blocks[0]!, 0));
      events.addData(...eventsOf(blocks[1]!, 1));
      const q = startEvents(events, bootstrap(), topic, ckpt.dir);
      await q.processAllAvailable();
      events.addData(...eventsOf(blocks[2]!, 2));
      await q.processAllAvailable();
      await q.stop();
      expect(q.recentProgress.map((p) => p.batchId)).toEqual([1, 2]);
      await expect.poll(() => shapeOf(topic), MARKERS_WRITTEN).toEqual(log);
      expect(await committed(session, topic)).toEqual([
        [0, "0-0", "a1"],
        [0, "0-1", "a2"],
        [0, "1-0", "b1"],
        [0, "2-0", "c1"],
        [0, "2-1", "c2"],
      ]);
    }),
  );

  it("a running query whose transactional id another query took over stops with the fencing error", () =>
    withSession(0, async (session) => {
      const topic = await newTopic(1);
      const prefix = `shared-${randomUUID()}`;
      const start = (events: MemoryStream<SchemaOfZod<typeof Event>>) =>
        events
          .toDF()
          .select(col("id").alias("key"), col("body").alias("value"))
          .writeStream.format("kafka")
          .option("kafka.bootstrap.servers", bootstrap())
          .option("topic", topic)
          .option("kafka.transactional.id.prefix", prefix)
          .option("checkpointLocation", checkpointDir().dir)
          .start();
      const [a, b] = [session.memoryStream(Event), session.memoryStream(Event)];
      const first = start(a);
      a.addData({ id: "a", body: "first" });
      await first.processAllAvailable();
      const second = start(b);
      b.addData({ id: "b", body: "took over" });
      await second.processAllAvailable();

      a.addData({ id: "a", body: "zombie" });
      await expect(first.awaitTermination()).rejects.toThrow(StreamingQueryException);
      const cause = first.exception!.cause as Error;
      expect(cause).toBeInstanceOf(ProducerFencedError);
      expect(cause.message).toBe(
        `Kafka sink: another run of this query took over transactional id "${prefix}-0" and fenced this one (AddPartitionsToTxn was answered INVALID_PRODUCER_EPOCH by ${bootstrap()}); ` +
          "this run stops without writing more. Run a query once at a time from one checkpoint, and give different queries different kafka.transactional.id.prefix values",
      );
      await second.stop();
      expect(await committed(session, topic)).toEqual([
        [0, "a", "first"],
        [0, "b", "took over"],
      ]);
    }));
});
