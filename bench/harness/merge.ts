/**
 * What an invocation of `npm run bench` keeps of a workload's earlier runs. A full run is done in
 * parts: the variants and phases an invocation does not run keep their runs; those it runs replace
 * theirs or, with `--add-reps`, add repetitions to them. Earlier runs are kept only when taken on
 * the same input (drain: records, producer and event-time span) and the same ladder (latency: rates, step length
 * and the feed's tick), since a figure is a median over repetitions of one measurement. An
 * invocation that would lose runs it does not replace that way (another variant's, or the ones it
 * was asked to add repetitions to) is refused unless told to drop them: a forgotten `--rates`
 * would otherwise throw away hours of runs.
 */
import type { DrainResult } from "./drain.js";
import type { InputProducer } from "./generate.js";
import type { LatencyResult } from "./latency.js";
import type { WorkloadRun } from "./report.js";
import { normalizeId, type VariantId } from "./variants.js";

export type Phase = "drain" | "latency";

/** The latency feed's tick a results file ran with: 50 ms for results written before they recorded it. */
export function feedTickMsOf(config: WorkloadRun["config"]): number {
  return config.feedTickMs ?? 50;
}

export interface Invocation {
  readonly systems: readonly VariantId[];
  readonly phases: readonly Phase[];
  readonly records: number;
  readonly producer: InputProducer;
  /** The drain input's event-time span in ms (`SPAN_MS`). */
  readonly spanMs: number;
  readonly rates: readonly number[];
  readonly stepSeconds: number;
  /** The latency feed's tick (`WorkloadSpec.feedTickMs`). */
  readonly feedTickMs: number;
  /** Add this invocation's repetitions to the earlier ones of the same variants instead of replacing them. */
  readonly addReps: boolean;
  /** Drop earlier runs taken on another input or ladder even when this invocation does not replace them. */
  readonly dropIncomparable: boolean;
}

export interface KeptRuns {
  readonly drain: DrainResult[];
  readonly latency: LatencyResult[];
  /** Why earlier runs were dropped, a line each, for the log. */
  readonly dropped: string[];
  /** Earlier runs the invocation would lose without replacing them, a line each naming what keeps them: refuse to run. */
  readonly conflicts: string[];
}

/**
 * The earlier runs this invocation keeps, each stamped with the Sluice build it ran on (results
 * written before runs carried their build take the build their file names for that phase).
 */
export function keptRuns(previous: WorkloadRun | null, inv: Invocation): KeptRuns {
  if (previous === null) return { drain: [], latency: [], dropped: [], conflicts: [] };
  const dropped: string[] = [];
  const conflicts: string[] = [];
  const previousProducer = previous.config.producer ?? "sluice";
  const sameRecords = previous.config.records === inv.records && previousProducer === inv.producer;
  const previousTickMs = feedTickMsOf(previous.config);
  const sameLadder = previous.config.rates.join() === inv.rates.join() && previous.config.stepSeconds === inv.stepSeconds && previousTickMs === inv.feedTickMs;
  /** Keeps a phase's earlier runs, `comparable` telling which were taken on this invocation's input or ladder. */
  const keep = <T extends DrainResult | LatencyResult>(phase: Phase, runs: readonly T[], comparable: (run: T) => boolean, differs: (run: T) => string, keepWith: (run: T) => string): T[] => {
    const stamped = runs.map((r) => ({ ...r, system: normalizeId(r.system), build: r.build ?? buildOf(previous, phase) }));
    if (!inv.phases.includes(phase)) return stamped;
    const same = stamped.filter(comparable);
    // Each way the other runs differ gets its own line, naming what would keep them.
    for (const [why, group] of groupBy(stamped.filter((r) => !comparable(r)), differs)) {
      const unreplaced = inv.addReps ? group : group.filter((r) => !inv.systems.includes(r.system));
      if (unreplaced.length > 0 && !inv.dropIncomparable) {
        const variants = [...new Set(unreplaced.map((r) => r.system))].join(", ");
        conflicts.push(`the earlier ${phase} runs of ${variants} were taken with ${why}: ${keepWith(group[0]!)}; pass --drop-incomparable yes to drop them`);
      } else dropped.push(`previous ${phase} figures (${why}) dropped: this run's ${phase === "drain" ? "input" : "ladder"} differs`);
    }
    return inv.addReps ? same : same.filter((r) => !inv.systems.includes(r.system));
  };
  const records = `${previous.config.records} records, ${previousProducer} producer`;
  const spanOf = (r: DrainResult) => (r.spanMs === undefined ? "an event-time span not recorded" : `${r.spanMs / 1000} s of event time`);
  const ladderFlags = `pass --rates ${previous.config.rates.join(",")} --step-seconds ${previous.config.stepSeconds} to keep them`;
  return {
    drain: keep(
      "drain",
      previous.drain,
      (r) => sameRecords && r.spanMs === inv.spanMs,
      (r) => `${records}, ${spanOf(r)}`,
      // The span is the workload's own, not a flag: runs of another span cannot be added to.
      (r) => (r.spanMs === inv.spanMs ? `pass --records ${previous.config.records} --producer ${previousProducer} to keep them` : `the drain input now spans ${inv.spanMs / 1000} s, so no flag keeps them`),
    ),
    latency: keep(
      "latency",
      previous.latency,
      () => sameLadder,
      () => `rates ${previous.config.rates.join(",")}, ${previous.config.stepSeconds} s steps, ${previousTickMs} ms feed ticks`,
      // The feed's tick is the workload's own, not a flag: runs fed at another tick cannot be added to.
      () => (previousTickMs === inv.feedTickMs ? ladderFlags : `the workload's feed now ticks every ${inv.feedTickMs} ms, so no flag keeps them`),
    ),
    dropped,
    conflicts,
  };
}

/** `items` grouped by `key`, groups in the order their first item appears. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** The Sluice build a results file names for a phase (files from before runs carried their build). */
function buildOf(run: WorkloadRun, phase: Phase): string | undefined {
  return run.sluiceByPhase?.[phase] ?? run.environment.versions["Sluice"];
}

/** The repetition number a variant's next run takes: one past its highest kept run. */
export function nextRep(runs: readonly { readonly system: VariantId; readonly rep: number }[], system: VariantId): number {
  return runs.filter((r) => r.system === system).reduce((highest, r) => Math.max(highest, r.rep), 0) + 1;
}

/** The most repetitions any variant has in either phase, for the results' header. */
export function repetitions(drain: readonly DrainResult[], latency: readonly LatencyResult[]): number {
  const counts = new Map<string, number>();
  for (const r of [...drain.map((d) => `drain ${d.system}`), ...latency.map((l) => `latency ${l.system}`)]) counts.set(r, (counts.get(r) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}
