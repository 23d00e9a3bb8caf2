/**
 * One latency run: the system starts on an empty LogAppendTime topic, is fed a warm-up at the
 * ladder's first rate, then the generator feeds it at the ladder's fixed rates, one step each
 * (rising in `npm run bench`, up and down again in `npm run bench:curve`), skipping rates above its
 * drain throughput; the sustainable rate is the highest of the steps sustained before the first
 * that was not.
 * Only the broker's clock is read: a window result's latency is its output append time minus
 * (window end + watermark delay); a W4 record's is its output append time minus its input's.
 * A rate is sustained when its p99 is under 5 s and latency does not climb during the step
 * (consumer lag flat: a system falling behind shows as latency growing step-long).
 */
import type { Session } from "../../src/index.js";
import { PacedFeed } from "./generate.js";
import { stepBatches, type StepBatches } from "./batch-progress.js";
import { percentile } from "./stats.js";
import { readOutput, type OutputRecord, type Topics } from "./topics.js";
import { processCpuSeconds } from "./proc.js";
import { resultPauseMs, RunningSystem, type LaunchArgs } from "./systems.js";
import type { VariantId } from "./variants.js";
import { WATERMARK_DELAY_MS, type WorkloadSpec } from "./workloads.js";

export const P99_LIMIT_MS = 5_000;
/** Latency may rise this much from a step's first quarter to its last before lag counts as growing. */
const GROWTH_LIMIT_MS = 1_000;
/**
 * A step's first results still carry the previous rate: a window result counts only when its
 * whole window lies inside the step (due = window end + 1 s delay, so due at least 11 s into
 * the step), a W4 record from 2 s into the step on.
 */
const stepWarmupMs = (spec: WorkloadSpec) => (spec.name === "W4" ? 2_000 : 10_000 + WATERMARK_DELAY_MS);

/**
 * The shortest step sure to hold a result: results fall due every `resultEveryMs` at a phase the
 * step does not choose, and count from the step's warm-up on. A shorter step holds none in some
 * runs (W3 at 15 s steps: 10 of a run's 19 steps held none) and its rate reads as not sustained.
 */
export const minStepSeconds = (spec: WorkloadSpec): number => Math.ceil((stepWarmupMs(spec) + spec.resultEveryMs) / 1000);
/** A step whose generator sent under this share of its rate is not counted. */
const GENERATOR_SHORTFALL = 0.95;
/**
 * Unmeasured feeding before the first step: a consumer group's join and first fetches, a JIT's
 * warm-up and a first window's start belong to no rate.
 */
const WARMUP_MS = 10_000;

export interface StepResult {
  readonly rate: number;
  /** Records the generator actually sent per second during the step. */
  readonly sentRate: number;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Median latency of the step's last quarter minus its first quarter's. */
  readonly growthMs: number;
  readonly sustained: boolean;
  /** The step's micro-batches, from a Sluice job's progress lines (harness/batch-progress.ts); absent for the peers. */
  readonly batches?: StepBatches;
}

export interface LatencyResult {
  /** `system:variant`. */
  readonly system: VariantId;
  readonly rep: number;
  readonly status: string;
  readonly steps: readonly StepResult[];
  /** The highest rate sustained, with every lower step sustained too; 0 if none. */
  readonly sustainableRate: number;
  /** CPU seconds the Kafka broker used from the first step to the end of the ladder (NaN when unknown). */
  readonly brokerCpuSeconds?: number;
  /** The Sluice build the bench ran at (`npm run bench` stamps it; a results file's runs may span builds). */
  readonly build?: string;
}

/** When a result was due (window end + delay, or the input's append time) and its latency. */
function dueAndLatency(spec: WorkloadSpec, r: OutputRecord): { due: number; latency: number } {
  const due = spec.name === "W4" ? Number(r.value.ts) : Number(r.value.window_end) + WATERMARK_DELAY_MS;
  return { due, latency: r.appendMs - due };
}

