/**
 * The Sluice side of `npm run bench`: W1-W4 as a TypeScript team would write them with Sluice,
 * following bench/peers/README.md (arguments, BENCH_STARTED line, output shape).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { col, count, from_json, lit, Session, struct, sum, to_json, unix_millis, window, type TriggerInput } from "../../src/index.js";
import { BENCH_PROGRESS, type BenchProgress } from "../harness/batch-progress.js";

/**
 * Sluice's variants: a variant is a choice of trigger (and of the source's batch bound) on the
 * same query. Adding one is one entry here and one in bench/harness/variants.ts.
 */
interface Variant {
  /** The source's maxOffsetsPerTrigger (see `input` below); unset in real-time mode, which reads records as they arrive. */
  readonly maxOffsetsPerTrigger?: number;
  /** The output mode when not append: real-time mode writes in update mode (the same rows for a stateless query). */
  readonly outputMode?: "update";
  /** The writer's trigger, as `DataStreamWriter.trigger` takes it; the default trigger when absent. */
  readonly trigger?: TriggerInput;
}
const BATCH_BOUND = 1_000_000;
const VARIANTS: Readonly<Record<string, Variant>> = {
  default: { maxOffsetsPerTrigger: BATCH_BOUND },
  realtime: { trigger: { realTime: "5 minutes" }, outputMode: "update" },
};

/** A named variant, or `mopt-<n>` (fixed batches of n offsets) or `target-<n>ms` (a latencyTarget trigger). */
function variantNamed(name: string): Variant | undefined {
  const mopt = /^mopt-([1-9][0-9]*)$/.exec(name);
  if (mopt) return { maxOffsetsPerTrigger: Number(mopt[1]) };
  const target = /^target-([1-9][0-9]*)ms$/.exec(name);
  if (target) return { maxOffsetsPerTrigger: BATCH_BOUND, trigger: { latencyTarget: `${target[1]} ms` } };
  return VARIANTS[name];
}

const Args = z.strictObject({
  workload: z.enum(["W1", "W2", "W3", "W4"]),
  variant: z
    .string()
    .default("default")
    .refine((v) => variantNamed(v) !== undefined, { message: `unknown variant: use ${Object.keys(VARIANTS).join(", ")}, mopt-<n> or target-<n>ms` }),
  /** drain or latency: the same settings for both today (a micro-batch ends when its results are written). */
  phase: z.enum(["drain", "latency"]).default("latency"),
  bootstrap: z.string(),
  input: z.string(),
  output: z.string(),
  ads: z.string(),
  "state-dir": z.string(),
  "run-id": z.string(),
  /** Worker threads (bench/profile.ts runs 0, so that the tasks' code runs on the profiled main thread). */
  workers: z.coerce.number().int().min(0).default(2),
  /** Stop once the query has read this many rows, print BENCH_STOPPED and exit (bench/profile.ts); unset: run until stopped. */
  "stop-after-rows": z.coerce.number().int().positive().optional(),
});
const raw: Record<string, string> = {};
for (let i = 2; i < process.argv.length; i += 2) raw[process.argv[i]!.replace(/^--/, "")] = process.argv[i + 1]!;
const parsed = Args.safeParse(raw);
if (!parsed.success) {
  const issue = parsed.error.issues[0]!;
  console.error(`sluice job: --${issue.path.join(".")}: ${issue.message}`);
  process.exit(2);
}
const args = parsed.data;
const variant: Variant = variantNamed(args.variant)!;

const AdEvent = z.object({ ad_id: z.string(), event_type: z.string(), user_id: z.string() });
const Bid = z.object({ auction: z.int(), price: z.int() });
const Keyed = z.object({ key: z.string(), value: z.int() });
const Ad = z.object({ ad_id: z.string(), campaign_id: z.string() });

const session = new Session({ workers: args.workers });
// maxOffsetsPerTrigger bounds each micro-batch (Spark's option, unset there): a task holds its
// offset range's decoded columns, so a 15 M-record backlog read in one batch would need ~6 GiB,
// while 1 M-offset batches stay under 1 GiB and drain faster.
const input = () =>
  session.readStream
    .format("kafka")
    .option("kafka.bootstrap.servers", args.bootstrap)
    .option("subscribe", args.input)
    .option("startingOffsets", "earliest")
    .options(variant.maxOffsetsPerTrigger === undefined ? {} : { maxOffsetsPerTrigger: variant.maxOffsetsPerTrigger });

