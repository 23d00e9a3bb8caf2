import { Partitioners } from "kafkajs";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { col } from "../../api/functions.js";
import { Session } from "../../api/session.js";
import { createTopic, deleteTopic, kafkaBootstrap, kafkaClient } from "../../testing/kafka.js";
import { kafkaBroker, processState } from "../../testing/kafka-broker.js";
import { tempDir } from "../../testing/temp-dir.js";

// What the Kafka source does when its broker fails under a running query: killed (SIGKILL) and restarted,
// frozen (SIGSTOP), or gone for good. Every fault ends in a bounded outcome: the query recovers within its
// retry budget, or fails with an error that names the broker and what did not answer; restarted on its
// checkpoint once the broker is back, its output equals that of a run the fault never touched.
//
// Waits are short, set through the source options, so that each failure comes within seconds. The request
// timeout is longer than the lookup and fetch timeouts, so the error says which of those two expired.
const BOUNDS = {
  "kafka.request.timeout.ms": 10_000,
  "kafka.connection.timeout.ms": 1_000,
  "kafka.default.api.timeout.ms": 3_000,
  "kafkaConsumer.pollTimeoutMs": 3_000,
  "fetchOffset.numRetries": 2,
  "fetchOffset.retryIntervalMs": 500,
  // 10 records per partition and batch: several batches, so a fault can fall between two of them.
  maxOffsetsPerTrigger: 20,
};

/** How long the killed broker stays down before it is started again. */
const OUTAGE_MS = 10_000;

interface Row {
  partition: number;
  offset: number;
  value: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const broker = () => kafkaBootstrap();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const byPosition = (a: Row, b: Row) => a.partition - b.partition || a.offset - b.offset;

/**
 * Writes records n = from..to-1: value "v<n>" in partition n % 2, so its offset there is floor(n / 2). The
 * producer is idempotent: a broker settling after a fault can fail a write it made, and a plain retry
 * would write it twice, shifting every offset after it.
 */
async function produce(topic: string, from: number, to: number): Promise<void> {
  const producer = kafkaClient().producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: to - from }, (_, k) => ({ partition: (from + k) % 2, value: `v${from + k}` })) });
  } finally {
    await producer.disconnect();
  }
}

function records(from: number, to: number): Row[] {
  return Array.from({ length: to - from }, (_, k) => ({ partition: (from + k) % 2, offset: Math.floor((from + k) / 2), value: `v${from + k}` })).sort(byPosition);
}

/**
 * A foreachBatch sink that keeps each batch's rows by batch id, as an idempotent writer would: a batch that
 * runs again replaces what its id wrote. `before` runs first and may fail the batch (nothing is kept then).
 */
function batchSink(before: (batchId: number, rows: Row[]) => Promise<void> = async () => {}) {
  const byBatch = new Map<number, Row[]>();
  return {
    byBatch,
    write: async (rows: Row[], batchId: number) => {
      await before(batchId, rows);
      byBatch.set(batchId, rows);
    },
    /** Every row written, in partition and offset order; a row written under two batch ids appears twice. */
    rows: () => [...byBatch.values()].flat().sort(byPosition),
  };
}

function startQuery(session: Session, topic: string, checkpoint: string, sink: ReturnType<typeof batchSink>, options: Record<string, number> = {}) {
  return session.readStream
    .format("kafka")
    .option("kafka.bootstrap.servers", broker())
    .option("subscribe", topic)
    .option("startingOffsets", "earliest")
    .options({ ...BOUNDS, ...options })
    .load()
    .select("partition", "offset", col("value").cast("string").alias("value"))
    .writeStream.foreachBatch(async (df, batchId) => sink.write((await df.collect()) as Row[], batchId))
    .option("checkpointLocation", checkpoint)
    .start();
}

/** The same query, run on a fresh checkpoint against a healthy broker until it has read everything. */
async function uninterruptedRun(session: Session, topic: string): Promise<Row[]> {
  const dir = tempDir("sluice-faults-reference-");
  try {
    const sink = batchSink();
    const q = session.readStream
      .format("kafka")
      .option("kafka.bootstrap.servers", broker())
      .option("subscribe", topic)
      .option("startingOffsets", "earliest")
      .options(BOUNDS)
      .load()
      .select("partition", "offset", col("value").cast("string").alias("value"))
      .writeStream.foreachBatch(async (df, batchId) => sink.write((await df.collect()) as Row[], batchId))
      .option("checkpointLocation", dir.path("checkpoint"))
      .trigger({ availableNow: true })
      .start();
    await q.awaitTermination();
    return sink.rows();
  } finally {
    dir.remove();
  }
}