export function stepResult(rate: number, sentRate: number, points: readonly { due: number; latency: number }[]): StepResult {
  const sorted = [...points].sort((a, b) => a.due - b.due);
  const latencies = sorted.map((p) => p.latency);
  const quarter = Math.max(1, Math.floor(sorted.length / 4));
  const growthMs = sorted.length === 0 ? NaN : percentile(latencies.slice(-quarter), 50) - percentile(latencies.slice(0, quarter), 50);
  const p99Ms = percentile(latencies, 99);
  return {
    rate,
    sentRate,
    samples: sorted.length,
    p50Ms: percentile(latencies, 50),
    p99Ms,
    growthMs,
    sustained: sorted.length > 0 && p99Ms <= P99_LIMIT_MS && growthMs <= GROWTH_LIMIT_MS,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LatencyOptions {
  readonly session: Session;
  readonly topics: Topics;
  readonly spec: WorkloadSpec;
  readonly rates: readonly number[];
  readonly stepMs: number;
  /** The system's drain throughput in this run, or Infinity when the drain phase did not run. */
  readonly maxRate: number;
  readonly launch: LaunchArgs;
  readonly brokerPid: number | null;
  readonly log: (line: string) => void;
}

export async function latencyRun(system: VariantId, rep: number, o: LatencyOptions): Promise<LatencyResult> {
  const { topics, launch, spec } = o;
  await topics.create(launch.input, true);
  await topics.create(launch.output, true);
  const running = new RunningSystem(system, launch);
  try {
    const feed = new PacedFeed(launch.bootstrap, launch.input, spec);
    await running.startedWithin(300_000);
    await sleep(3_000); // the consumer joins and fetches an empty topic before load begins
    await feed.run(o.rates[0]!, Date.now() + WARMUP_MS);
    const steps: { rate: number; sentRate: number; from: number; to: number }[] = [];
    const brokerAtStart = processCpuSeconds(o.brokerPid);
    // A system cannot sustain more than it drains: rates beyond that (with a margin) are not run.
    for (const rate of o.rates.filter((r) => r <= o.maxRate)) {
      const from = Date.now();
      const sent = await feed.run(rate, from + o.stepMs);
      const to = Date.now();
      steps.push({ rate, sentRate: (sent * 1000) / (to - from), from, to });
      if (running.exited) break;
    }
    const brokerCpuSeconds = processCpuSeconds(o.brokerPid) - brokerAtStart;
    // The last windows close only when later data moves the watermark: a tail at the first rate.
    await feed.run(o.rates[0]!, Date.now() + 12_000);
    // Wait for a system with a backlog to finish it, so late results count with their latency:
    // until the output has not grown for longer than the system's longest pause between results.
    const quietMs = 3_000 + resultPauseMs(system);
    let size = -1;
    for (let quietSince = Date.now(), waitedFrom = Date.now(); Date.now() - quietSince < quietMs && Date.now() - waitedFrom < 180_000 && !running.exited; ) {
      await sleep(1_000);
      const now = await topics.size(launch.output);
      if (now !== size) quietSince = Date.now();
      size = now;
    }
    const exited = running.exited;
    await running.stop();
    const out = await readOutput(o.session, launch.bootstrap, launch.output, await topics.size(launch.output));
    const results = steps.map((s) => {
      const batches = stepBatches(running.batchProgress, s.from, s.to);
      return { ...stepResult(s.rate, s.sentRate, pointsIn(spec, out, s.from, s.to)), ...(batches ? { batches } : {}) };
    });
    let sustainableRate = 0;
    for (const r of results) {
      // A step the generator could not feed at its rate says nothing about the system.
      if (!r.sustained || r.sentRate < GENERATOR_SHORTFALL * r.rate) break;
      sustainableRate = Math.max(sustainableRate, r.rate);
    }
    const status = exited ? `${exited}: ${running.lastErrors.split("\n").slice(-3).join(" / ")}` : "ok";
    o.log(`  ${system} rep ${rep}: sustains ${sustainableRate}/s; ${results.map((r) => `${r.rate}/s (sent ${Math.round(r.sentRate)}/s) p50 ${r.p50Ms} p99 ${r.p99Ms} ms${r.sustained ? "" : " (not sustained)"}`).join("; ")}; broker ${brokerCpuSeconds.toFixed(1)} CPU-s`);
    return { system, rep, status, steps: results, sustainableRate, brokerCpuSeconds };
  } catch (e) {
    return { system, rep, status: (e as Error).message.split("\n")[0]!, steps: [], sustainableRate: 0 };
  } finally {
    await running.stop();
  }
}

function pointsIn(spec: WorkloadSpec, out: readonly OutputRecord[], from: number, to: number) {
  const points = [];
  for (const r of out) {
    const p = dueAndLatency(spec, r);
    if (p.due >= from + stepWarmupMs(spec) && p.due <= to) points.push(p);
  }
  return points;
}
