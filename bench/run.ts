/**
 * Sluice side by side with Spark Structured Streaming, Kafka Streams and a kafkajs loop, on the
 * same topics of one Kafka broker in one run. For each workload: build the Maven peers, pre-load
 * the drain topic, compute the offline reference, then run every system in interleaved
 * repetitions (A B C D A B C D ...) for the drain and latency phases; write
 * bench/results/<workload>.json, the charts and bench/RESULTS.md. Method: bench/README.md.
 *
 *   npm run bench -- --workload W2 --systems sluice,spark,kstreams,naive
 *   npm run bench -- --workload all --reps 3
 *   npm run bench -- --workload W4 --systems sluice,naive --phases drain --records 1000000 --reps 1
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { Session } from "../src/index.js";
import { closeClusters } from "../src/sources/kafka/kafka-cluster.js";
import { drainRun, type DrainResult } from "./harness/drain.js";
import { preload } from "./harness/generate.js";
import { latencyRun, type LatencyResult } from "./harness/latency.js";
import { resultPath, summarize, writeResultsMarkdown, type Environment, type WorkloadRun } from "./harness/report.js";
import { buildPeers, ROOT, SYSTEMS, type LaunchArgs, type SystemName } from "./harness/systems.js";
import { Topics } from "./harness/topics.js";
import { adsJsonLines, SPECS, WORKLOADS, type WorkloadName } from "./harness/workloads.js";

const list = <T extends string>(values: readonly T[], what: string) =>
  z.string().transform((s, ctx) => {
    const picked = s === "all" ? [...values] : s.split(",").map((v) => v.trim());
    const bad = picked.filter((v) => !values.includes(v as T));
    if (bad.length > 0) ctx.addIssue({ code: "custom", message: `unknown ${what} ${bad.join(", ")}: use ${values.join(", ")} or all` });
    return picked as T[];
  });
const positiveList = z.string().transform((s, ctx) => {
  const numbers = s.split(",").map(Number);
  if (numbers.some((n) => !Number.isInteger(n) || n <= 0)) ctx.addIssue({ code: "custom", message: "must be a comma-separated list of positive integers" });
  return numbers;
});

const Options = z.object({
  workload: list(WORKLOADS, "workload").default(["W1", "W2", "W3", "W4"]),
  systems: list(SYSTEMS, "system").default([...SYSTEMS]),
  phases: list(["drain", "latency"] as const, "phase").default(["drain", "latency"]),
  /** Events per drain topic; by default each workload's own (WorkloadSpec.drainRecords). */
  records: z.coerce.number().int().min(100_000).optional(),
  reps: z.coerce.number().int().min(1).default(3),
  rates: positiveList.default([10_000, 25_000, 50_000, 100_000, 200_000, 400_000]),
  "step-seconds": z.coerce.number().int().min(10).default(20),
  bootstrap: z.string().default(process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:19092"),
});

function parseArgs(argv: readonly string[]): z.infer<typeof Options> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) throw new Error(`unexpected argument "${argv[i]}": options are --name value`);
    raw[m[1]!] = m[2] ?? argv[++i] ?? "";
  }
  const parsed = Options.strict().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`--${issue.path.join(".") || issue.message}: ${issue.message}`);
  }
  return parsed.data;
}

const log = (line: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** What a command prints, stdout and stderr together (`java -version` writes to stderr). */
function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return `${r.stdout ?? ""}${r.stderr ?? ""}`.trim();
}

function pomProperty(pom: string, name: string): string {
  const m = new RegExp(`<${name.replace(/\./g, "\\.")}>([^<]+)<`).exec(readFileSync(path.join(ROOT, pom), "utf8"));
  return m?.[1] ?? "?";
}

