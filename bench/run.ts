/**
 * Sluice side by side with Spark Structured Streaming, Kafka Streams and a kafkajs loop, on the
 * same topics of one Kafka broker in one run. For each workload: build the Maven peers, pre-load
 * the drain topic, compute the offline reference, then run every system in interleaved
 * repetitions (A B C D A B C D ...) for the drain and latency phases; write
 * bench/results/<workload>.json, the charts and bench/RESULTS.md. Method: bench/README.md.
 *
 * Every system runs in variants (`system:variant`: defaults and expert tunings, harness/variants.ts).
 * A long run can be done in parts: each invocation runs some workloads, phases and variants, and
 * keeps the previous runs of the variants and phases it does not run (harness/merge.ts).
 *
 *   npm run bench -- --workload W2 --systems sluice,spark,kstreams:throughput,naive
 *   npm run bench -- --workload all
 *   npm run bench -- --workload W4 --systems sluice,naive --phases drain --records 1000000 --reps 1
 *   npm run bench -- --workload W1 --phases drain --reps 2 --add-reps yes      # two more repetitions
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { drainRun, type DrainResult } from "./harness/drain.js";
import { drainInput, INPUT_PRODUCERS } from "./harness/generate.js";
import { latencyRun, minStepSeconds, type LatencyResult } from "./harness/latency.js";
import { environment, startBroker, withBenchContext } from "./harness/bench-setup.js";
import { feedTickMsOf, keptRuns, nextRep, repetitions, type Invocation } from "./harness/merge.js";
import { brokerOptions, listOption, parseOptions, positiveListOption, systemsOption } from "./harness/cli.js";
import { resultPath, writeResultsMarkdown, type WorkloadRun } from "./harness/report.js";
import { summarize } from "./harness/summary.js";
import { buildPeers, ROOT, type LaunchArgs } from "./harness/systems.js";
import { appliesTo, normalizeId, parseSystems, systemOf, variantOf, type VariantId } from "./harness/variants.js";
import { SPAN_MS, SPECS, WORKLOADS, type WorkloadName } from "./harness/workloads.js";

const Options = z.object({
  workload: listOption(WORKLOADS, "workload").default(["W1", "W2", "W3", "W4"]),
  /** Systems (all their variants), `system:variant`s, or all. */
  systems: systemsOption.default(parseSystems("all")),
  phases: listOption(["drain", "latency"] as const, "phase").default(["drain", "latency"]),
  /** Events per drain topic; by default each workload's own (WorkloadSpec.drainRecords). */
  records: z.coerce.number().int().min(100_000).optional(),
  reps: z.coerce.number().int().min(1).default(5),
  rates: positiveListOption.default([10_000, 25_000, 50_000, 100_000, 200_000, 400_000]),
  /** Seconds per rate step; by default each workload's own (WorkloadSpec.latencyStepSeconds). */
  "step-seconds": z.coerce.number().int().min(10).optional(),
  /** Who writes the drain topics: Sluice's encoder or a Kafka Java producer at its defaults. */
  producer: z.enum(INPUT_PRODUCERS).default("sluice"),
  /** `yes`: add this run's repetitions to the earlier ones of the same variants (same input and ladder) instead of replacing them. */
  "add-reps": z.enum(["yes", "no"]).default("no"),
  /** `yes`: drop earlier runs taken on another input or ladder even where this run does not replace them (harness/merge.ts). */
  "drop-incomparable": z.enum(["yes", "no"]).default("no"),
  ...brokerOptions,
});

