/**
 * Summaries, the committed bench/RESULTS.md (a table per workload, the machine and versions) and
 * an SVG bar chart per workload, built from bench/results/<workload>.json.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import type { DrainResult } from "./drain.js";
import type { LatencyResult } from "./latency.js";
import { median } from "./stats.js";
import { ROOT, type SystemName } from "./systems.js";
import { WORKLOADS, type WorkloadName } from "./workloads.js";

export interface Environment {
  readonly machine: string;
  readonly versions: Record<string, string>;
}

export interface WorkloadRun {
  readonly workload: WorkloadName;
  readonly title: string;
  readonly finishedAt: string;
  readonly environment: Environment;
  readonly config: { readonly records: number; readonly reps: number; readonly rates: readonly number[]; readonly stepSeconds: number; readonly order: string };
  /**
   * The Sluice build each phase ran on, when the phases ran in separate invocations (a phase not
   * rerun keeps its figures, and so its build, from the workload's previous run).
   */
  readonly sluiceByPhase?: { readonly drain?: string; readonly latency?: string };
  readonly drain: readonly DrainResult[];
  readonly latency: readonly LatencyResult[];
  readonly summary: readonly SystemSummary[];
  readonly commonRate: number | null;
}

export interface SystemSummary {
  readonly system: SystemName;
  readonly drainRuns: string;
  readonly recordsPerSecond: number;
  readonly recordsPerCpuSecond: number;
  readonly peakRssMiB: number;
  readonly sustainableRate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** False when the system's p50/p99 are at a rate it did not sustain in every repetition. */
  readonly sustainsCommonRate: boolean;
}

const LABEL: Record<SystemName, string> = { sluice: "Sluice", spark: "Spark Structured Streaming", kstreams: "Kafka Streams", naive: "kafkajs loop" };

/**
 * Medians over the runs that produced the right answer; failed runs are counted, never averaged in.
 * The common rate is the highest ladder rate sustained in every repetition by every system that
 * sustains any: a system that sustains none (Kafka Streams, whose final results wait for its 30 s
 * commit) is still shown at that rate, flagged, rather than leaving every system without a figure.
 */
export function summarize(systems: readonly SystemName[], drain: readonly DrainResult[], latency: readonly LatencyResult[]): { summary: SystemSummary[]; commonRate: number | null } {
  const latencyRuns = (s: SystemName) => latency.filter((l) => l.system === s && l.status === "ok");
  const lowestSustained = systems
    .map((s) => latencyRuns(s))
    .filter((runs) => runs.length > 0)
    .map((runs) => Math.min(...runs.map((r) => r.sustainableRate)))
    .filter((rate) => rate > 0);
  const commonRate = lowestSustained.length > 0 ? Math.min(...lowestSustained) : null;
  const summary = systems.map((system) => {
    const runs = drain.filter((d) => d.system === system);
    const ok = runs.filter((d) => d.status === "ok");
    const lat = latencyRuns(system);
    const atCommon = lat.map((l) => l.steps.find((s) => s.rate === commonRate)).filter((s) => s !== undefined);
    return {
      system,
      drainRuns: `${ok.length}/${runs.length}`,
      recordsPerSecond: median(ok.map((d) => d.recordsPerSecond)),
      recordsPerCpuSecond: median(ok.map((d) => d.recordsPerCpuSecond)),
      peakRssMiB: median(ok.map((d) => d.peakRssMiB)),
      sustainableRate: median(lat.map((l) => l.sustainableRate)),
      p50Ms: median(atCommon.map((s) => s.p50Ms)),
      p99Ms: median(atCommon.map((s) => s.p99Ms)),
      sustainsCommonRate: atCommon.length > 0 && atCommon.every((s) => s.sustained),
    };
  });
  return { summary, commonRate };
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "—");
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : "—");

/** "Sluice <version>", or the build of each phase when they differ. */
export function sluiceBuilds(run: WorkloadRun): string {
  const current = run.environment.versions["Sluice"] ?? "?";
  const drain = run.sluiceByPhase?.drain ?? current;
  const latency = run.sluiceByPhase?.latency ?? current;
  return drain === latency ? `Sluice ${drain}` : `Sluice ${drain} for the drain, ${latency} for latency`;
}

