/**
 * Summaries, the committed bench/RESULTS.md (a table per workload, the machine and versions) and
 * an SVG bar chart per workload, built from bench/results/<workload>.json.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import type { DrainResult } from "./drain.js";
import type { InputProducer } from "./generate.js";
import type { LatencyResult } from "./latency.js";
import { feedTickMsOf } from "./merge.js";
import { bestPeers, COMPARED, summarize, type Figure, type SystemSummary } from "./summary.js";
import { ROOT } from "./systems.js";
import { normalizeId, systemOf, variantOf, variantSets, type SystemName, type VariantId } from "./variants.js";
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
  readonly config: {
    readonly records: number;
    readonly reps: number;
    readonly rates: readonly number[];
    readonly stepSeconds: number;
    readonly order: string;
    /** Who wrote the drain topic (absent in results from before the option: Sluice's encoder). */
    readonly producer?: InputProducer;
    /** The latency feed's tick in ms (absent in results from before it was recorded: 50). */
    readonly feedTickMs?: number;
  };
  /**
   * The Sluice build each phase ran on, in results written before each run carried its own build
   * (`DrainResult.build`, `LatencyResult.build`).
   */
  readonly sluiceByPhase?: { readonly drain?: string; readonly latency?: string };
  readonly drain: readonly DrainResult[];
  readonly latency: readonly LatencyResult[];
  readonly summary: readonly SystemSummary[];
  readonly commonRate: number | null;
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "—");
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : "—");

/**
 * A run with its summary recomputed from its raw runs, so results written by an older harness
 * (systems without variants, no ranges) are shown the same way as new ones.
 */
export function resummarized(run: WorkloadRun): WorkloadRun {
  const systems = [...new Set([...run.summary.map((s) => s.system), ...run.drain.map((d) => d.system), ...run.latency.map((l) => l.system)].map(normalizeId))];
  return { ...run, ...summarize(systems, run.drain, run.latency) };
}

/**
 * The Sluice builds the workload's Sluice runs ran on: "Sluice <version>", or each phase's builds
 * when they differ (parts of a run may be taken at different commits). Runs without a build take
 * the one their file names for the phase.
 */
export function sluiceBuilds(run: WorkloadRun): string {
  const current = run.environment.versions["Sluice"] ?? "?";
  const builds = (phase: "drain" | "latency"): string => {
    const fallback = run.sluiceByPhase?.[phase] ?? current;
    const runs: readonly (DrainResult | LatencyResult)[] = phase === "drain" ? run.drain : run.latency;
    const named = new Set(runs.filter((r) => systemOf(normalizeId(r.system)) === "sluice").map((r) => r.build ?? fallback));
    return named.size === 0 ? fallback : [...named].join(" and ");
  };
  const drain = builds("drain");
  const latency = builds("latency");
  return drain === latency ? `Sluice ${drain}` : `Sluice ${drain} for the drain, ${latency} for latency`;
}

const LABEL: Record<SystemName, string> = { sluice: "Sluice", spark: "Spark Structured Streaming", kstreams: "Kafka Streams", naive: "kafkajs loop" };

/** "Kafka Streams (throughput)". */
export const label = (id: VariantId): string => `${LABEL[systemOf(id)]} (${variantOf(id)})`;

/** A median with its range over the repetitions: "431,000 (402,000–455,000)"; the median alone when they agree. */
export function withRange(s: SystemSummary, figure: Figure, digits = 0): string {
  const m = s[figure];
  const { min, max } = s.ranges[figure];
  if (!Number.isFinite(m)) return "—";
  return fmt(min, digits) === fmt(max, digits) ? fmt(m, digits) : `${fmt(m, digits)} (${fmt(min, digits)}–${fmt(max, digits)})`;
}