/** Resolves within `ms` or fails the test saying what it waited for (instead of a bare test timeout). */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A foreachBatch sink that also writes each batch to `output`, a topic of the same broker. In batch 1 it
 * first brings on `fault` (a kill or a freeze); its own write then fails, at once, through a producer that
 * does not retry and waits 1 s for an answer, so batch 1 stays planned in the offsets log but uncommitted.
 * Every other write goes through a producer that retries: a broker settling after a fault refuses some
 * writes for a moment.
 */
async function downstreamSink(output: string, fault: () => Promise<number>) {
  const steady = kafkaClient("sluice-faults-sink").producer();
  const fragile = kafkaClient("sluice-faults-sink-fragile", { retry: { retries: 0 }, requestTimeout: 1_000 }).producer();
  await Promise.all([steady.connect(), fragile.connect()]);
  const fault1 = { pid: 0, rows: [] as Row[] };
  const sink = batchSink(async (batchId, rows) => {
    const messages = rows.map((r) => ({ value: r.value }));
    if (batchId === 1 && fault1.pid === 0) {
      fault1.rows = rows;
      fault1.pid = await fault();
      await fragile.send({ topic: output, messages });
    } else {
      await steady.send({ topic: output, messages });
    }
  });
  const close = () => Promise.all([steady.disconnect(), fragile.disconnect()]).then(() => undefined, () => undefined);
  cleanups.push(close);
  return { sink, fault: fault1, close };
}

const topics: string[] = [];
/** Run after each test, whether it passed or not: clients a test opened. */
const cleanups: (() => Promise<void>)[] = [];
let session: Session;
let dir: ReturnType<typeof tempDir>;
let warn: MockInstance<typeof console.warn>;

beforeEach(() => {
  session = new Session({ workers: 1 });
  dir = tempDir("sluice-faults-");
  // The source reports each failed lookup attempt as a warning; tests read them from here.
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});

afterEach(async () => {
  warn.mockRestore();
  try {
    // Whatever a test did to the broker, the next one (and the other suites' teardown) finds it answering.
    await kafkaBroker.restore();
  } finally {
    // Even when it does not come back: clients left open would retry into the next test.
    await Promise.all(cleanups.splice(0).map((c) => c()));
    await session.stop();
    dir.remove();
  }
});

afterAll(async () => {
  if (topics.length) await deleteTopic(...topics);
});

async function topicWith(base: string, n: number): Promise<string> {
  const topic = await createTopic(base, 2);
  topics.push(topic);
  await produce(topic, 0, n);
  return topic;
}

/** The failed lookup attempts the source warned about, as "k of n", asserting that each names the broker. */
function lookupAttempts(topic: string): string[] {
  const messages = warn.mock.calls.map(([m]) => String(m)).filter((m) => m.startsWith("cannot "));
  for (const m of messages) expect(m).toMatch(new RegExp(`^cannot .* ${escape(topic)} from Kafka at ${escape(broker())} \\(attempt \\d+ of \\d+\\): `));
  return messages.map((m) => /\(attempt (\d+ of \d+)\)/.exec(m)![1]!);
}

/** Where batch `batchId + 1` starts in `partition`: after the last offset batch `batchId` wrote there. */
function nextOffset(sink: ReturnType<typeof batchSink>, batchId: number, partition: number): number {
  const offsets = [...sink.byBatch.entries()].filter(([id]) => id <= batchId).flatMap(([, rows]) => rows.filter((r) => r.partition === partition).map((r) => r.offset));
  return offsets.length ? Math.max(...offsets) + 1 : 0;
}