const windowBounds = [unix_millis(col("window.start")).alias("window_start"), unix_millis(col("window.end")).alias("window_end")] as const;

function query() {
  switch (args.workload) {
    case "W1": {
      const ads = session.createDataFrame(
        readFileSync(args.ads, "utf8").split("\n").filter(Boolean).map((l) => Ad.parse(JSON.parse(l))),
        Ad,
      );
      return input().schema(AdEvent).load().withWatermark("timestamp", "1 second")
        .where(col("event_type").equalTo(lit("view")))
        .join(ads, "ad_id")
        .groupBy(window(col("timestamp"), "10 seconds"), "campaign_id")
        .agg(count().alias("count"))
        .select(to_json(struct(...windowBounds, col("campaign_id").alias("key"), col("count"))).alias("value"));
    }
    case "W2":
      return input().schema(Bid).load().withWatermark("timestamp", "1 second")
        .groupBy(window(col("timestamp"), "10 seconds", "2 seconds"), "auction")
        .agg(count().alias("count"))
        .select(to_json(struct(...windowBounds, col("auction").cast("string").alias("key"), col("count"))).alias("value"));
    case "W3":
      // The record's "key" field would clash with Kafka's key column under .schema(): decode with from_json, as in Spark.
      return input()
        .load()
        .select(from_json(col("value"), Keyed), "timestamp")
        .withWatermark("timestamp", "1 second")
        .groupBy(window(col("timestamp"), "10 seconds"), "key")
        .agg(count().alias("count"), sum(col("value")).alias("sum"))
        .select(to_json(struct(...windowBounds, col("key"), col("count"), col("sum"))).alias("value"));
    case "W4":
      return input().schema(AdEvent).load()
        .where(col("event_type").equalTo(lit("view")))
        .select(to_json(struct(col("user_id"), col("ad_id"), unix_millis(col("timestamp")).alias("ts"))).alias("value"));
  }
}

const df = query();
const stream = df.writeStream
  .format("kafka")
  .option("kafka.bootstrap.servers", args.bootstrap)
  .option("topic", args.output)
  .option("checkpointLocation", `${args["state-dir"]}/checkpoint`)
  .outputMode(variant.outputMode ?? "append");
const writer = variant.trigger === undefined ? stream : stream.trigger(variant.trigger);
// One line per batch on stderr (bench/peers/README.md allows anything there): what the batch read and
// how long it took, and under a latencyTarget trigger the size Sluice chose, for the latency curve.
session.streams.addListener({
  onQueryProgress: ({ progress: p }) => {
    const line: BenchProgress = {
      endMs: Date.parse(p.timestamp) + p.batchDuration,
      batchId: p.batchId,
      rows: p.numInputRows,
      durationMs: p.batchDuration,
      maxRowsPerBatch: p.batchSizing?.maxRowsPerBatch,
      mode: p.batchSizing?.mode,
    };
    process.stderr.write(`${BENCH_PROGRESS} ${JSON.stringify(line)}\n`);
  },
});
const stopAfterRows = args["stop-after-rows"];
if (stopAfterRows !== undefined) {
  let rowsRead = 0;
  session.streams.addListener({
    onQueryProgress: ({ progress: p }) => {
      rowsRead += p.numInputRows;
      if (rowsRead < stopAfterRows || rowsRead - p.numInputRows >= stopAfterRows) return;
      // Process-wide CPU (every thread), before the exit that writes a --cpu-prof profile.
      const cpu = process.cpuUsage();
      console.log(`BENCH_STOPPED ${JSON.stringify({ rows: rowsRead, wallMs: Date.now() - startedMs, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}`);
      void q.stop().finally(() => session.stop().finally(() => process.exit(0)));
    },
  });
}
const startedMs = Date.now();
console.log(`BENCH_STARTED ${startedMs}`);
const q = writer.start();
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    void q.stop().finally(() => session.stop().finally(() => process.exit(0)));
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}
q.awaitTermination().then(
  () => session.stop(),
  (e: unknown) => {
    console.error(`sluice job failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
  },
);
