/**
 * Sluice against a plain kafkajs `eachMessage` loop, computing the same aggregation over the same
 * topic in the same run: JSON sensor readings -> 10-second tumbling windows -> count per
 * (window, sensor). Runs alternate (Sluice, naive, Sluice, naive, ...); each system drains the
 * whole pre-loaded topic; both answers are checked against the offline result.
 *
 *   bash scripts/kafka.sh start && npm run bench:kafka          # 2,000,000 records, 3 runs each
 *   npx tsx bench/kafka-naive.ts --records 500000 --runs 1
 */
import { mkdirSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { z } from "zod";
import { col, count, Session, window } from "../src/index.js";
import { closeClusters } from "../src/sources/kafka/kafka-cluster.js";
import { produceJson } from "../src/testing/kafka-load.js";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!);
const RECORDS = Number(args.get("records") ?? 2_000_000);
const RUNS = Number(args.get("runs") ?? 3);
const PARTITIONS = 4;
const BOOTSTRAP = process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:19092";
const BASE = Date.UTC(2026, 0, 1);
const WINDOW_MS = 10_000;
const SENSORS = 50;

const Reading = z.object({ sensor: z.string(), value: z.int32(), time: z.iso.datetime() });
const valueOf = (i: number) => `{"sensor":"s${i % SENSORS}","value":${i % 100},"time":"${new Date(BASE + i * 5).toISOString()}"}`;

/** The offline answer: count per (window start, sensor). */
function reference(): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < RECORDS; i++) {
    const key = `${Math.floor((i * 5) / WINDOW_MS) * WINDOW_MS + BASE}|s${i % SENSORS}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

async function runSluice(topic: string): Promise<{ seconds: number; answer: Map<string, number> }> {
  const session = new Session({ workers: 2 });
  try {
    // Every worker starts (and loads its modules) before the clock starts: paid once per process.
    const one = () => session.createDataFrame([{ sensor: "s", value: 1, time: new Date() }], Reading);
    await one().union(one()).union(one()).union(one()).count();
    const answer = new Map<string, number>();
    const started = performance.now();
    const q = session.readStream
      .format("kafka")
      .schema(Reading)
      .option("kafka.bootstrap.servers", BOOTSTRAP)
      .option("subscribe", topic)
      .option("startingOffsets", "earliest")
      .load()
      .withWatermark("time", "1 second")
      .groupBy(window(col("time"), "10 seconds"), "sensor")
      .agg(count().alias("n"))
      .writeStream.outputMode("update")
      .foreachBatch(async (df) => {
        for (const r of await df.collect()) answer.set(`${r.window.start.getTime()}|${r.sensor}`, r.n);
      })
      .trigger({ availableNow: true })
      .start();
    await q.awaitTermination();
    if (process.env.SLUICE_BENCH_VERBOSE) {
      for (const p of q.recentProgress) console.log(`  batch ${p.batchId}: ${p.numInputRows} rows, ${JSON.stringify(p.durationMs)}`);
    }
    return { seconds: (performance.now() - started) / 1000, answer };
  } finally {
    await session.stop();
  }
}

async function runNaive(topic: string, run: number): Promise<{ seconds: number; answer: Map<string, number> }> {
  const kafka = new Kafka({ brokers: [BOOTSTRAP], clientId: "naive-bench", logLevel: logLevel.ERROR });
  const consumer = kafka.consumer({ groupId: `naive-${topic}-${run}`, maxBytesPerPartition: 8 * 1024 * 1024 });
  const answer = new Map<string, number>();
  let seen = 0;
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error));
    void consumer.run({
      eachMessage: async ({ message }) => {
        const r = JSON.parse(message.value!.toString()) as { sensor: string; time: string };
        const key = `${Math.floor(Date.parse(r.time) / WINDOW_MS) * WINDOW_MS}|${r.sensor}`;
        answer.set(key, (answer.get(key) ?? 0) + 1);
        if (++seen === RECORDS) resolve();
      },
    });
  });
  const seconds = (performance.now() - started) / 1000;
  await consumer.disconnect();
  return { seconds, answer };
}

function sameAnswer(a: Map<string, number>, b: Map<string, number>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const kafka = new Kafka({ brokers: [BOOTSTRAP], logLevel: logLevel.ERROR });
const admin = kafka.admin();
await admin.connect();
const topic = `bench-naive-${Date.now()}`;
await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, configEntries: [{ name: "retention.ms", value: "-1" }] }], waitForLeaders: true });
try {
  const t0 = performance.now();
  await produceJson(BOOTSTRAP, topic, PARTITIONS, RECORDS, valueOf);
  console.log(`loaded ${RECORDS.toLocaleString()} records into ${PARTITIONS} partitions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const expected = reference();
  const rates = { sluice: [] as number[], naive: [] as number[] };
  for (let r = 0; r < RUNS; r++) {
    for (const system of ["sluice", "naive"] as const) {
      const { seconds, answer } = system === "sluice" ? await runSluice(topic) : await runNaive(topic, r);
      if (!sameAnswer(answer, expected)) throw new Error(`${system} run ${r + 1}: the answer differs from the offline reference; not reporting a figure`);
      rates[system].push(RECORDS / seconds);
      console.log(`run ${r + 1} ${system}: ${(RECORDS / seconds / 1e6).toFixed(3)} M records/s (${seconds.toFixed(2)} s), answer checked`);
    }
  }
  const sluice = median(rates.sluice);
  const naive = median(rates.naive);
  const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", node: process.version };
  const result = { benchmark: "kafka-naive", date: new Date().toISOString(), records: RECORDS, partitions: PARTITIONS, runs: RUNS, machine, sluice: { medianRecordsPerSecond: Math.round(sluice), samples: rates.sluice.map(Math.round) }, naive: { medianRecordsPerSecond: Math.round(naive), samples: rates.naive.map(Math.round) }, ratio: Number((sluice / naive).toFixed(2)) };
  const dir = path.join(path.dirname(new URL(import.meta.url).pathname), "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "kafka-naive.json"), `${JSON.stringify(result, null, 2)}\n`);
  const md = [
    "# Sluice vs a kafkajs eachMessage loop",
    "",
    `JSON readings -> 10 s tumbling window count per sensor, drained from a pre-loaded topic of ${RECORDS.toLocaleString()} records in ${PARTITIONS} partitions;`,
    `median of ${RUNS} alternating runs, answers checked against the offline result; ${machine.cpus} cores (${machine.cpuModel}), Node ${machine.node}, Kafka 4.1.2 on loopback. Produced by \`npm run bench:kafka\`.`,
    "",
    "| system | median records/s | runs |",
    "|---|---:|---|",
    `| Sluice (2 workers) | ${Math.round(sluice).toLocaleString("en-US")} | ${rates.sluice.map((x) => Math.round(x).toLocaleString("en-US")).join(", ")} |`,
    `| kafkajs eachMessage | ${Math.round(naive).toLocaleString("en-US")} | ${rates.naive.map((x) => Math.round(x).toLocaleString("en-US")).join(", ")} |`,
    "",
    `Ratio: **${(sluice / naive).toFixed(2)}x**.`,
    "",
  ].join("\n");
  writeFileSync(path.join(dir, "kafka-naive.md"), md);
  console.log(`\n${md}`);
} finally {
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
  await closeClusters();
}