describe("Kafka source: broker killed (SIGKILL) and restarted", () => {
  it("between batches, back 10 s later: the offset lookups retry until it answers, and the query carries on without losing or repeating a record", async () => {
    const topic = await topicWith("faults-kill-recover", 60);
    const sink = batchSink();
    // A budget longer than the outage and the restart: 31 attempts a second apart.
    const q = startQuery(session, topic, dir.path("checkpoint"), sink, { "fetchOffset.numRetries": 30, "fetchOffset.retryIntervalMs": 1_000 });
    await q.processAllAvailable();
    expect(sink.rows()).toEqual(records(0, 60));

    const pid = await kafkaBroker.kill();
    expect(processState(pid)).toBe("gone");
    await sleep(OUTAGE_MS);
    // Down all this time: the query waits in its offset lookups, alive.
    expect(q.isActive).toBe(true);
    expect(q.status.message).toBe("Getting offsets from sources");
    const restarted = await kafkaBroker.start();
    expect(restarted).not.toBe(pid);
    expect(processState(restarted)).toBe("running");

    await produce(topic, 60, 100);
    await within(60_000, "reading the records produced after the restart", q.processAllAvailable());
    expect(q.exception).toBeNull();
    expect(sink.rows()).toEqual(records(0, 100));
    const attempts = lookupAttempts(topic);
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    expect(attempts.every((a) => a.endsWith(" of 31"))).toBe(true);
    await q.stop();
    expect(sink.rows()).toEqual(await uninterruptedRun(session, topic));
  });

  it("between batches, with a budget shorter than the outage: the query fails naming the broker; restarted on its checkpoint it loses nothing", async () => {
    const topic = await topicWith("faults-kill-fail", 60);
    const sink = batchSink();
    const q = startQuery(session, topic, dir.path("checkpoint"), sink);
    await q.processAllAvailable();
    const batchesBefore = sink.byBatch.size;

    const pid = await kafkaBroker.kill();
    const killedAt = performance.now();
    const failure = await within(20_000, "the query's failure", q.awaitTermination().then(() => null, (e: unknown) => e as Error));
    // fetchOffset.numRetries 2: three attempts, 500 ms apart, each refused at once.
    expect(failure?.message).toMatch(
      new RegExp(`cannot (list the partitions of topic\\(s\\) |get the latest offsets of )${escape(topic)} from Kafka at ${escape(broker())} after 3 attempt\\(s\\) 500 ms apart: .*ECONNREFUSED`),
    );
    expect(failure?.message).toContain("raise the source options fetchOffset.numRetries (2) or fetchOffset.retryIntervalMs (500)");
    expect(lookupAttempts(topic)).toEqual(["1 of 3", "2 of 3"]);
    expect(processState(pid)).toBe("gone");

    await sleep(OUTAGE_MS - (performance.now() - killedAt));
    await kafkaBroker.start();
    await produce(topic, 60, 100);
    const again = startQuery(session, topic, dir.path("checkpoint"), sink);
    await within(60_000, "the restarted query", again.processAllAvailable());
    await again.stop();
    // It went on from the batch after the last one committed: no batch id was written twice.
    expect(Math.min(...[...sink.byBatch.keys()].slice(batchesBefore))).toBe(batchesBefore);
    expect(sink.rows()).toEqual(records(0, 100));
    expect(sink.rows()).toEqual(await uninterruptedRun(session, topic));
  });

  it("while a planned batch is fetched: the tasks fail naming the broker after their attempts; once it is back the batch runs again with the same offsets", async () => {
    const topic = await topicWith("faults-kill-fetch", 60);
    const output = await createTopic("faults-kill-fetch-out", 1);
    topics.push(output);
    // In batch 1 the broker is killed under the sink, whose own write to it then fails.
    const { sink, fault, close } = await downstreamSink(output, () => kafkaBroker.kill());
    const q = startQuery(session, topic, dir.path("checkpoint"), sink);
    const sinkFailure = await within(30_000, "the sink's failure", q.awaitTermination().then(() => null, (e: unknown) => e as Error));
    expect(sinkFailure?.message).toMatch(/terminated with exception: .*(ECONNREFUSED|ECONNRESET|Closed connection|not connected)/i);
    const { pid, rows: firstTry } = fault;
    expect(processState(pid)).toBe("gone");
    // Batch 1 starts where batch 0 ended; how far it reaches depends on the offsets the broker reported.
    expect(firstTry.length).toBeGreaterThan(0);
    expect(firstTry.filter((r) => r.offset < nextOffset(sink, 0, r.partition))).toEqual([]);

    // Restarted while the broker is down, the query re-runs batch 1 from the offsets log: no lookup comes
    // first, so the workers' fetches meet the dead broker. The pool tries each task 4 times, then gives up.
    const started = performance.now();
    const rerun = startQuery(session, topic, dir.path("checkpoint"), sink);
    const fetchFailure = await within(60_000, "the fetch failure", rerun.awaitTermination().then(() => null, (e: unknown) => e as Error));
    expect(fetchFailure?.message).toMatch(new RegExp(`Kafka (fetch of|connection to read) ${escape(topic)}-[01] .*from broker ${escape(broker())} failed: `));
    expect(performance.now() - started).toBeLessThan(45_000);
    expect(lookupAttempts(topic)).toEqual([]);
    expect(sink.byBatch.has(1)).toBe(false);

    await kafkaBroker.start();
    const recovered = startQuery(session, topic, dir.path("checkpoint"), sink);
    await within(60_000, "the recovered query", recovered.processAllAvailable());
    await recovered.stop();
    await close();
    // Batch 1 ran again with exactly the offsets it was planned with.
    expect(sink.byBatch.get(1)).toEqual(firstTry);
    expect(sink.rows()).toEqual(records(0, 60));
    expect(sink.rows()).toEqual(await uninterruptedRun(session, topic));
  });
});

