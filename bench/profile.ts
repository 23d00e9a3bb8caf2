/**
 * `npm run bench:profile`: where a bench workload's CPU goes in Sluice. Runs the Sluice job of
 * `npm run bench` (bench/jobs/sluice-job.ts, default variant) over the workload's drain topic under
 * `node --cpu-prof` until it has read `--records` rows, then reads the main thread's profile into
 * the stages of the query and the functions with the most self time.
 *
 * With `--workers 0` (the default) the tasks run on the main thread, so the profile holds every
 * stage (Node writes no profile for a pool's worker threads, which are terminated). With
 * `--workers 2`, as the bench runs, it holds the driver's share alone: planning, the stateful
 * operators' merge, the sink and commits.
 *
 *   npm run bench:profile -- [--workload W1] [--records 5000000] [--workers 0] [--top 25]
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { environment, startBroker, withBenchContext } from "./harness/bench-setup.js";
import { brokerOptions, parseOptions } from "./harness/cli.js";
import { summarizeProfile, type CpuProfile, type ProfileSummary } from "./harness/cpu-profile.js";
import { drainInput } from "./harness/generate.js";
import { buildJsSystems, launcherArgv, launcherOf, ROOT } from "./harness/systems.js";
import { SPECS, WORKLOADS } from "./harness/workloads.js";

const Options = z.object({
  workload: z.enum(WORKLOADS).default("W1"),
  records: z.coerce.number().int().positive().default(5_000_000),
  workers: z.coerce.number().int().min(0).max(8).default(0),
  top: z.coerce.number().int().positive().default(25),
  ...brokerOptions,
});

/**
 * The query's stages, each named by the function that does it: a profile's inclusive time of
 * that function is the stage's cost. A stage the workload does not have shows 0.
 */
const STAGES: readonly (readonly [string, string])[] = [
  ["Kafka fetch and record-batch decode (task)", "readKafkaSplit"],
  ["record batches to columns", "decodeRecordBatchesInto"],
  ["CRC-32C of record batches", "crc32c"],
  ["JSON values to columns (the source's schema or from_json)", "decodeJsonValues"],
  ["filter", "filterBatch"],
  ["stream-static join", "probeStaticJoin"],
  ["event time and watermark", "observeEventTime"],
  ["partial aggregation (task)", "partialAggregate"],
  ["to_json", "toJsonText"],
  ["Kafka sink: record batches", "encodeRecordRows"],
  ["Kafka sink: produce requests", "encodeProduceV7"],
  ["garbage collector", "(garbage collector)"],
];

/** The summary's line on stdout (bench/jobs/sluice-job.ts, --stop-after-rows). */
const Stopped = z.object({ rows: z.number(), wallMs: z.number(), cpuSeconds: z.number() });
type Stopped = z.infer<typeof Stopped>;

const log = (line: string) => console.log(`[profile ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** The main thread's profile among those `--cpu-prof` wrote (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile). */
function mainThreadProfile(dir: string): CpuProfile {
  const main = readdirSync(dir).find((f) => f.endsWith(".cpuprofile") && f.split(".")[4] === "0");
  if (main === undefined) throw new Error(`no main-thread profile in ${dir}: did the job exit cleanly?`);
  return JSON.parse(readFileSync(path.join(dir, main), "utf8")) as CpuProfile;
}

async function runProfiled(argv: string[], profileDir: string): Promise<Stopped> {
  mkdirSync(profileDir, { recursive: true });
  const child = spawn(launcherOf("sluice"), argv, {
    env: { ...process.env, NODE_OPTIONS: "", SLUICE_BENCH_NODE_FLAGS: `--cpu-prof --cpu-prof-dir=${profileDir}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderrTail = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderrTail = (stderrTail + d.toString()).slice(-4_000)));
  // A job that never reaches the row count (a stall, a too-large --records) is stopped, not waited on forever.
  const timeout = setTimeout(() => child.kill("SIGKILL"), 60 * 60_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timeout);
  const line = stdout.split("\n").find((l) => l.startsWith("BENCH_STOPPED "));
  if (code !== 0 || line === undefined) throw new Error(`the Sluice job exited with ${code} before reading its rows: ${stderrTail.split("\n").slice(-5).join(" / ")}`);
  return Stopped.parse(JSON.parse(line.slice("BENCH_STOPPED ".length)));
}

