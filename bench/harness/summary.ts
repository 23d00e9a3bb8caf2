/**
 * A workload's figures per system variant: medians with their range (min-max) over the runs that
 * produced the right answer, the common rate of the latency figures, and the best peer of each
 * figure that Sluice is compared on (the best of every peer variant, tuned or default).
 */
import type { DrainResult } from "./drain.js";
import type { LatencyResult } from "./latency.js";
import { median } from "./stats.js";
import { normalizeId, systemOf, type VariantId } from "./variants.js";

/** The smallest and largest of the repetitions' values; NaN for both without any. */
export interface Range {
  readonly min: number;
  readonly max: number;
}

export function range(values: readonly number[]): Range {
  const finite = values.filter(Number.isFinite);
  return finite.length === 0 ? { min: NaN, max: NaN } : { min: Math.min(...finite), max: Math.max(...finite) };
}

/** The figures a row reports, each a median with its range. */
export const FIGURES = ["recordsPerSecond", "recordsPerCpuSecond", "peakRssMiB", "drainBrokerCpuSeconds", "sustainableRate", "p50Ms", "p99Ms", "latencyBrokerCpuSeconds"] as const;
export type Figure = (typeof FIGURES)[number];

export interface SystemSummary extends Readonly<Record<Figure, number>> {
  /** `system:variant`. */
  readonly system: VariantId;
  readonly drainRuns: string;
  /** False when the system's p50/p99 are at a rate it did not sustain in every repetition. */
  readonly sustainsCommonRate: boolean;
  readonly ranges: Readonly<Record<Figure, Range>>;
}

/**
 * Medians over the runs that produced the right answer; failed runs are counted, never averaged in.
 * The common rate is the highest ladder rate sustained in every repetition by every variant that
 * sustains any: a variant that sustains none (Kafka Streams at its defaults, whose final results
 * wait for its 30 s commit) is still shown at that rate, flagged, rather than leaving every
 * variant without a figure.
 */
export function summarize(systems: readonly VariantId[], drainRuns: readonly DrainResult[], latencyRuns: readonly LatencyResult[]): { summary: SystemSummary[]; commonRate: number | null } {
  const drain = drainRuns.map((d) => ({ ...d, system: normalizeId(d.system) }));
  const latency = latencyRuns.map((l) => ({ ...l, system: normalizeId(l.system) }));
  const okLatency = (s: VariantId) => latency.filter((l) => l.system === s && l.status === "ok");
  const lowestSustained = systems
    .map((s) => okLatency(s))
    .filter((runs) => runs.length > 0)
    .map((runs) => Math.min(...runs.map((r) => r.sustainableRate)))
    .filter((rate) => rate > 0);
  const commonRate = lowestSustained.length > 0 ? Math.min(...lowestSustained) : null;
  const summary = systems.map((system): SystemSummary => {
    const runs = drain.filter((d) => d.system === system);
    const ok = runs.filter((d) => d.status === "ok");
    const lat = okLatency(system);
    const atCommon = lat.map((l) => l.steps.find((s) => s.rate === commonRate)).filter((s) => s !== undefined);
    const samples: Record<Figure, number[]> = {
      recordsPerSecond: ok.map((d) => d.recordsPerSecond),
      recordsPerCpuSecond: ok.map((d) => d.recordsPerCpuSecond),
      peakRssMiB: ok.map((d) => d.peakRssMiB),
      drainBrokerCpuSeconds: ok.map((d) => d.brokerCpuSeconds ?? NaN).filter(Number.isFinite),
      sustainableRate: lat.map((l) => l.sustainableRate),
      p50Ms: atCommon.map((s) => s.p50Ms),
      p99Ms: atCommon.map((s) => s.p99Ms),
      latencyBrokerCpuSeconds: lat.map((l) => l.brokerCpuSeconds ?? NaN).filter(Number.isFinite),
    };
    const medians = Object.fromEntries(FIGURES.map((f) => [f, median(samples[f])])) as Record<Figure, number>;
    const ranges = Object.fromEntries(FIGURES.map((f) => [f, range(samples[f])])) as Record<Figure, Range>;
    return {
      system,
      drainRuns: `${ok.length}/${runs.length}`,
      ...medians,
      sustainsCommonRate: atCommon.length > 0 && atCommon.every((s) => s.sustained),
      ranges,
    };
  });
  return { summary, commonRate };
}

/** The figures Sluice is compared on, and which way is better. */
export const COMPARED = [
  { figure: "recordsPerSecond", label: "drain records/s", higherIsBetter: true },
  { figure: "recordsPerCpuSecond", label: "records per CPU-second", higherIsBetter: true },
  { figure: "p99Ms", label: "p99 ms at the common rate", higherIsBetter: false },
] as const satisfies readonly { figure: Figure; label: string; higherIsBetter: boolean }[];

export interface BestPeer {
  readonly figure: Figure;
  /** The best peer variant, or null when no peer has the figure. */
  readonly peer: SystemSummary | null;
  /** Sluice's best variant for the figure (each trigger suits some figures), or null. */
  readonly sluice: SystemSummary | null;
  /** Sluice's figure over the best peer's (for p99, Sluice's p99 over the peer's: under 1 is better). */
  readonly ratio: number;
}

/**
 * For each compared figure, the best of all peer variants (every system but Sluice, tuned or
 * default) against the best of Sluice's. A p99 counts only where the variant sustained the common
 * rate: a latency measured while falling behind is no one's best.
 */
export function bestPeers(summary: readonly SystemSummary[]): BestPeer[] {
  return COMPARED.map(({ figure, higherIsBetter }) => {
    const best = (sluiceSide: boolean) =>
      summary
        .filter((s) => (systemOf(s.system) === "sluice") === sluiceSide && Number.isFinite(s[figure]) && (figure !== "p99Ms" || s.sustainsCommonRate))
        .reduce<SystemSummary | null>((b, s) => (b === null || (higherIsBetter ? s[figure] > b[figure] : s[figure] < b[figure]) ? s : b), null);
    const peer = best(false);
    const sluice = best(true);
    const ratio = peer && sluice && peer[figure] > 0 ? sluice[figure] / peer[figure] : NaN;
    return { figure, peer, sluice, ratio };
  });
}
