/**
 * Real-time mode against the default micro-batch trigger on W4 (Kafka JSON ad events -> views
 * only -> to_json(user_id, ad_id, ts) -> Kafka), at a fixed input rate: input and output topics
 * stamp records with LogAppendTime, so a record's latency is its output's append time minus its
 * input's (the broker's clock only). The feed is the bench's paced generator (pre-encoded record
 * batches sent in 50 ms ticks). CPU is this process's (the query, its worker threads and the
 * feed's sending), per second of the measured window.
 *
 *   npx tsx bench/real-time.ts [--rate 50000] [--seconds 60] [--warmup 10] [--workers 2]
 *
 * Writes bench/results/real-time.json and .md.
 */
import { writeFileSync } from "node:fs";
import { col, lit, Session, struct, to_json, unix_millis } from "../src/index.js";
import { z } from "zod";
import { PacedFeed } from "./harness/generate.js";
import { percentile } from "./harness/stats.js";
import { readOutput, Topics } from "./harness/topics.js";
import { SPECS } from "./harness/workloads.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const RATE = arg("rate", 50_000);
const SECONDS = arg("seconds", 60);
const WARMUP = arg("warmup", 10);
const WORKERS = arg("workers", 2);
const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:19092";
const AdEvent = z.object({ ad_id: z.string(), event_type: z.string(), user_id: z.string() });

type Mode = "realTime" | "microBatch";

interface ModeResult {
  readonly mode: Mode;
  readonly rate: number;
  readonly seconds: number;
  readonly sentRate: number;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly cpuPercent: number;
}

async function measure(mode: Mode, topics: Topics, reader: Session): Promise<ModeResult> {
  const run = `sluice-realtime-bench-${mode}-${Date.now()}`;
  const input = `${run}-in`;
  const output = `${run}-out`;
  await topics.create(input, true);
  await topics.create(output, true);
  const session = new Session({ workers: WORKERS });
  try {
    const writer = session.readStream
      .format("kafka")
      .option("kafka.bootstrap.servers", bootstrap)
      .option("subscribe", input)
      .option("startingOffsets", "earliest")
      .schema(AdEvent)
      .load()
      .where(col("event_type").equalTo(lit("view")))
      .select(to_json(struct(col("user_id"), col("ad_id"), unix_millis(col("timestamp")).alias("ts"))).alias("value"))
      .writeStream.format("kafka")
      .option("kafka.bootstrap.servers", bootstrap)
      .option("topic", output)
      .option("checkpointLocation", `/tmp/${run}`);
    const q = mode === "realTime" ? writer.outputMode("update").trigger({ realTime: "30 seconds" }).start() : writer.outputMode("append").start();
    const feed = new PacedFeed(bootstrap, input, SPECS.W4);
    await new Promise((r) => setTimeout(r, 3_000));
    await feed.run(RATE, Date.now() + WARMUP * 1000);
    const cpu0 = process.cpuUsage();
    const from = Date.now();
    const sent = await feed.run(RATE, from + SECONDS * 1000);
    const to = Date.now();
    const cpu = process.cpuUsage(cpu0);
    await new Promise((r) => setTimeout(r, 5_000));
    await q.stop();
    if (q.exception) throw q.exception;
    const out = await readOutput(reader, bootstrap, output, await topics.size(output));
    const latencies = out.filter((r) => Number(r.value.ts) >= from && Number(r.value.ts) <= to).map((r) => r.appendMs - Number(r.value.ts));
    const result: ModeResult = {
      mode,
      rate: RATE,
      seconds: SECONDS,
      sentRate: Math.round((sent * 1000) / (to - from)),
      samples: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies.reduce((m, v) => Math.max(m, v), -Infinity),
      cpuPercent: Math.round(((cpu.user + cpu.system) / 1000 / (to - from)) * 100),
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await session.stop();
    await topics.delete(run);
  }
}

const topics = new Topics(bootstrap);
const reader = new Session({ workers: 0 });
try {
  const results = [await measure("realTime", topics, reader), await measure("microBatch", topics, reader)];
  const when = new Date().toISOString();
  writeFileSync("bench/results/real-time.json", JSON.stringify({ when, workload: "W4", workers: WORKERS, warmupSeconds: WARMUP, results }, null, 2) + "\n");
  const rows = results.map((r) => `| ${r.mode === "realTime" ? '{ realTime: "30 seconds" }' : "default (micro-batch)"} | ${r.rate} | ${r.sentRate} | ${r.samples} | ${r.p50Ms} | ${r.p99Ms} | ${r.maxMs} | ${r.cpuPercent}% |`);
  writeFileSync(
    "bench/results/real-time.md",
    [
      `# Real-time mode vs micro-batch, W4 (${when})`,
      "",
      `Latency = output append time - input append time (LogAppendTime on both topics), over the records fed during the ${SECONDS} s window after a ${WARMUP} s warm-up; CPU is this process's (query, ${WORKERS} worker threads and the feed's sending) per second of the window.`,
      "A short run on a shared 2-core machine (other builds, a JVM and a broker running beside it): noisy, one rep.",
      "",
      "| trigger | rate (rec/s) | sent (rec/s) | samples | p50 ms | p99 ms | max ms | CPU |",
      "|---|---|---|---|---|---|---|---|",
      ...rows,
      "",
    ].join("\n"),
  );
} finally {
  await reader.stop();
  await topics.close();
}
