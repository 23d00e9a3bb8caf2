/**
 * The throughput-latency curve a `latencyTarget` trigger follows, against fixed batch sizes: each
 * Sluice variant runs W1 and W2 on a latency ladder that steps the input rate up and down again
 * (the same generator, topics and measures as `npm run bench`'s latency phase, harness/latency.ts),
 * and every step reports its latency p50/p99 and, from the job's progress lines, the batches it ran:
 * how many rows each read, how long each took, and the size the trigger chose. Variants run
 * interleaved (A B C A B C ...) when there are several repetitions.
 *
 *   npm run bench:curve
 *   npm run bench:curve -- --workload W1 --systems sluice:target-200ms,sluice:mopt-100000 --reps 2
 *
 * Writes bench/results/latency-curve.json, .md and .svg.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { Session } from "../src/index.js";
import { closeClusters } from "../src/sources/kafka/kafka-cluster.js";
import { environment, startBroker } from "./harness/bench-setup.js";
import { curveMarkdown, curveSvg, type CurveRun } from "./harness/curve-report.js";
import { latencyRun, type LatencyResult } from "./harness/latency.js";
import { ROOT, type LaunchArgs } from "./harness/systems.js";
import { Topics } from "./harness/topics.js";
import { parseSystems, systemOf, variantOf } from "./harness/variants.js";
import { adsJsonLines, SPECS, type WorkloadName } from "./harness/workloads.js";

const positiveList = z.string().transform((s, ctx) => {
  const numbers = s.split(",").map(Number);
  if (numbers.some((n) => !Number.isInteger(n) || n <= 0)) ctx.addIssue({ code: "custom", message: "must be a comma-separated list of positive integers" });
  return numbers;
});

const Options = z.strictObject({
  workload: z
    .string()
    .transform((s) => s.split(",").map((w) => w.trim()))
    .pipe(z.array(z.enum(["W1", "W2"], { message: "the curve runs on W1 and W2 (windowed aggregations)" })))
    .default(["W1", "W2"]),
  /** Sluice variants only: the curve compares how Sluice sizes its batches. */
  systems: z
    .string()
    .transform((s, ctx) => {
      try {
        const ids = parseSystems(s);
        const others = ids.filter((id) => systemOf(id) !== "sluice");
        if (others.length > 0) ctx.addIssue({ code: "custom", message: `${others.join(", ")}: the curve runs Sluice variants only (sluice:target-<n>ms, sluice:mopt-<n>)` });
        return ids;
      } catch (e) {
        ctx.addIssue({ code: "custom", message: (e as Error).message });
        return z.NEVER;
      }
    })
    .default(parseSystems("sluice:target-200ms,sluice:mopt-100000,sluice:mopt-1000000")),
  /** The ladder, up and down. */
  rates: positiveList.default([10_000, 50_000, 100_000, 150_000, 100_000, 50_000, 10_000]),
  /** Seconds per step: long enough for a window result whose whole window lies in the step, and several more. */
  "step-seconds": z.coerce.number().int().min(20).default(30),
  reps: z.coerce.number().int().min(1).default(1),
  tag: z.string().regex(/^[a-z0-9-]+$/, "lower-case letters, digits and dashes").optional(),
  bootstrap: z.string().default(process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:19092"),
});

function parseArgs(argv: readonly string[]): z.infer<typeof Options> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) throw new Error(`unexpected argument "${argv[i]}": options are --name value`);
    raw[m[1]!] = m[2] ?? argv[++i] ?? "";
  }
  const parsed = Options.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`--${issue.path.join(".") || "option"}: ${issue.message}`);
  }
  return parsed.data;
}

const log = (line: string) => console.log(`[curve ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const broker = startBroker(log);
  const work = mkdtempSync(path.join(os.tmpdir(), "sluice-curve-"));
  const ads = path.join(work, "ads.jsonl");
  writeFileSync(ads, adsJsonLines());
  const topics = new Topics(o.bootstrap);
  const session = new Session({ workers: 1 });
  const stamp = Date.now().toString(36);
  const bench = o.tag === undefined ? "curve" : `curve-${o.tag}`;
  const runs: CurveRun[] = [];
  try {
    for (const workload of o.workload as WorkloadName[]) {
      const spec = SPECS[workload];
      log(`${workload}: ${spec.title}; rates ${o.rates.join(", ")}, ${o["step-seconds"]} s per step`);
      const results: LatencyResult[] = [];
      for (let rep = 1; rep <= o.reps; rep++) {
        for (const system of o.systems) {
          const name = `${workload}-${system.replace(":", "-")}-${rep}`;
          const stateDir = path.join(work, name);
          mkdirSync(stateDir);
          const launch: LaunchArgs = {
            workload,
            bootstrap: o.bootstrap,
            input: `${bench}-in-${stamp}-${name}`,
            output: `${bench}-out-${stamp}-${name}`,
            ads,
            stateDir,
            runId: `${stamp}-${name}`,
            variant: variantOf(system),
            phase: "latency",
          };
          results.push(await latencyRun(system, rep, { session, topics, spec, rates: o.rates, stepMs: o["step-seconds"] * 1000, maxRate: Infinity, launch, brokerPid: broker, log }));
          await topics.delete(launch.output);
          await topics.delete(launch.input);
          rmSync(stateDir, { recursive: true, force: true });
        }
      }
      runs.push({ workload, title: spec.title, systems: o.systems, rates: o.rates, stepSeconds: o["step-seconds"], reps: o.reps, results });
    }
    const dir = path.join(ROOT, "bench/results");
    mkdirSync(dir, { recursive: true });
    const env = environment();
    writeFileSync(path.join(dir, "latency-curve.json"), JSON.stringify({ finishedAt: new Date().toISOString(), environment: env, runs }, null, 2) + "\n");
    writeFileSync(path.join(dir, "latency-curve.md"), curveMarkdown(runs, env));
    writeFileSync(path.join(dir, "latency-curve.svg"), curveSvg(runs));
    log("written to bench/results/latency-curve.{json,md,svg}");
  } finally {
    await session.stop();
    await topics.close();
    await closeClusters();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`bench:curve: ${(e as Error).message}`);
  process.exit(1);
});
