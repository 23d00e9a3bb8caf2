/**
 * bench/results/latency-curve.md and .svg from the latency curve's runs (bench/latency-curve.ts):
 * per workload and variant, each step of the up-and-down ladder with its latency and its batches,
 * and a chart of p99 latency per step, one line per variant.
 */
import type { Environment } from "./report.js";
import type { LatencyResult, StepResult } from "./latency.js";
import { median } from "./stats.js";
import { variantSets, type VariantId } from "./variants.js";
import type { WorkloadName } from "./workloads.js";

export interface CurveRun {
  readonly workload: WorkloadName;
  readonly title: string;
  /** When the workload's runs ended, and the Sluice build they ran (a workload may be re-run alone). */
  readonly finishedAt?: string;
  readonly sluice?: string;
  readonly systems: readonly VariantId[];
  readonly rates: readonly number[];
  readonly stepSeconds: number;
  readonly reps: number;
  readonly results: readonly LatencyResult[];
}

const fmt = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—");

/** A figure's median over the repetitions, with its range when they differ. */
function over(values: readonly (number | undefined)[]): string {
  const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (known.length === 0) return "—";
  const lo = Math.min(...known);
  const hi = Math.max(...known);
  return lo === hi ? fmt(lo) : `${fmt(median(known))} (${fmt(lo)}–${fmt(hi)})`;
}

/** The step `i` of every repetition of `system` that ran it. */
function stepsAt(run: CurveRun, system: VariantId, i: number): StepResult[] {
  return run.results.filter((r) => r.system === system && r.steps[i] !== undefined).map((r) => r.steps[i]!);
}

/** p99 of step `i`, the median over repetitions (NaN when no repetition measured it). */
export function stepP99(run: CurveRun, system: VariantId, i: number): number {
  return median(stepsAt(run, system, i).filter((s) => s.samples > 0).map((s) => s.p99Ms));
}

function systemTable(run: CurveRun, system: VariantId): string[] {
  const lines = [
    `### ${system}: ${variantSets(system)}`,
    "",
    "| step | rate /s | sent /s | p50 ms | p99 ms | batches | rows per batch | ms per batch | chosen cap (rows) | sizing | sustained |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
  ];
  run.rates.forEach((rate, i) => {
    const steps = stepsAt(run, system, i);
    const modes = [...new Set(steps.flatMap((s) => s.batches?.modes ?? []))];
    const sustained = steps.length === 0 ? "not run" : `${steps.filter((s) => s.sustained).length}/${steps.length}`;
    lines.push(
      `| ${i + 1} | ${fmt(rate)} | ${over(steps.map((s) => s.sentRate))} | ${over(steps.map((s) => s.p50Ms))} | ${over(steps.map((s) => s.p99Ms))} | ` +
        `${over(steps.map((s) => s.batches?.batches))} | ${over(steps.map((s) => s.batches?.medianRows))} | ${over(steps.map((s) => s.batches?.medianDurationMs))} | ` +
        `${over(steps.map((s) => s.batches?.medianMaxRows))} | ${modes.join(", ") || "—"} | ${sustained} |`,
    );
  });
  const sustainable = run.results.filter((r) => r.system === system).map((r) => r.sustainableRate);
  const failed = run.results.filter((r) => r.system === system && r.status !== "ok").map((r) => `rep ${r.rep}: ${r.status}`);
  lines.push("", `Sustained up to ${over(sustainable)} records/s.${failed.length ? ` Failed: ${failed.join("; ")}.` : ""}`, "");
  return lines;
}