function workloadSection(run: WorkloadRun): string {
  const sluice = run.summary.find((s) => systemOf(s.system) === "sluice");
  const isSluice = (s: SystemSummary) => systemOf(s.system) === "sluice";
  const producer = run.config.producer === "java" ? "a Kafka Java producer at its defaults (16 KB batches)" : "Sluice's encoder (8,000-record batches)";
  const lines = [
    `## ${run.workload}: ${run.title}`,
    "",
    `${fmt(run.config.records)} events written by ${producer}, up to ${run.config.reps} repetition${run.config.reps === 1 ? "" : "s"} per variant, interleaved within each invocation (${run.config.order}); finished ${run.finishedAt}; ${sluiceBuilds(run)}.`,
    "Each figure is the median of the repetitions, with their range (min–max) in brackets.",
    "",
    "| system (variant) | drain runs ok | records/s | Sluice ÷ it | records per CPU-second | Sluice ÷ it | peak RSS MiB | broker CPU-s (drain) | sustainable rate /s | p50 ms | p99 ms | broker CPU-s (latency) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const s of run.summary) {
    lines.push(
      `| ${label(s.system)} | ${s.drainRuns} | ${withRange(s, "recordsPerSecond")} | ${isSluice(s) ? "" : ratio(sluice?.recordsPerSecond ?? NaN, s.recordsPerSecond)} | ${withRange(s, "recordsPerCpuSecond")} | ${isSluice(s) ? "" : ratio(sluice?.recordsPerCpuSecond ?? NaN, s.recordsPerCpuSecond)} | ${withRange(s, "peakRssMiB")} | ${withRange(s, "drainBrokerCpuSeconds", 1)} | ${s.sustainableRate === 0 ? "none" : withRange(s, "sustainableRate")} | ${withRange(s, "p50Ms")} | ${withRange(s, "p99Ms")}${Number.isFinite(s.p99Ms) && !s.sustainsCommonRate ? " (not sustained)" : ""} | ${withRange(s, "latencyBrokerCpuSeconds", 1)} |`,
    );
  }
  if (sluice) {
    lines.push("", "Sluice against the best peer of each figure (the best of every peer variant, tuned or default, against Sluice's best variant for that figure):", "", "| figure | best peer | its median | Sluice variant | its median | Sluice ÷ best peer |", "|---|---|---:|---|---:|---:|");
    for (const b of bestPeers(run.summary)) {
      const what = COMPARED.find((c) => c.figure === b.figure)!;
      lines.push(`| ${what.label}${what.higherIsBetter ? "" : " (lower is better)"} | ${b.peer ? label(b.peer.system) : "—"} | ${b.peer ? fmt(b.peer[b.figure]) : "—"} | ${b.sluice ? label(b.sluice.system) : "—"} | ${b.sluice ? fmt(b.sluice[b.figure]) : "—"} | ${b.peer && Number.isFinite(b.ratio) ? `${b.ratio.toFixed(2)}x` : "—"} |`);
    }
  }
  const latencyNote =
    run.latency.length === 0
      ? "Latency: not measured in this run."
      : run.commonRate === null
        ? "Latency: no system sustained any rate of the ladder, so there is no common-rate figure."
        : `Latency p50/p99 at ${fmt(run.commonRate)} records/s, the highest rate of the ladder (${run.config.rates.map((r) => fmt(r)).join(", ")}) that every variant sustaining any rate sustained in every repetition; ${run.config.stepSeconds} s per step, the feed sending what fell due every ${feedTickMsOf(run.config)} ms, in 250-record batches (bench/README.md, "Latency phase"). "(not sustained)": that variant's p99 at this rate is over 5 s or its latency climbed.`;
  lines.push("", latencyNote, "", "Variants:", "", ...run.summary.map((s) => `- ${label(s.system)}: ${variantSets(s.system)}`));
  const failures = [...run.drain.filter((d) => d.status !== "ok").map((d) => `drain ${label(normalizeId(d.system))} rep ${d.rep}: ${d.status}`), ...run.latency.filter((l) => l.status !== "ok").map((l) => `latency ${label(normalizeId(l.system))} rep ${l.rep}: ${l.status}`)];
  if (failures.length > 0) lines.push("", "Failed runs (not counted):", "", ...failures.map((f) => `- ${f}`));
  const inputs = drainInputs(run.drain);
  if (inputs.length > 1) {
    lines.push(
      "",
      "**Not comparable across inputs:** this table's drain runs were taken on inputs that give different answers (the workload's data changed between builds), and its medians mix them; compare only runs of one input:",
      "",
      ...inputs.map((i) => `- ${fmt(i.outputRows)} results: ${i.variants.map(label).join(", ")}`),
    );
  }
  lines.push("", `![${run.workload} chart](results/${run.workload}.svg)`, "");
  return lines.join("\n");
}

/** The inputs a workload's successful drain runs were taken on, told apart by the number of results they give, with the variants run on each. */
export function drainInputs(drain: readonly DrainResult[]): { outputRows: number; variants: VariantId[] }[] {
  const byRows = new Map<number, Set<VariantId>>();
  for (const d of drain) {
    if (d.status !== "ok" || typeof d.outputRows !== "number") continue;
    const variants = byRows.get(d.outputRows) ?? new Set<VariantId>();
    byRows.set(d.outputRows, variants.add(normalizeId(d.system)));
  }
  return [...byRows].sort(([a], [b]) => a - b).map(([outputRows, variants]) => ({ outputRows, variants: [...variants] }));
}

