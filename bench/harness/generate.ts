/**
 * The load generator: pre-loads drain topics (event time set by the generator, CreateTime) and
 * feeds latency runs at a fixed rate (LogAppendTime, so the broker's clock stamps each record).
 * Records are encoded as Kafka record batches by Sluice's columnar encoder and sent as raw
 * Produce requests: kafkajs's per-message encoder would be the limit.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import * as path from "node:path";
import { jsonRecordBatch, produceJson, sendBatches } from "../../src/testing/kafka-load.js";
import { ROOT } from "./systems.js";
import { PARTITIONS, type Topics } from "./topics.js";
import { BASE_MS, eventTime, SPAN_MS, type WorkloadSpec } from "./workloads.js";

/**
 * Who writes the drain topics: `sluice` (Sluice's columnar encoder, 8,000-record batches sent as
 * raw Produce requests) or `java` (a Kafka Java producer at its defaults: 16 KB batches).
 */
export type InputProducer = "sluice" | "java";
export const INPUT_PRODUCERS: readonly InputProducer[] = ["sluice", "java"];

/**
 * The drain topic of `records` records of `spec` written by `producer`, loaded unless a topic of
 * that name and size is there already: inputs are a pure function of (data, event-time span,
 * records, producer), so a topic loaded by an earlier run, or for another workload, is reused.
 * `prefix` is `bench` or `bench-<tag>`. Returns the topic's name.
 */
export async function drainInput(
  o: { readonly topics: Topics; readonly bootstrap: string; readonly prefix: string; readonly spec: WorkloadSpec; readonly records: number; readonly producer: InputProducer },
  log: (line: string) => void,
): Promise<string> {
  const { topics, spec, records, producer } = o;
  const input = `${o.prefix}-in-${spec.data}-${SPAN_MS / 1000}s-${records}${producer === "java" ? "-java" : ""}`;
  if (!(await topics.exists(input)) || (await topics.size(input)) !== records) {
    await topics.delete(input);
    await topics.create(input, false);
    const t0 = Date.now();
    await preload(o.bootstrap, input, spec, records, producer);
    log(`loaded ${records.toLocaleString("en-US")} records into ${input} with the ${producer} producer in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  return input;
}

/** Records 0..count-1 of `spec`, round-robin over the partitions, event time spread over the drain span. */
export async function preload(bootstrap: string, topic: string, spec: WorkloadSpec, count: number, producer: InputProducer = "sluice"): Promise<void> {
  if (producer === "java") return preloadWithJava(bootstrap, topic, spec, count);
  await produceJson(bootstrap, topic, PARTITIONS, count, (i) => spec.value(i, eventTime(i, count)), { timestamp: (i) => eventTime(i, count) });
}

/**
 * The same records written by bench/peers/kstreams/produce (InputProducer.java, a KafkaProducer
 * at its defaults): the runner generates each record once, as `partition TAB timestamp TAB value`
 * lines on the producer's stdin, so the data has one definition (workloads.ts).
 */
async function preloadWithJava(bootstrap: string, topic: string, spec: WorkloadSpec, count: number): Promise<void> {
  const child = spawn(path.join(ROOT, "bench/peers/kstreams/produce"), ["--bootstrap", bootstrap, "--topic", topic], { stdio: ["pipe", "pipe", "inherit"] });
  let stdout = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  const exited = once(child, "exit") as Promise<[number | null, string | null]>;
  const CHUNK = 10_000;
  for (let first = 0; first < count; first += CHUNK) {
    const lines: string[] = [];
    for (let i = first; i < Math.min(count, first + CHUNK); i++) {
      const ts = eventTime(i, count);
      lines.push(`${i % PARTITIONS}\t${ts}\t${spec.value(i, ts)}\n`);
    }
    if (!child.stdin!.write(lines.join(""))) await Promise.race([once(child.stdin!, "drain"), exited]);
    if (child.exitCode !== null) break;
  }
  child.stdin!.end();
  const [code] = await exited;
  if (code !== 0 || stdout.trim() !== `PRODUCED ${count}`) throw new Error(`the Java producer ${code === 0 ? `printed "${stdout.trim()}"` : `exited with ${code}`} instead of PRODUCED ${count}`);
}

/** Records per pre-encoded batch of a paced feed: at 10,000 records/s, two batches per 50 ms tick. */
const FEED_BATCH = 250;
/** Records in a paced feed's ring of batches, sent over and over. */
const FEED_RING = 400_000;

/**
 * The latency phase's load: record batches of `spec`'s values, encoded once and then sent at a
 * fixed rate in the workload's ticks (`WorkloadSpec.feedTickMs`: each tick sends what fell due
 * since the last, in whole batches), cycling through the ring. A LogAppendTime topic stamps each
 * record as it is appended, so the bytes need no change, and the generator's CPU goes to sending
 * rather than to building JSON while the system under test shares the machine.
 */
export class PacedFeed {
  private readonly ring: Uint8Array[] = [];
  private cursor = 0;

  constructor(
    private readonly bootstrap: string,
    private readonly topic: string,
    spec: WorkloadSpec,
    /** The workload's tick unless a bench compares ticks (bench/real-time.ts `--ticks`). */
    private readonly tickMs: number = spec.feedTickMs,
  ) {
    for (let first = 0; first < FEED_RING; first += FEED_BATCH) {
      this.ring.push(jsonRecordBatch(first, first + FEED_BATCH, 1, (i) => spec.value(i, BASE_MS))!);
    }
  }

  /** Sends `ratePerSecond` records a second until `untilMs`; returns how many it sent. */
  async run(ratePerSecond: number, untilMs: number): Promise<number> {
    const startedMs = Date.now();
    let batchesSent = 0;
    for (;;) {
      const now = Date.now();
      if (now >= untilMs) return batchesSent * FEED_BATCH;
      const due = Math.floor(((now - startedMs) * ratePerSecond) / 1000 / FEED_BATCH); // in batches
      const requests: Promise<void>[] = [];
      for (const round of feedRounds(batchesSent, due, PARTITIONS)) {
        requests.push(sendBatches(this.bootstrap, this.topic, round.map((partition) => ({ partition, batch: this.ring[this.cursor++ % this.ring.length]! }))));
      }
      batchesSent = Math.max(batchesSent, due);
      await Promise.all(requests);
      await new Promise((r) => setTimeout(r, Math.max(0, this.tickMs - (Date.now() - now))));
    }
  }
}

/**
 * The partitions of batches `sent` to `due - 1` (batch n goes to partition n mod `partitions`),
 * grouped into Produce requests, each holding at most one batch per partition. Counting from the
 * run's first batch, not from each tick's, spreads a slow rate evenly: at two batches a tick,
 * restarting at partition 0 every tick would leave half the partitions without data, and a
 * watermark taken over partitions would never advance.
 */
export function feedRounds(sent: number, due: number, partitions: number): number[][] {
  const rounds: number[][] = [];
  for (let n = sent; n < due; n++) {
    if ((n - sent) % partitions === 0) rounds.push([]);
    rounds[rounds.length - 1]!.push(n % partitions);
  }
  return rounds;
}