export function curveMarkdown(runs: readonly CurveRun[], env: Environment): string {
  const lines = [
    "# The latency curve: a latencyTarget trigger against fixed batch sizes",
    "",
    "Written by `npm run bench:curve` (bench/latency-curve.ts); raw runs in `latency-curve.json`. Each variant runs",
    "the workload's query while the generator steps the input rate up and down again, on an empty",
    "LogAppendTime topic; a result's latency is its output append time minus its window's end plus the",
    "1 s watermark delay (the broker's clock only), counted in the step where it was due once 11 s of the",
    "step have passed (bench/harness/latency.ts). Batches per step come from the job's progress lines:",
    "batches that ended within the step and read rows, their median rows and duration, and under the",
    "latencyTarget trigger the median cap it chose and its sizing modes. Figures are medians over the",
    "repetitions, with their range when they differ.",
    "",
    `- ${env.machine}`,
    ...Object.entries(env.versions).filter(([k]) => ["Node", "Kafka broker"].includes(k)).map(([k, v]) => `- ${k}: ${v}`),
    "",
    "![latency curve](latency-curve.svg)",
    "",
  ];
  for (const run of runs) {
    const when = run.finishedAt ? ` Finished ${run.finishedAt}${run.sluice ? `, Sluice ${run.sluice}` : ""}.` : "";
    lines.push(`## ${run.workload}: ${run.title}`, "", `Rates ${run.rates.map(fmt).join(" → ")} records/s, ${run.stepSeconds} s per step, ${run.reps} repetition(s), variants interleaved.${when}`, "");
    for (const system of run.systems) lines.push(...systemTable(run, system));
  }
  return lines.join("\n");
}

const COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"];

/** p99 per step, one panel per workload, a log scale from 10 ms to 100 s. */
export function curveSvg(runs: readonly CurveRun[]): string {
  const panelW = 420;
  const panelH = 260;
  const left = 60;
  const top = 40;
  const width = left + runs.length * (panelW + 40);
  const height = top + panelH + 110;
  const yOf = (ms: number) => top + panelH - ((Math.log10(Math.min(Math.max(ms, 10), 100_000)) - 1) / 4) * panelH;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`, `<rect width="100%" height="100%" fill="white"/>`];
  runs.forEach((run, p) => {
    const x0 = left + p * (panelW + 40);
    const xOf = (i: number) => x0 + (run.rates.length === 1 ? panelW / 2 : (i / (run.rates.length - 1)) * panelW);
    parts.push(`<text x="${x0}" y="${top - 20}" font-weight="bold">${run.workload}: p99 latency per step (ms, log scale)</text>`);
    for (const ms of [10, 100, 1_000, 10_000, 100_000]) {
      parts.push(`<line x1="${x0}" x2="${x0 + panelW}" y1="${yOf(ms)}" y2="${yOf(ms)}" stroke="#ddd"/>`, `<text x="${x0 - 6}" y="${yOf(ms) + 4}" text-anchor="end">${fmt(ms)}</text>`);
    }
    run.rates.forEach((rate, i) => parts.push(`<text x="${xOf(i)}" y="${top + panelH + 16}" text-anchor="middle">${rate >= 1000 ? `${rate / 1000}k` : rate}</text>`));
    parts.push(`<text x="${x0 + panelW / 2}" y="${top + panelH + 32}" text-anchor="middle">input rate per step (records/s)</text>`);
    run.systems.forEach((system, s) => {
      const points = run.rates.map((_, i) => ({ i, p99: stepP99(run, system, i) })).filter((q) => Number.isFinite(q.p99));
      const color = COLORS[s % COLORS.length]!;
      if (points.length > 1) parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map((q) => `${xOf(q.i).toFixed(1)},${yOf(q.p99).toFixed(1)}`).join(" ")}"/>`);
      for (const q of points) parts.push(`<circle cx="${xOf(q.i).toFixed(1)}" cy="${yOf(q.p99).toFixed(1)}" r="3" fill="${color}"/>`);
      if (p === 0) parts.push(`<rect x="${left + s * 200}" y="${top + panelH + 50}" width="12" height="12" fill="${color}"/>`, `<text x="${left + s * 200 + 18}" y="${top + panelH + 60}">${system}</text>`);
    });
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
