import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Partitioners } from "kafkajs";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { col, lit, struct, to_json, unix_millis } from "../api/functions.js";
import { Session } from "../api/session.js";
import { withSession } from "../testing/fixtures.js";
import { createTopic, deleteTopic, kafkaBootstrap, kafkaClient } from "../testing/kafka.js";
import type { StreamingQuery } from "./streaming-query.js";

/**
 * Real-time mode against the real broker: records go from Kafka through the query to Kafka as
 * they arrive; each checkpoint interval ends a batch whose offsets, commit and progress are
 * written; a restart continues from the last checkpoint.
 */

const topics: string[] = [];
const dirs: string[] = [];
// Output is read by a session of its own, inline: a real-time query holds its session's workers for the whole batch.
const reader = new Session({ workers: 0 });
afterAll(async () => {
  await reader.stop();
  if (topics.length) await deleteTopic(...topics);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const Event = z.object({ id: z.int(), kind: z.string(), user: z.string() });

async function topic(partitions: number, appendTime = false): Promise<string> {
  const t = await createTopic("realtime", partitions, appendTime ? { "message.timestamp.type": "LogAppendTime" } : {});
  topics.push(t);
  return t;
}

function checkpointDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "sluice-realtime-"));
  dirs.push(d);
  return d;
}

async function produce(t: string, events: readonly z.infer<typeof Event>[], partitions: number): Promise<void> {
  const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic: t, messages: events.map((e) => ({ partition: e.id % partitions, value: JSON.stringify(e) })) });
  await producer.disconnect();
}

const events = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => ({ id: from + k, kind: (from + k) % 3 === 0 ? "click" : "view", user: `u${(from + k) % 5}` }));

/** W4's shape: views only, as JSON with the input record's timestamp. */
function viewsToKafka(session: Session, input: string, output: string, checkpoint: string, interval: string): StreamingQuery {
  return session.readStream
    .format("kafka")
    .option("kafka.bootstrap.servers", kafkaBootstrap())
    .option("subscribe", input)
    .option("startingOffsets", "earliest")
    .schema(Event)
    .load()
    .where(col("kind").equalTo(lit("view")))
    .select(to_json(struct(col("id"), col("user"), unix_millis(col("timestamp")).alias("ts"))).alias("value"))
    .writeStream.format("kafka")
    .option("kafka.bootstrap.servers", kafkaBootstrap())
    .option("topic", output)
    .option("checkpointLocation", checkpoint)
    .outputMode("update")
    .trigger({ realTime: interval })
    .start();
}

/** The output topic's records, with the broker's append time, read by Sluice's static Kafka reader. */
async function outputOf(t: string): Promise<{ id: number; user: string; ts: number; appendMs: number }[]> {
  const rows = await reader.read.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", t).load().select(col("value").cast("string").alias("value"), "timestamp").collect();
  return rows.map((r) => ({ ...(JSON.parse(r.value!) as { id: number; user: string; ts: number }), appendMs: r.timestamp.getTime() }));
}

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const views = (from: number, to: number) => events(from, to).filter((e) => e.kind === "view").map((e) => ({ id: e.id, user: e.user }));
const byId = <T extends { id: number }>(rows: readonly T[]) => [...rows].sort((a, b) => a.id - b.id);