describe("Kafka source: broker frozen (SIGSTOP)", () => {
  it("between batches, thawed 12 s later: within the lookup budget the query carries on, and the fencing that follows the stall is not taken for data loss", async () => {
    const topic = await topicWith("faults-freeze-recover", 40);
    const sink = batchSink();
    const q = startQuery(session, topic, dir.path("checkpoint"), sink, { "fetchOffset.numRetries": 30, "fetchOffset.retryIntervalMs": 1_000 });
    await q.processAllAvailable();
    expect(sink.rows()).toEqual(records(0, 40));

    const pid = await kafkaBroker.freeze();
    // Longer than the broker's session timeout (broker.session.timeout.ms, 9 s): once thawed, its
    // controller fences it and lets it back, and its partitions change leader epoch meanwhile.
    await sleep(12_000);
    expect(processState(pid)).toBe("frozen");
    expect(q.isActive).toBe(true);
    expect(q.status.message).toBe("Getting offsets from sources");
    await kafkaBroker.thaw();
    expect(processState(pid)).toBe("running");

    await produce(topic, 40, 60);
    await within(60_000, "reading the records produced after the thaw", q.processAllAvailable());
    expect(q.exception).toBeNull();
    expect(sink.rows()).toEqual(records(0, 60));
    const attempts = lookupAttempts(topic);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.every((a) => a.endsWith(" of 31"))).toBe(true);
    await q.stop();
    expect(sink.rows()).toEqual(await uninterruptedRun(session, topic));
  });

  it("between batches: each lookup attempt expires after kafka.default.api.timeout.ms, and the query fails naming the broker; thawed and restarted, it loses nothing", async () => {
    const topic = await topicWith("faults-freeze-lookup", 40);
    let pid = 0;
    const sink = batchSink(async (batchId) => {
      if (batchId === 1) pid = await kafkaBroker.freeze();
    });
    const q = startQuery(session, topic, dir.path("checkpoint"), sink);
    const started = performance.now();
    const failure = await within(30_000, "the query's failure", q.awaitTermination().then(() => null, (e: unknown) => e as Error));
    const elapsed = performance.now() - started;
    expect(processState(pid)).toBe("frozen");
    expect(failure?.message).toMatch(
      new RegExp(
        `cannot (list the partitions of topic\\(s\\) |get the latest offsets of )${escape(topic)} from Kafka at ${escape(broker())} after 3 attempt\\(s\\) 500 ms apart: ` +
          "no answer within 3000 ms \\(kafka\\.default\\.api\\.timeout\\.ms\\)\\.",
      ),
    );
    expect(lookupAttempts(topic)).toEqual(["1 of 3", "2 of 3"]);
    // Three attempts of 3 s and two waits of 500 ms, after the two batches before the freeze.
    expect(elapsed).toBeGreaterThanOrEqual(3 * 3_000 + 2 * 500);
    expect(elapsed).toBeLessThan(25_000);
    expect([...sink.byBatch.keys()]).toEqual([0, 1]);

    await kafkaBroker.thaw();
    expect(processState(pid)).toBe("running");
    const again = startQuery(session, topic, dir.path("checkpoint"), sink);
    await within(60_000, "the restarted query", again.processAllAvailable());
    await again.stop();
    expect(sink.rows()).toEqual(records(0, 40));
    expect(sink.rows()).toEqual(await uninterruptedRun(session, topic));
  });

  it("while a planned batch is fetched: each fetch expires after kafkaConsumer.pollTimeoutMs, the tasks fail naming the broker; thawed, the batch runs again", async () => {
    const topic = await topicWith("faults-freeze-fetch", 60);
    const output = await createTopic("faults-freeze-fetch-out", 1);
    topics.push(output);
    // As with the kill: the sink's own write to the frozen broker times out, so batch 1 stays planned but
    // uncommitted, and the restarted query's first contact with the broker is a fetch.
    const { sink, fault, close } = await downstreamSink(output, () => kafkaBroker.freeze());
    const q = startQuery(session, topic, dir.path("checkpoint"), sink);
    const sinkFailure = await within(30_000, "the sink's failure", q.awaitTermination().then(() => null, (e: unknown) => e as Error));
    expect(sinkFailure?.message).toMatch(/terminated with exception: .*timed out/i);
    const { pid } = fault;
    expect(processState(pid)).toBe("frozen");

    const started = performance.now();
    const rerun = startQuery(session, topic, dir.path("checkpoint"), sink);
    const fetchFailure = await within(60_000, "the fetch failure", rerun.awaitTermination().then(() => null, (e: unknown) => e as Error));
    const elapsed = performance.now() - started;
    const firstFetch = [0, 1].map((p) => `fetch of ${escape(topic)}-${p} at offset ${nextOffset(sink, 0, p)}`).join("|");
    expect(fetchFailure?.message).toMatch(
      new RegExp(`Kafka (${firstFetch}|connection to read ${escape(topic)}-[01]) from broker ${escape(broker())} failed: no answer within 3000 ms \\(kafkaConsumer\\.pollTimeoutMs\\)`),
    );
    // Four attempts of 3 s (maxTaskAttempts) and the pool's waits of 0.1, 0.2 and 0.4 s between them.
    expect(elapsed).toBeGreaterThanOrEqual(4 * 3_000 + 700);
    expect(elapsed).toBeLessThan(45_000);
    expect(processState(pid)).toBe("frozen");

    await kafkaBroker.thaw();
    const recovered = startQuery(session, topic, dir.path("checkpoint"), sink);
    await within(60_000, "the recovered query", recovered.processAllAvailable());
    await recovered.stop();
    await close();
    expect(sink.byBatch.get(1)).toEqual(fault.rows);
    expect(sink.rows()).toEqual(records(0, 60));
    expect(sink.rows()).toEqual(await uninterruptedRun(session, topic));
  });
});

