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
 * Writes bench/results/latency-curve.json, .md and .svg; a workload not run keeps its runs from the file.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { environment, startBroker, withBenchContext } from "./harness/bench-setup.js";
import { brokerOptions, parseOptions, positiveListOption, systemsOption } from "./harness/cli.js";
import { curveMarkdown, curveSvg, type CurveRun } from "./harness/curve-report.js";
import type { Environment } from "./harness/report.js";
import { latencyRun, type LatencyResult } from "./harness/latency.js";
import { ROOT, type LaunchArgs } from "./harness/systems.js";
import { parseSystems, systemOf, variantOf } from "./harness/variants.js";
import { SPECS, type WorkloadName } from "./harness/workloads.js";

const Options = z.object({
  workload: z
    .string()
    .transform((s) => s.split(",").map((w) => w.trim()))
    .pipe(z.array(z.enum(["W1", "W2"], { message: "the curve runs on W1 and W2 (windowed aggregations)" })))
    .default(["W1", "W2"]),
  /** Sluice variants only: the curve compares how Sluice sizes its batches. */
  systems: systemsOption
    .refine((ids) => ids.every((id) => systemOf(id) === "sluice"), { message: "the curve runs Sluice variants only (sluice:target-<n>ms, sluice:mopt-<n>)" })
    .default(parseSystems("sluice:target-200ms,sluice:mopt-100000,sluice:mopt-1000000")),
  /** The ladder, up and down. */
  rates: positiveListOption.default([10_000, 50_000, 100_000, 200_000, 100_000, 50_000, 10_000]),
  /** Seconds per step: long enough for a window result whose whole window lies in the step, and several more. */
  "step-seconds": z.coerce.number().int().min(20).default(30),
  reps: z.coerce.number().int().min(1).default(1),
  ...brokerOptions,
});

const log = (line: string) => console.log(`[curve ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main(): Promise<void> {
  const o = parseOptions(Options, process.argv.slice(2));
  const broker = startBroker(log);
  const stamp = Date.now().toString(36);
  const bench = o.tag === undefined ? "curve" : `curve-${o.tag}`;
  const runs: CurveRun[] = [];
  const env = environment();
  await withBenchContext("curve", o.bootstrap, async ({ work, ads, topics, session }) => {
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
      runs.push({ workload, title: spec.title, finishedAt: new Date().toISOString(), sluice: env.versions["Sluice"], systems: o.systems, rates: o.rates, stepSeconds: o["step-seconds"], reps: o.reps, results });
    }
    const dir = path.join(ROOT, "bench/results");
    mkdirSync(dir, { recursive: true });
    // A workload this invocation did not run keeps its runs from the file.
    const file = path.join(dir, "latency-curve.json");
    if (existsSync(file)) {
      const previous = JSON.parse(readFileSync(file, "utf8")) as { finishedAt: string; environment: Environment; runs: CurveRun[] };
      for (const r of previous.runs.filter((p) => !runs.some((n) => n.workload === p.workload))) {
        runs.push({ ...r, finishedAt: r.finishedAt ?? previous.finishedAt, sluice: r.sluice ?? previous.environment.versions["Sluice"] });
      }
    }
    runs.sort((a, b) => a.workload.localeCompare(b.workload));
    writeFileSync(file, JSON.stringify({ finishedAt: new Date().toISOString(), environment: env, runs }, null, 2) + "\n");
    writeFileSync(path.join(dir, "latency-curve.md"), curveMarkdown(runs, env));
    writeFileSync(path.join(dir, "latency-curve.svg"), curveSvg(runs));
    log("written to bench/results/latency-curve.{json,md,svg}");
  });
}

main().catch((e) => {
  console.error(`bench:curve: ${(e as Error).message}`);
  process.exit(1);
});