function workloadSection(run: WorkloadRun): string {
  const sluice = run.summary.find((s) => s.system === "sluice");
  const lines = [
    `## ${run.workload}: ${run.title}`,
    "",
    `${fmt(run.config.records)} events, ${run.config.reps} interleaved repetitions (${run.config.order}); finished ${run.finishedAt}; ${sluiceBuilds(run)}.`,
    "",
    "| system | drain runs ok | records/s (median) | Sluice ÷ system | records per CPU-second | Sluice ÷ system | peak RSS MiB | sustainable rate /s | p50 ms | p99 ms |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const s of run.summary) {
    lines.push(
      `| ${LABEL[s.system]} | ${s.drainRuns} | ${fmt(s.recordsPerSecond)} | ${s.system === "sluice" ? "" : ratio(sluice?.recordsPerSecond ?? NaN, s.recordsPerSecond)} | ${fmt(s.recordsPerCpuSecond)} | ${s.system === "sluice" ? "" : ratio(sluice?.recordsPerCpuSecond ?? NaN, s.recordsPerCpuSecond)} | ${fmt(s.peakRssMiB)} | ${s.sustainableRate === 0 ? "none" : fmt(s.sustainableRate)} | ${fmt(s.p50Ms)} | ${fmt(s.p99Ms)}${Number.isFinite(s.p99Ms) && !s.sustainsCommonRate ? " (not sustained)" : ""} |`,
    );
  }
  const latencyNote =
    run.latency.length === 0
      ? "Latency: not measured in this run."
      : run.commonRate === null
        ? "Latency: no system sustained any rate of the ladder, so there is no common-rate figure."
        : `Latency p50/p99 at ${fmt(run.commonRate)} records/s, the highest rate of the ladder (${run.config.rates.map((r) => fmt(r)).join(", ")}) that every system sustaining any rate sustained in every repetition; ${run.config.stepSeconds} s per step. "(not sustained)": that system's p99 at this rate is over 5 s or its latency climbed.`;
  lines.push("", latencyNote);
  const failures = [...run.drain.filter((d) => d.status !== "ok").map((d) => `drain ${d.system} rep ${d.rep}: ${d.status}`), ...run.latency.filter((l) => l.status !== "ok").map((l) => `latency ${l.system} rep ${l.rep}: ${l.status}`)];
  if (failures.length > 0) lines.push("", "Failed runs (not counted):", "", ...failures.map((f) => `- ${f}`));
  lines.push("", `![${run.workload} chart](results/${run.workload}.svg)`, "");
  return lines.join("\n");
}

/** Grouped horizontal bars: drain records/s and records per CPU-second, per system. */
export function chartSvg(run: WorkloadRun): string {
  const metrics = [
    { label: "records/s", value: (s: SystemSummary) => s.recordsPerSecond, color: "#3b6ea8" },
    { label: "records per CPU-second", value: (s: SystemSummary) => s.recordsPerCpuSecond, color: "#d08a2c" },
  ];
  const rowH = 18;
  const left = 190;
  const width = 720;
  const barMax = width - left - 110;
  const blockH = metrics.length * rowH + 14;
  const height = 40 + run.summary.length * blockH + 10;
  const max = Math.max(1, ...run.summary.flatMap((s) => metrics.map((m) => m.value(s)).filter(Number.isFinite)));
  const esc = (t: string) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<text x="10" y="18" font-size="14" font-weight="bold">${esc(`${run.workload}: drain throughput and efficiency (medians)`)}</text>`,
    ...metrics.map((m, i) => `<rect x="${left + i * 200}" y="26" width="10" height="10" fill="${m.color}"/><text x="${left + 14 + i * 200}" y="35">${esc(m.label)}</text>`),
  ];
  run.summary.forEach((s, row) => {
    const y0 = 44 + row * blockH;
    parts.push(`<text x="10" y="${y0 + rowH}">${esc(LABEL[s.system])}</text>`);
    metrics.forEach((m, i) => {
      const v = m.value(s);
      const y = y0 + i * rowH;
      const w = Number.isFinite(v) ? Math.max(1, (v / max) * barMax) : 0;
      parts.push(`<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${rowH - 4}" fill="${m.color}"/>`);
      parts.push(`<text x="${left + w + 6}" y="${y + rowH - 7}">${Number.isFinite(v) ? fmt(v) : "failed"}</text>`);
    });
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}

export const resultPath = (w: WorkloadName) => path.join(ROOT, "bench/results", `${w}.json`);

/** Rewrites bench/RESULTS.md and the charts from every workload's latest committed run. */
export function writeResultsMarkdown(): void {
  const runs = WORKLOADS.filter((w) => existsSync(resultPath(w))).map((w) => JSON.parse(readFileSync(resultPath(w), "utf8")) as WorkloadRun);
  for (const run of runs) writeFileSync(path.join(ROOT, "bench/results", `${run.workload}.svg`), chartSvg(run));
  const env = runs[0]?.environment;
  const md = [
    "# Sluice against Spark Structured Streaming, Kafka Streams and a kafkajs loop",
    "",
    "Written by `npm run bench` (bench/run.ts); each workload's raw runs are in `bench/results/<workload>.json`.",
    "Every system reads the same topics on the same single-node Kafka broker in the same run, and every",
    "drain run's output is checked against the offline reference: a wrong answer is reported, not timed.",
    "Method: bench/README.md; the peers' contract: bench/peers/README.md.",
    "",
    ...(env ? ["## Machine and versions", "", `- ${env.machine}`, ...Object.entries(env.versions).map(([k, v]) => `- ${k}: ${v}`), ""] : []),
    ...runs.map(workloadSection),
  ].join("\n");
  writeFileSync(path.join(ROOT, "bench/RESULTS.md"), md);
}