const log = (line: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** What an invocation runs of `workload`, for harness/merge.ts. */
function invocationOf(o: z.infer<typeof Options>, workload: WorkloadName): Invocation {
  const spec = SPECS[workload];
  return {
    systems: o.systems.filter((id) => appliesTo(id, workload)),
    phases: o.phases,
    records: o.records ?? spec.drainRecords,
    producer: o.producer,
    spanMs: SPAN_MS,
    rates: o.rates,
    stepSeconds: o["step-seconds"] ?? spec.latencyStepSeconds,
    feedTickMs: spec.feedTickMs,
    addReps: o["add-reps"] === "yes",
    dropIncomparable: o["drop-incomparable"] === "yes",
  };
}

function previousRun(workload: WorkloadName): WorkloadRun | null {
  return existsSync(resultPath(workload)) ? (JSON.parse(readFileSync(resultPath(workload), "utf8")) as WorkloadRun) : null;
}

async function main(): Promise<void> {
  const o = parseOptions(Options, process.argv.slice(2));
  // Before anything runs: a step too short to hold a result, or an invocation that would lose
  // earlier runs it does not replace, is refused.
  const refusals = o.workload.flatMap((w) => {
    const invocation = invocationOf(o, w);
    const shortStep =
      o.phases.includes("latency") && invocation.stepSeconds < minStepSeconds(SPECS[w])
        ? [`--step-seconds ${invocation.stepSeconds} is too short for ${w}: its results fall due every ${SPECS[w].resultEveryMs / 1000} s and a step counts them from its warm-up on, so a step under ${minStepSeconds(SPECS[w])} s may hold none (${w}'s default is ${SPECS[w].latencyStepSeconds} s)`]
        : [];
    return [...shortStep, ...keptRuns(previousRun(w), invocation).conflicts.map((c) => `${w}: this run would drop earlier results it does not replace: ${c}`)];
  });
  if (refusals.length > 0) throw new Error(refusals.join("\n"));
  const broker = startBroker(log);
  // The Java input producer is built with the Kafka Streams peer.
  buildPeers([...new Set([...o.systems.map(systemOf), ...(o.producer === "java" ? (["kstreams"] as const) : [])])], log);
  const env = environment();
  const stamp = Date.now().toString(36);
  const bench = o.tag === undefined ? "bench" : `bench-${o.tag}`;
  await withBenchContext("bench", o.bootstrap, async ({ work, ads, topics, session }) => {
    for (const workload of o.workload) {
      const spec = SPECS[workload];
      const invocation = invocationOf(o, workload);
      const { records, stepSeconds, systems } = invocation;
      log(`${workload}: ${spec.title}`);
      const launchArgs = (system: VariantId, rep: number, input: string, phase: "drain" | "latency"): LaunchArgs => {
        const name = `${workload}-${phase}-${system.replace(":", "-")}-${rep}`;
        const stateDir = path.join(work, name);
        mkdirSync(stateDir);
        return { workload, bootstrap: o.bootstrap, input, output: `${bench}-out-${stamp}-${name}`, ads, stateDir, runId: `${stamp}-${name}`, variant: variantOf(system), phase };
      };
      // What this invocation does not run keeps its runs from the workload's last results
      // (harness/merge.ts): phases, variants and repetitions may run in separate invocations.
      const previous = previousRun(workload);
      const runsDrain = o.phases.includes("drain");
      const runsLatency = o.phases.includes("latency");
      const kept = keptRuns(previous, invocation);
      kept.dropped.forEach(log);
      const drain: DrainResult[] = kept.drain;
      const latency: LatencyResult[] = kept.latency;
      const build = env.versions["Sluice"];
      if (runsDrain) {
        const input = await drainInput({ topics, bootstrap: o.bootstrap, prefix: bench, spec, records, producer: o.producer }, log);
        const t0 = Date.now();
        const reference = spec.reference(records);
        const expectedRows = [...reference.values()].reduce((a, b) => a + b, 0);
        log(`reference: ${expectedRows.toLocaleString("en-US")} results (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
        const firstRep = new Map(systems.map((s) => [s, nextRep(drain, s)]));
        for (let i = 0; i < o.reps; i++) {
          for (const system of systems) {
            const rep = firstRep.get(system)! + i;
            const launch = launchArgs(system, rep, input, "drain");
            const result = await drainRun(system, rep, { session, topics, spec, reference, expectedRows, inputRecords: records, launch, brokerPid: broker, log });
            drain.push({ ...result, build, spanMs: SPAN_MS });
            // A wrong answer's output stays for inspection (topics named bench-out-*).
            if (result.status === "ok") await topics.delete(launch.output);
            await topics.delete(launch.runId); // Kafka Streams' repartition and changelog topics
            rmSync(launch.stateDir, { recursive: true, force: true });
          }
        }
      }
      if (runsLatency) {
        const firstRep = new Map(systems.map((s) => [s, nextRep(latency, s)]));
        for (let i = 0; i < o.reps; i++) {
          for (const system of systems) {
            const rep = firstRep.get(system)! + i;
            const ok = drain.filter((d) => d.system === system && d.status === "ok").map((d) => d.recordsPerSecond);
            const maxRate = ok.length > 0 ? 1.25 * Math.max(...ok) : Infinity;
            const launch = launchArgs(system, rep, `${bench}-lat-${stamp}-${workload}-${system.replace(":", "-")}-${rep}`, "latency");
            latency.push({ ...(await latencyRun(system, rep, { session, topics, spec, rates: o.rates, stepMs: stepSeconds * 1000, maxRate, launch, brokerPid: broker, log })), build });
            await topics.delete(launch.output);
            await topics.delete(launch.input);
            await topics.delete(launch.runId);
            rmSync(launch.stateDir, { recursive: true, force: true });
          }
        }
      }
      // Rows: the previous run's variants in their order, then this run's new ones.
      const rows = [...new Set([...(previous?.summary ?? []).map((r) => normalizeId(r.system)), ...drain.map((d) => d.system), ...latency.map((l) => l.system), ...systems])];
      const { summary, commonRate } = summarize(rows.filter((id) => drain.some((d) => d.system === id) || latency.some((l) => l.system === id)), drain, latency);
      const run: WorkloadRun = {
        workload: workload as WorkloadName,
        title: spec.title,
        finishedAt: new Date().toISOString(),
        environment: env,
        config: {
          records: runsDrain || !previous ? records : previous.config.records,
          reps: repetitions(drain, latency),
          rates: runsLatency || !previous ? o.rates : previous.config.rates,
          stepSeconds: runsLatency || !previous ? stepSeconds : previous.config.stepSeconds,
          feedTickMs: runsLatency || !previous ? spec.feedTickMs : feedTickMsOf(previous.config),
          order: rows.join(", "),
          producer: runsDrain || !previous ? o.producer : (previous.config.producer ?? "sluice"),
        },
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
  });
}

main().catch((e) => {
  console.error(`bench: ${(e as Error).message}`);
  process.exit(1);
});