describe("real-time mode against the real broker", () => {
  it("writes each record's output within milliseconds of its arrival, long before the checkpoint interval ends", () =>
    // One worker: its one task owns both partitions.
    withSession(1, async (session) => {
      const input = await topic(2, true);
      const output = await topic(1, true);
      const q = viewsToKafka(session, input, output, checkpointDir(), "5 minutes");
      try {
        // The tasks are reading once a first record makes it through.
        await produce(input, events(1, 2), 2);
        await until("the first output", async () => (await outputOf(output)).length === 0 ? false : true);
        for (let round = 1; round <= 10; round++) {
          await produce(input, events(round * 10, round * 10 + 10), 2);
          await new Promise((r) => setTimeout(r, 30));
        }
        await until("every view", async () => (await outputOf(output)).length === 1 + views(10, 110).length);
        const out = await outputOf(output);
        expect(byId(out.map(({ id, user }) => ({ id, user })))).toEqual([{ id: 1, user: "u1" }, ...views(10, 110)]);
        // Output append time minus input append time (both stamped by the broker), for the records
        // sent once the tasks were reading: far below the 5 minutes of the checkpoint interval.
        const latencies = out.filter((r) => r.id >= 10).map((r) => r.appendMs - r.ts).sort((a, b) => a - b);
        expect(latencies.at(-1)!).toBeLessThan(1_000);
        expect(q.recentProgress).toEqual([]);
      } finally {
        await q.stop();
      }
    }));

  it("checkpoints at each interval end, stops promptly with the offsets reached committed, and a restart goes on from there", () =>
    withSession(1, async (session) => {
      session.conf.set("spark.sql.streaming.realTimeMode.minBatchDuration", "500");
      const input = await topic(2);
      const output = await topic(1);
      const checkpoint = checkpointDir();
      await produce(input, events(0, 30), 2);
      const first = viewsToKafka(session, input, output, checkpoint, "1 second");
      await until("a first checkpoint with all 30 records", () => first.recentProgress.some((p) => p.sources[0]!.endOffset !== undefined && JSON.stringify(p.sources[0]!.endOffset) === JSON.stringify({ [input]: { "0": 15, "1": 15 } })));
      const progress = first.recentProgress.find((p) => p.numInputRows > 0)!;
      expect(progress.numInputRows).toBe(30);
      expect(progress.sink).toMatchObject({ description: `KafkaSink[${output}]`, numOutputRows: 20 });
      const offsets = JSON.parse(readFileSync(path.join(checkpoint, "offsets", String(progress.batchId)), "utf8").split("\n")[1]!) as Record<string, unknown>;
      expect(offsets).toMatchObject({ sources: [{ [input]: { "0": 15, "1": 15 } }], realTime: true });
      // Where each record's time went: all 30 counted, the fetch and the write each a part of the whole.
      const m = progress.sink.metrics!;
      expect(m["latencyMs.count"]).toBe("30");
      const ms = (k: string) => Number(m[k]);
      expect(ms("fetchLatencyMs.p50")).toBeLessThanOrEqual(ms("latencyMs.p50"));
      expect(ms("fetchLatencyMs.max")).toBeLessThanOrEqual(ms("latencyMs.max"));
      expect(ms("writeLatencyMs.max")).toBeLessThanOrEqual(ms("latencyMs.max"));
      expect(ms("writeLatencyMs.p50")).toBeGreaterThanOrEqual(0);
      // Batches follow each other: each starts where the one before stopped.
      await until("three checkpoints", () => first.recentProgress.length >= 3);
      const chain = first.recentProgress.slice(0, 3);
      expect(chain.map((p) => p.batchId)).toEqual([chain[0]!.batchId, chain[0]!.batchId + 1, chain[0]!.batchId + 2]);
      for (let k = 1; k < chain.length; k++) expect(chain[k]!.sources[0]!.startOffset).toEqual(chain[k - 1]!.sources[0]!.endOffset);

      // A stop ends the running batch at once, whatever is left of its interval, and commits it.
      const slow = viewsToKafka(session, input, output, checkpointDir(), "5 minutes");
      await until("the second query's tasks reading", async () => (await outputOf(output)).length === 40);
      const stopping = Date.now();
      await slow.stop();
      expect(Date.now() - stopping).toBeLessThan(2_000);
      expect(slow.lastProgress!.sources[0]!.endOffset).toEqual({ [input]: { "0": 15, "1": 15 } });

      await first.stop();
      await produce(input, events(30, 60), 2);
      const again = viewsToKafka(session, input, output, checkpoint, "1 second");
      try {
        await until("the restart's output", async () => (await outputOf(output)).length === 40 + 20);
        // The first query's output, the second query's (its own checkpoint), and the restart's from the first's last checkpoint on: nothing lost, nothing again.
        const rows = await outputOf(output);
        expect(byId(rows.map(({ id, user }) => ({ id, user })))).toEqual(byId([...views(0, 30), ...views(0, 30), ...views(30, 60)]));
        await until("the restart's first checkpoint", () => again.recentProgress.length > 0);
        expect(again.recentProgress[0]!.sources[0]!.startOffset).toEqual({ [input]: { "0": 15, "1": 15 } });
      } finally {
        await again.stop();
      }
    }));

  it("runs a union of two topics joined with a static table, record by record", () =>
    withSession(1, async (session) => {
      const left = await topic(1);
      const right = await topic(1);
      const output = await topic(1);
      const users = session.createDataFrame([{ user: "u1", name: "Ada" }, { user: "u2", name: "Bo" }], z.object({ user: z.string(), name: z.string() }));
      const read = (t: string) =>
        session.readStream.format("kafka").option("kafka.bootstrap.servers", kafkaBootstrap()).option("subscribe", t).option("startingOffsets", "earliest").schema(Event).load().select("id", "user");
      const q = read(left)
        .union(read(right))
        .join(users, "user")
        .select(to_json(struct(col("id"), col("user"), col("name"), lit(0).alias("ts"))).alias("value"))
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", kafkaBootstrap())
        .option("topic", output)
        .option("checkpointLocation", checkpointDir())
        .outputMode("update")
        .trigger({ realTime: "5 minutes" })
        .start();
      try {
        await produce(left, [{ id: 1, kind: "view", user: "u1" }, { id: 2, kind: "view", user: "u9" }], 1);
        await produce(right, [{ id: 3, kind: "click", user: "u2" }], 1);
        await until("the joined rows", async () => (await outputOf(output)).length === 2);
        const rows = (await outputOf(output)) as unknown as { id: number; user: string; name: string }[];
        expect(byId(rows.map(({ id, user, name }) => ({ id, user, name })))).toEqual([{ id: 1, user: "u1", name: "Ada" }, { id: 3, user: "u2", name: "Bo" }]);
      } finally {
        await q.stop();
      }
    }));
});