/** Grouped horizontal bars per variant: drain records/s and records per CPU-second, medians, with a whisker for the range. */
export function chartSvg(run: WorkloadRun): string {
  const metrics = [
    { label: "records/s", figure: "recordsPerSecond", color: "#3b6ea8" },
    { label: "records per CPU-second", figure: "recordsPerCpuSecond", color: "#d08a2c" },
  ] as const;
  const rowH = 18;
  const left = 250;
  const width = 820;
  const barMax = width - left - 150;
  const blockH = metrics.length * rowH + 14;
  const height = 40 + run.summary.length * blockH + 10;
  const max = Math.max(1, ...run.summary.flatMap((s) => metrics.flatMap((m) => [s[m.figure], s.ranges[m.figure].max]).filter(Number.isFinite)));
  const esc = (t: string) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const x = (v: number) => left + Math.max(1, (v / max) * barMax);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<text x="10" y="18" font-size="14" font-weight="bold">${esc(`${run.workload}: drain throughput and efficiency (medians, whiskers: min–max)`)}</text>`,
    ...metrics.map((m, i) => `<rect x="${left + i * 200}" y="26" width="10" height="10" fill="${m.color}"/><text x="${left + 14 + i * 200}" y="35">${esc(m.label)}</text>`),
  ];
  run.summary.forEach((s, row) => {
    const y0 = 44 + row * blockH;
    parts.push(`<text x="10" y="${y0 + rowH}">${esc(label(s.system))}</text>`);
    metrics.forEach((m, i) => {
      const v = s[m.figure];
      const { min, max: hi } = s.ranges[m.figure];
      const y = y0 + i * rowH;
      const end = Number.isFinite(v) ? x(v) : left;
      parts.push(`<rect x="${left}" y="${y}" width="${(end - left).toFixed(1)}" height="${rowH - 4}" fill="${m.color}"/>`);
      if (Number.isFinite(min) && hi > min) parts.push(`<line x1="${x(min).toFixed(1)}" x2="${x(hi).toFixed(1)}" y1="${y + (rowH - 4) / 2}" y2="${y + (rowH - 4) / 2}" stroke="#222" stroke-width="1.5"/>`);
      const textX = Math.max(end, Number.isFinite(hi) ? x(hi) : end) + 6;
      parts.push(`<text x="${textX.toFixed(1)}" y="${y + rowH - 7}">${Number.isFinite(v) ? fmt(v) : "failed"}</text>`);
    });
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}

/** How the figures are taken, in short (bench/README.md has the whole method). */
const HARNESS = [
  "## How the harness measures",
  "",
  "- **Variants.** Each system runs at its defaults and as its experts would tune it; every variant is its own row, named",
  "  `system:variant`, with what it sets listed under each table. The \"best peer\" of a figure is the best of all peer",
  "  variants, tuned or default, and the tables name it.",
  "- **Drains end at the last result, not at a commit.** Kafka Streams forwards window results only when it commits (30 s",
  "  by default): in drain runs every Kafka Streams variant commits every 100 ms at most (the latency variant every 50 ms),",
  "  so its end is off by at most a tenth of a second. Spark's and Sluice's micro-batches write their results as they",
  "  finish, the kafkajs loop within 100 ms. The latency phase keeps each variant's own commit interval.",
  "- **Broker CPU.** The Kafka broker's process CPU seconds (user + system, from `/proc`) over each drain run (start to",
  "  last result) and each latency run (first step to the end of the ladder): a system whose fetches or produce requests are",
  "  small makes the broker work harder, on the same 2 cores.",
  "- **Event time.** Drain inputs span 111.5 s of event time: eleven closed 10 s windows (W2: 51 sliding ones).",
  "- **Repetitions.** Interleaved (A B C … A B C …), 5 by default; every figure is a median with its min–max range.",
  "  The machine's speed drifts over a day (every system's figures move together, by up to ~1.7x), so the ratios that",
  "  count are between systems measured in the same invocation; each table names the Sluice builds its runs used.",
  "- **Builds.** Every system runs as its users deploy it: the Java peers from their Maven-built jars, Sluice's job and",
  "  the kafkajs loop compiled by tsc into `bench/.build`. (Runs before Sluice commit 5a95ee0 ran the JavaScript systems",
  "  through tsx, whose TypeScript transforms and module hooks were charged to their CPU.)",
];

export const resultPath = (w: WorkloadName) => path.join(ROOT, "bench/results", `${w}.json`);

/** Rewrites bench/RESULTS.md and the charts from every workload's latest committed run. */
export function writeResultsMarkdown(): void {
  const runs = WORKLOADS.filter((w) => existsSync(resultPath(w))).map((w) => resummarized(JSON.parse(readFileSync(resultPath(w), "utf8")) as WorkloadRun));
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
    ...HARNESS,
    "",
    ...(env ? ["## Machine and versions", "", `- ${env.machine}`, ...Object.entries(env.versions).map(([k, v]) => `- ${k}: ${v}`), ""] : []),
    ...runs.map(workloadSection),
  ].join("\n");
  writeFileSync(path.join(ROOT, "bench/RESULTS.md"), md);
}