describe("Kafka source: broker gone for good", () => {
  it("a running query and a new read each fail within their budget, naming the broker", async () => {
    const topic = await topicWith("faults-gone", 20);
    const sink = batchSink();
    const q = startQuery(session, topic, dir.path("checkpoint"), sink);
    await q.processAllAvailable();
    const pid = await kafkaBroker.kill();
    expect(processState(pid)).toBe("gone");

    const started = performance.now();
    const failure = await within(20_000, "the query's failure", q.awaitTermination().then(() => null, (e: unknown) => e as Error));
    expect(failure?.message).toMatch(new RegExp(`from Kafka at ${escape(broker())} after 3 attempt\\(s\\) 500 ms apart: .*ECONNREFUSED`));
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(sink.rows()).toEqual(records(0, 20));

    const read = session.read.format("kafka").option("kafka.bootstrap.servers", broker()).option("subscribe", topic).options(BOUNDS).load().collect();
    await expect(within(20_000, "the static read's failure", read)).rejects.toThrow(
      new RegExp(`cannot list the partitions of topic\\(s\\) ${escape(topic)} from Kafka at ${escape(broker())} after 3 attempt\\(s\\) 500 ms apart: cannot connect to Kafka at ${escape(broker())}`),
    );
    expect(processState(pid)).toBe("gone");
  });
});