function report(o: z.infer<typeof Options>, stopped: Stopped, summary: ProfileSummary, build: string): string {
  const f = (n: number, digits = 2) => n.toFixed(digits);
  const pct = (share: number) => `${(100 * share).toFixed(1)}%`;
  const scope = o.workers === 0 ? "every stage, on the main thread" : `the driver (main thread) alone; the ${o.workers} workers' share is in the process CPU only`;
  return [
    `# Where ${o.workload}'s CPU goes in Sluice`,
    "",
    `Written by \`npm run bench:profile -- --workload ${o.workload} --records ${o.records} --workers ${o.workers}\` (bench/profile.ts):`,
    `the bench's Sluice job (default variant) over the drain topic, under \`node --cpu-prof\`, until it read ${o.records.toLocaleString("en-US")} rows.`,
    `Sluice ${build}; ${environment().machine}. The profile holds ${scope}.`,
    "",
    `- rows read: ${stopped.rows.toLocaleString("en-US")}; wall ${f(stopped.wallMs / 1000, 1)} s; process CPU ${f(stopped.cpuSeconds, 1)} s (every thread, startup included, profiler overhead included)`,
    `- rows per process CPU-second: ${Math.round(stopped.rows / stopped.cpuSeconds).toLocaleString("en-US")}`,
    `- main thread: ${f(summary.busySeconds, 1)} s busy, ${f(summary.idleSeconds, 1)} s idle; shares below are of its busy time`,
    "",
    "## Stages (inclusive time of the function that does each)",
    "",
    "A stage's time includes the stages it calls (the fetch includes the record batches' decode, which includes the CRC).",
    "",
    "| stage | function | seconds | share |",
    "|---|---|---:|---:|",
    ...summary.stages.map((s) => `| ${s.stage} | \`${s.functionName}\` | ${f(s.seconds)} | ${pct(s.share)} |`),
    "",
    `## Self time, the ${summary.top.length} largest`,
    "",
    "| function | seconds | share |",
    "|---|---:|---:|",
    ...summary.top.map((t) => `| \`${t.frame}\` | ${f(t.seconds)} | ${pct(t.share)} |`),
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const o = parseOptions(Options, process.argv.slice(2));
  startBroker(log);
  buildJsSystems(log);
  const spec = SPECS[o.workload];
  const prefix = o.tag === undefined ? "bench" : `bench-${o.tag}`;
  const build = environment().versions["Sluice"] ?? "?";
  await withBenchContext("profile", o.bootstrap, async ({ work, ads, topics }) => {
    const input = await drainInput({ topics, bootstrap: o.bootstrap, prefix, spec, records: o.records, producer: "sluice" }, log);
    const runId = `${Date.now().toString(36)}-profile-${o.workload}`;
    const output = `${prefix}-out-${runId}`;
    await topics.create(output, true);
    try {
      const stateDir = path.join(work, "state");
      mkdirSync(stateDir);
      const argv = [
        ...launcherArgv({ workload: o.workload, bootstrap: o.bootstrap, input, output, ads, stateDir, runId, variant: "default", phase: "drain" }),
        ...["--workers", String(o.workers), "--stop-after-rows", String(o.records)],
      ];
      log(`profiling ${o.workload} over ${input} with ${o.workers} workers`);
      const stopped = await runProfiled(argv, path.join(work, "profiles"));
      const summary = summarizeProfile(mainThreadProfile(path.join(work, "profiles")), { top: o.top, stages: STAGES, root: path.join(ROOT, "bench/.build") });
      const file = path.join(ROOT, "bench/results", `profile-${o.workload}-workers-${o.workers}.md`);
      writeFileSync(file, report(o, stopped, summary, build));
      log(`${stopped.rows.toLocaleString("en-US")} rows, ${stopped.cpuSeconds.toFixed(1)} CPU-s; written to ${path.relative(ROOT, file)}`);
    } finally {
      await topics.delete(output);
    }
  });
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(`bench:profile: ${(e as Error).message}`);
    process.exit(1);
  },
);
