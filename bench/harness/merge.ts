/**
 * What an invocation of `npm run bench` keeps of a workload's earlier runs. A full run is done in
 * parts: the variants and phases an invocation does not run keep their runs; those it runs replace
 * theirs or, with `--add-reps`, add repetitions to them. Earlier runs are kept only when taken on
 * the same input (drain: records and producer) and the same ladder (latency: rates, step length
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
  const sameInput = previous.config.records === inv.records && previousProducer === inv.producer;
  const previousTickMs = feedTickMsOf(previous.config);
  const sameLadder = previous.config.rates.join() === inv.rates.join() && previous.config.stepSeconds === inv.stepSeconds && previousTickMs === inv.feedTickMs;
  const keep = <T extends DrainResult | LatencyResult>(phase: Phase, runs: readonly T[], comparable: boolean, differs: string, keepWith: string): T[] => {
    const stamped = runs.map((r) => ({ ...r, system: normalizeId(r.system), build: r.build ?? buildOf(previous, phase) }));
    if (!inv.phases.includes(phase)) return stamped;
    if (!comparable) {
      const unreplaced = inv.addReps ? stamped : stamped.filter((r) => !inv.systems.includes(r.system));
      if (unreplaced.length > 0 && !inv.dropIncomparable) {
        const variants = [...new Set(unreplaced.map((r) => r.system))].join(", ");
        conflicts.push(`the earlier ${phase} runs of ${variants} were taken with ${differs}: ${keepWith}; pass --drop-incomparable yes to drop them`);
      } else if (runs.length > 0) dropped.push(`previous ${phase} figures (${differs}) dropped: this run's ${phase === "drain" ? "input" : "ladder"} differs`);
      return [];
    }
    return inv.addReps ? stamped : stamped.filter((r) => !inv.systems.includes(r.system));
  };
  const ladderFlags = `pass --rates ${previous.config.rates.join(",")} --step-seconds ${previous.config.stepSeconds} to keep them`;
  return {
    drain: keep("drain", previous.drain, sameInput, `${previous.config.records} records, ${previousProducer} producer`, `pass --records ${previous.config.records} --producer ${previousProducer} to keep them`),
    latency: keep(
      "latency",
      previous.latency,
      sameLadder,
      `rates ${previous.config.rates.join(",")}, ${previous.config.stepSeconds} s steps, ${previousTickMs} ms feed ticks`,
      // The feed's tick is the workload's own, not a flag: runs fed at another tick cannot be added to.
      previousTickMs === inv.feedTickMs ? ladderFlags : `the workload's feed now ticks every ${inv.feedTickMs} ms, so no flag keeps them`,
    ),
    dropped,
    conflicts,
  };
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
