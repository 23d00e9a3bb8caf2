/**
 * One drain run: a system reads a pre-loaded topic from the start; it is done when its output
 * topic holds as many results as the reference. Throughput is input records over the time from
 * its BENCH_STARTED line to the append time of its last result; CPU is what its process tree
 * used in between; the answer is checked against the offline reference.
 */
import type { Session } from "../../src/index.js";
import { readOutput, type Topics } from "./topics.js";
import { processCpuSeconds } from "./proc.js";
import { RunningSystem, type LaunchArgs } from "./systems.js";
import type { VariantId } from "./variants.js";
import type { WorkloadSpec } from "./workloads.js";

export interface DrainResult {
  /** `system:variant`. */
  readonly system: VariantId;
  readonly rep: number;
  /** "ok", or why the run is not a figure (wrong answer, crash, timeout). */
  readonly status: string;
  readonly inputRecords: number;
  readonly seconds: number;
  readonly recordsPerSecond: number;
  readonly cpuSeconds: number;
  readonly recordsPerCpuSecond: number;
  readonly peakRssMiB: number;
  readonly outputRows: number;
  /** CPU seconds the Kafka broker used over the same span (NaN when its pid is unknown). */
  readonly brokerCpuSeconds: number;
  /** The Sluice build the bench ran at (`npm run bench` stamps it; a results file's runs may span builds). */
  readonly build?: string;
  /**
   * The event time the input spans, in ms (`SPAN_MS` when it ran; `npm run bench` stamps it): with
   * records and producer, what identifies the input, since the same records spread over another
   * span close other windows and give another answer.
   */
  readonly spanMs?: number;
}

export interface AnswerCheck {
  readonly missing: number;
  readonly extra: number;
  readonly example: string | null;
}

/** Compares output rows with the reference multiset. */
export function checkAnswer(spec: WorkloadSpec, reference: ReadonlyMap<string, number>, values: readonly Record<string, unknown>[]): AnswerCheck {
  const seen = new Map<string, number>();
  for (const v of values) {
    const k = spec.canonical(v);
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  let missing = 0;
  let extra = 0;
  let example: string | null = null;
  for (const [k, n] of reference) {
    const got = seen.get(k) ?? 0;
    if (got < n) {
      missing += n - got;
      example ??= `missing ${k}`;
    }
  }
  for (const [k, n] of seen) {
    const want = reference.get(k) ?? 0;
    if (n > want) {
      extra += n - want;
      example ??= `unexpected ${k}`;
    }
  }
  return { missing, extra, example };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface DrainOptions {
  readonly session: Session;
  readonly topics: Topics;
  readonly spec: WorkloadSpec;
  readonly reference: ReadonlyMap<string, number>;
  readonly expectedRows: number;
  readonly inputRecords: number;
  readonly launch: LaunchArgs;
  /** The broker's pid, for its CPU over the run; null when unknown. */
  readonly brokerPid: number | null;
  /** Give up after this long without new output while the system is idle. */
  readonly stallMs?: number;
  readonly log: (line: string) => void;
}

export async function drainRun(system: VariantId, rep: number, o: DrainOptions): Promise<DrainResult> {
  const { topics, launch } = o;
  await topics.create(launch.output, true);
  const running = new RunningSystem(system, launch);
  const base = { system, rep, inputRecords: o.inputRecords };
  const failed = (status: string): DrainResult => {
    o.log(`  ${system} rep ${rep}: failed: ${status}`);
    return { ...base, status, seconds: NaN, recordsPerSecond: NaN, cpuSeconds: NaN, recordsPerCpuSecond: NaN, peakRssMiB: NaN, outputRows: NaN, brokerCpuSeconds: NaN };
  };
  try {
    const startedMs = await running.startedWithin(300_000);
    const brokerAtStart = processCpuSeconds(o.brokerPid);
    let brokerCpu = NaN;
    let size = 0;
    let lastGrowth = Date.now();
    let cpuAtGrowth = 0;
    let cpu = 0;
    let rss = 0;
    for (;;) {
      await sleep(250);
      if (running.exited) return failed(`${running.exited}: ${running.lastErrors.split("\n").slice(-3).join(" / ")}`);
      const now = await topics.size(launch.output);
      const cpuNow = running.cpuSinceStart();
      if (now >= o.expectedRows) {
        cpu = cpuNow;
        brokerCpu = processCpuSeconds(o.brokerPid) - brokerAtStart;
        rss = running.peakRssBytes();
        // A system writing duplicates would go on: give it a moment to show them.
        await sleep(1_500);
        size = await topics.size(launch.output);
        break;
      }
      if (now > size) {
        size = now;
        lastGrowth = Date.now();
        cpuAtGrowth = cpuNow;
      } else if (Date.now() - lastGrowth > (o.stallMs ?? 90_000) && cpuNow - cpuAtGrowth < 0.25 * ((Date.now() - lastGrowth) / 1000)) {
        // No new result for a long time while using under a quarter of a core: it is not working on any.
        return failed(`stalled at ${size} of ${o.expectedRows} results`);
      }
    }
    await running.stop();
    const out = await readOutput(o.session, launch.bootstrap, launch.output, size);
    const check = checkAnswer(o.spec, o.reference, out.map((r) => r.value));
    const lastMs = out.reduce((m, r) => Math.max(m, r.appendMs), 0);
    const seconds = (lastMs - startedMs) / 1000;
    const status = check.missing === 0 && check.extra === 0 ? "ok" : `wrong answer: ${check.missing} missing, ${check.extra} unexpected (${check.example})`;
    o.log(`  ${system} rep ${rep}: ${status === "ok" ? "" : `${status}; `}${seconds.toFixed(1)} s, ${(o.inputRecords / seconds / 1e3).toFixed(0)} k rec/s, ${cpu.toFixed(1)} CPU-s, broker ${brokerCpu.toFixed(1)} CPU-s, ${(rss / 2 ** 20).toFixed(0)} MiB`);
    return {
      ...base,
      status,
      seconds,
      recordsPerSecond: o.inputRecords / seconds,
      cpuSeconds: cpu,
      recordsPerCpuSecond: o.inputRecords / cpu,
      peakRssMiB: rss / 2 ** 20,
      outputRows: size,
      brokerCpuSeconds: brokerCpu,
    };
  } catch (e) {
    return failed((e as Error).message.split("\n")[0]!);
  } finally {
    await running.stop();
  }
}