/** Sluice's version and the commit of the sources the runs load, so that runs of different code are told apart. */
function sluiceVersion(): string {
  const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const commit = sh("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]);
  if (!/^[0-9a-f]{7,}$/.test(commit)) return version;
  const changed = sh("git", ["-C", ROOT, "status", "--porcelain", "--", "src", "bench/jobs"]) !== "";
  return `${version} (commit ${commit}${changed ? ", with uncommitted changes" : ""})`;
}

function environment(): Environment {
  const pkg = (name: string) => (JSON.parse(readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  const cpu = os.cpus();
  return {
    machine: `${cpu.length} × ${cpu[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`,
    versions: {
      Sluice: sluiceVersion(),
      Node: process.version,
      Java: sh("java", ["-version"]).split("\n")[0] ?? "?",
      "Kafka broker": readFileSync(path.join(ROOT, "scripts/kafka/pom.xml"), "utf8").match(/<kafka\.version>([^<]+)</)?.[1] ?? "?",
      "Spark Structured Streaming": pomProperty("bench/peers/spark/pom.xml", "spark.version"),
      "Kafka Streams": pomProperty("bench/peers/kstreams/pom.xml", "kafka.version"),
      kafkajs: pkg("kafkajs"),
      "apache-arrow": pkg("apache-arrow"),
    },
  };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  execFileSync("bash", [path.join(ROOT, "scripts/kafka.sh"), "start"], { stdio: "inherit", env: { ...process.env, KAFKA_HEAP_OPTS: process.env.KAFKA_HEAP_OPTS ?? "-Xms1g -Xmx2g" } });
  buildPeers(o.systems, log);
  const work = mkdtempSync(path.join(os.tmpdir(), "sluice-bench-"));
  const ads = path.join(work, "ads.jsonl");
  writeFileSync(ads, adsJsonLines());
  const topics = new Topics(o.bootstrap);
  const session = new Session({ workers: 1 });
  const env = environment();
  const stamp = Date.now().toString(36);
  try {
    for (const workload of o.workload) {
      const spec = SPECS[workload];
      const records = o.records ?? spec.drainRecords;
      log(`${workload}: ${spec.title}`);
      const launchArgs = (system: SystemName, rep: number, input: string, phase: string): LaunchArgs => {
        const stateDir = path.join(work, `${workload}-${phase}-${system}-${rep}`);
        mkdirSync(stateDir);
        return { workload, bootstrap: o.bootstrap, input, output: `bench-out-${stamp}-${workload}-${phase}-${system}-${rep}`, ads, stateDir, runId: `${stamp}-${workload}-${phase}-${system}-${rep}` };
      };
      // A phase not run this time keeps its figures from the workload's last run (phases may run in separate sessions).
      const previous = existsSync(resultPath(workload)) ? (JSON.parse(readFileSync(resultPath(workload), "utf8")) as WorkloadRun) : null;
      const runsDrain = o.phases.includes("drain");
      const runsLatency = o.phases.includes("latency");
      const drain: DrainResult[] = runsDrain ? [] : [...(previous?.drain ?? [])];
      const latency: LatencyResult[] = runsLatency ? [] : [...(previous?.latency ?? [])];
      if (runsDrain) {
        // Inputs are a pure function of (data, records): a topic loaded by an earlier run, or for another workload, is reused.
        const input = `bench-in-${spec.data}-${records}`;
        if (!(await topics.exists(input)) || (await topics.size(input)) !== records) {
          await topics.delete(input);
          await topics.create(input, false);
          const t0 = Date.now();
          await preload(o.bootstrap, input, spec, records);
          log(`loaded ${records.toLocaleString("en-US")} records into ${input} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        }
        const t0 = Date.now();
        const reference = spec.reference(records);
        const expectedRows = [...reference.values()].reduce((a, b) => a + b, 0);
        log(`reference: ${expectedRows.toLocaleString("en-US")} results (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
        for (let rep = 1; rep <= o.reps; rep++) {
          for (const system of o.systems) {
            const launch = launchArgs(system, rep, input, "drain");
            const result = await drainRun(system, rep, { session, topics, spec, reference, expectedRows, inputRecords: records, launch, log });
            drain.push(result);
            // A wrong answer's output stays for inspection (topics named bench-out-*).
            if (result.status === "ok") await topics.delete(launch.output);
            await topics.delete(launch.runId); // Kafka Streams' repartition and changelog topics
            rmSync(launch.stateDir, { recursive: true, force: true });
          }
        }
      }
      if (runsLatency) {
        for (let rep = 1; rep <= o.reps; rep++) {
          for (const system of o.systems) {
            const ok = drain.filter((d) => d.system === system && d.status === "ok").map((d) => d.recordsPerSecond);
            const maxRate = ok.length > 0 ? 1.25 * Math.max(...ok) : Infinity;
            const launch = launchArgs(system, rep, `bench-lat-${stamp}-${workload}-${system}-${rep}`, "latency");
            latency.push(await latencyRun(system, rep, { session, topics, spec, rates: o.rates, stepMs: o["step-seconds"] * 1000, maxRate, launch, log }));
            await topics.delete(launch.output);
            await topics.delete(launch.input);
            await topics.delete(launch.runId);
            rmSync(launch.stateDir, { recursive: true, force: true });
          }
        }
      }
      const { summary, commonRate } = summarize(o.systems, drain, latency);
      const previousBuild = (phase: "drain" | "latency") => previous?.sluiceByPhase?.[phase] ?? previous?.environment.versions["Sluice"];
      const sluiceByPhase = {
        drain: runsDrain ? env.versions["Sluice"] : previousBuild("drain"),
        latency: runsLatency ? env.versions["Sluice"] : previousBuild("latency"),
      };
      const run: WorkloadRun = {
        workload: workload as WorkloadName,
        title: spec.title,
        finishedAt: new Date().toISOString(),
        environment: env,
        config: {
          records: runsDrain || !previous ? records : previous.config.records,
          reps: o.reps,
          rates: runsLatency || !previous ? o.rates : previous.config.rates,
          stepSeconds: runsLatency || !previous ? o["step-seconds"] : previous.config.stepSeconds,
          order: o.systems.join(", "),
        },
        sluiceByPhase,
        drain,
        latency,
        summary,
        commonRate,
      };
      mkdirSync(path.dirname(resultPath(workload)), { recursive: true });
      writeFileSync(resultPath(workload), JSON.stringify(run, null, 2) + "\n");
      writeResultsMarkdown();
      log(`${workload} written to ${path.relative(ROOT, resultPath(workload))} and bench/RESULTS.md`);
    }
  } finally {
    await session.stop();
    await topics.close();
    await closeClusters();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`bench: ${(e as Error).message}`);
  process.exit(1);
});
