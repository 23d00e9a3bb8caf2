/**
 * Stream-stream join benchmark: Spark's ad-impression/click example (bench/harness/ad-clicks.ts)
 * through Sluice's symmetric hash join, inner and left outer, with 0 and 2 workers, against the
 * same join written by hand over per-ad Maps (bench/harness/join-loop.ts). Both streams are
 * memory streams fed with Arrow batches built before the clock starts, one step (the same span
 * of event time on both) per micro-batch: the figures are the engine's, not a generator's.
 * Every run's output row count is checked against the count the generator knows.
 *
 *   npm run bench:join                                  # 10,000,000 events, 3 interleaved reps
 *   npm run bench:join -- --events 1000000 --reps 1 --workers 0 --joins inner --out none
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { z } from "zod";
import { expr, Session } from "../src/index.js";
import { makeBatch, type Batch } from "../src/batch/batch.js";
import { int32Column, timestampColumn } from "../src/batch/numeric-columns.js";
import type { StreamingQueryProgress } from "../src/runtime/progress.js";
import { type AdClickData, flushEvents, generateAdClicks, MATCH_WINDOW_MS, SPAN_MS } from "./harness/ad-clicks.js";
import { runJoinLoop } from "./harness/join-loop.js";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!);
const EVENTS = Number(args.get("events") ?? 10_000_000);
/** Events per micro-batch (both streams together). */
const STEP_EVENTS = Number(args.get("step") ?? 100_000);
const REPS = Number(args.get("reps") ?? 3);
/** Worker counts of the Sluice runs (`none`: the loop alone). */
const WORKERS = args.get("workers") === "none" ? [] : (args.get("workers") ?? "0,2").split(",").map(Number);
const JOINS = (args.get("joins") ?? "inner,leftOuter").split(",") as JoinKind[];
/** Results file name under bench/results (`none`: print only). */
const OUT = args.get("out") ?? "stream-join";
/** Label of this build in the results (e.g. "before"/"after" when comparing two checkouts). */
const LABEL = args.get("label") ?? "";
/** Runs the hand-written loop peer too (`no` when only comparing two builds of Sluice). */
const WITH_LOOP = args.get("loop") !== "no";
/** Instead of running: the table of the runs in these results files (comma-separated), merged. */
const REPORT = args.get("report");

type JoinKind = "inner" | "leftOuter";
const IMPRESSION_DELAY = "10 minutes";
const CLICK_DELAY = "20 minutes";
const DELAY_MS = { impression: 10 * 60_000, click: 20 * 60_000 };
const CONDITION = "clickAdId = impressionAdId AND clickTime >= impressionTime AND clickTime <= impressionTime + interval 1 hour";

const Impression = z.object({ impressionAdId: z.int32(), impressionTime: z.date() });
const Click = z.object({ clickAdId: z.int32(), clickTime: z.date() });

interface Run {
  /** The `--label` of the build that ran it. */
  readonly build: string;
  readonly system: string;
  readonly join: JoinKind;
  readonly rep: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly outputRows: number;
  readonly microBatches: number;
  readonly peakStateRows: number;
  readonly peakStateBytes: number | null;
  /** After the last step of data (before the flush events empty the state). */
  readonly lastStepStateRows: number;
  readonly lastStepStateBytes: number | null;
  readonly droppedByWatermark: number;
}

/** One step's rows of each stream as Arrow batches, built once and shared by every run. */
interface Steps {
  readonly impressions: readonly Batch[];
  readonly clicks: readonly Batch[];
}

function buildSteps(data: AdClickData, impFields: Batch["fields"], clickFields: Batch["fields"]): Steps {
  const impressions: Batch[] = [];
  const clicks: Batch[] = [];
  const steps = data.impBounds.length - 1;
  for (let k = 0; k < steps; k++) {
    const [i0, i1] = [data.impBounds[k]!, data.impBounds[k + 1]!];
    const [c0, c1] = [data.clickBounds[k]!, data.clickBounds[k + 1]!];
    impressions.push(makeBatch(impFields, [int32Column(data.impAdId.slice(i0, i1)), timestampColumn(data.impTime.slice(i0, i1))], i1 - i0));
    clicks.push(makeBatch(clickFields, [int32Column(data.clickAdId.slice(c0, c1)), timestampColumn(data.clickTime.slice(c0, c1))], c1 - c0));
  }
  const f = flushEvents();
  impressions.push(makeBatch(impFields, [int32Column(Int32Array.of(f.impAdId)), timestampColumn(Float64Array.of(f.time))], 1));
  clicks.push(makeBatch(clickFields, [int32Column(Int32Array.of(f.clickAdId)), timestampColumn(Float64Array.of(f.time))], 1));
  return { impressions, clicks };
}

function cpuSecondsNow(): number {
  // getrusage(RUSAGE_SELF): every thread of the process, the pool's worker threads included.
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * One query over `steps` (the last one holds the flush events): each step's blocks are added
 * while the sink takes the previous micro-batch, so every micro-batch reads exactly one step.
 */
async function runSluice(session: Session, steps: Steps, join: JoinKind): Promise<{ seconds: number; cpuSeconds: number; progress: StreamingQueryProgress[] }> {
  const imps = session.memoryStream(Impression);
  const clicks = session.memoryStream(Click);
  const joined = imps
    .toDF()
    .withWatermark("impressionTime", IMPRESSION_DELAY)
    .join(clicks.toDF().withWatermark("clickTime", CLICK_DELAY), expr(CONDITION) as never, join === "inner" ? "inner" : "left_outer");
  const checkpoint = mkdtempSync(path.join(os.tmpdir(), "sluice-bench-join-"));
  let next = 0;
  const feed = () => {
    if (next >= steps.impressions.length) return;
    imps.addBatch(steps.impressions[next]!);
    clicks.addBatch(steps.clicks[next]!);
    next++;
  };
  const progress: StreamingQueryProgress[] = [];
  try {
    const cpu0 = cpuSecondsNow();
    const t0 = performance.now();
    feed();
    const q = joined.writeStream
      .outputMode("append")
      .option("checkpointLocation", checkpoint)
      .foreachBatch(() => feed())
      .start();
    // The run starts after this turn of the event loop: no progress is missed.
    const listener = { onQueryProgress: (e: { progress: StreamingQueryProgress }) => (e.progress.id === q.id ? void progress.push(e.progress) : undefined) };
    session.streams.addListener(listener);
    while (next < steps.impressions.length) await q.processAllAvailable();
    // The flush step is in; what remains is its batch and the no-data batch that evicts by it.
    await q.processAllAvailable();
    const seconds = (performance.now() - t0) / 1000;
    const cpuSeconds = cpuSecondsNow() - cpu0;
    await q.stop();
    session.streams.removeListener(listener);
    return { seconds, cpuSeconds, progress };
  } finally {
    rmSync(checkpoint, { recursive: true, force: true });
  }
}

function sluiceRun(system: string, join: JoinKind, rep: number, r: { seconds: number; cpuSeconds: number; progress: StreamingQueryProgress[] }, dataSteps: number): Run {
  const ops = r.progress.map((p) => p.stateOperators[0]!);
  const last = r.progress.find((p) => p.sources.every((s) => Number(s.endOffset) === dataSteps));
  if (last === undefined) throw new Error(`${system}: no micro-batch ended at step ${dataSteps}: the steps did not map one to one onto micro-batches`);
  return {
    build: LABEL,
    system,
    join,
    rep,
    seconds: r.seconds,
    cpuSeconds: r.cpuSeconds,
    outputRows: r.progress.reduce((n, p) => n + p.sink.numOutputRows, 0),
    microBatches: r.progress.length,
    peakStateRows: Math.max(...ops.map((o) => o.numRowsTotal)),
    peakStateBytes: Math.max(...ops.map((o) => o.memoryUsedBytes)),
    lastStepStateRows: last.stateOperators[0]!.numRowsTotal,
    lastStepStateBytes: last.stateOperators[0]!.memoryUsedBytes,
    droppedByWatermark: ops.reduce((n, o) => n + o.numRowsDroppedByWatermark, 0),
  };
}

function loopRun(data: AdClickData, join: JoinKind, rep: number): Run {
  const cpu0 = cpuSecondsNow();
  const t0 = performance.now();
  const r = runJoinLoop(data, { leftOuter: join === "leftOuter", impressionDelayMs: DELAY_MS.impression, clickDelayMs: DELAY_MS.click });
  return {
    build: LABEL,
    system: "loop",
    join,
    rep,
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: cpuSecondsNow() - cpu0,
    outputRows: r.outputRows,
    microBatches: data.impBounds.length + 1,
    peakStateRows: r.peakStateRows,
    peakStateBytes: null,
    lastStepStateRows: r.lastStepStateRows,
    lastStepStateBytes: null,
    droppedByWatermark: 0,
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
const mib = (b: number | null) => (b === null ? "—" : (b / 2 ** 20).toFixed(1));

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  const steps = Math.max(1, Math.round(EVENTS / STEP_EVENTS));
  let t = performance.now();
  const data = generateAdClicks(EVENTS, steps);
  const systems = [...WORKERS.map((w) => `sluice-${w}w`), ...(WITH_LOOP ? ["loop"] : [])];
  const expected = (j: JoinKind) => (j === "inner" ? data.expectedInner : data.expectedLeftOuter);
  console.log(
    `generated ${data.impressions.toLocaleString()} impressions and ${data.clicks.toLocaleString()} clicks in ${steps} steps (${((performance.now() - t) / 1000).toFixed(1)} s); ` +
      `expected rows: inner ${data.expectedInner.toLocaleString()}, left outer ${data.expectedLeftOuter.toLocaleString()}`,
  );
  const sessions = new Map<number, Session>(WORKERS.map((w) => [w, new Session({ workers: w })]));
  const probe = new Session({ workers: 0 });
  const fields = { imp: probe.memoryStream(Impression).data.fields, click: probe.memoryStream(Click).data.fields };
  await probe.stop();
  t = performance.now();
  const all = buildSteps(data, fields.imp, fields.click);
  console.log(`built ${all.impressions.length} steps of Arrow batches (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  // Warm each session (worker start-up, module loading, the JIT) on the first steps of the data.
  const warm: Steps = { impressions: [...all.impressions.slice(0, 3), all.impressions.at(-1)!], clicks: [...all.clicks.slice(0, 3), all.clicks.at(-1)!] };
  for (const [, s] of sessions) for (const j of JOINS) await runSluice(s, warm, j);

  const runs: Run[] = [];
  try {
    // Interleaved (A B C A B C ...) so drift in machine load spreads over every system.
    for (let rep = 1; rep <= REPS; rep++) {
      for (const join of JOINS) {
        for (const system of systems) {
          let run: Run;
          if (system === "loop") run = loopRun(data, join, rep);
          else {
            const w = Number(system.slice("sluice-".length, -1));
            run = sluiceRun(system, join, rep, await runSluice(sessions.get(w)!, all, join), steps);
          }
          const ok = run.outputRows === expected(join);
          console.log(
            `rep ${rep} ${join} ${system}: ${run.seconds.toFixed(2)} s, ${fmt(EVENTS / run.seconds)} events/s, ${fmt(EVENTS / run.cpuSeconds)} per CPU-s, ` +
              `${fmt(run.outputRows)} rows ${ok ? "(as expected)" : `(EXPECTED ${fmt(expected(join))})`}, state peak ${fmt(run.peakStateRows)} rows ${mib(run.peakStateBytes)} MiB, ` +
              `after the data ${fmt(run.lastStepStateRows)} rows ${mib(run.lastStepStateBytes)} MiB, ${run.microBatches} micro-batches, ${run.droppedByWatermark} late`,
          );
          if (!ok) throw new Error(`${system} ${join}: ${run.outputRows} output rows, expected ${expected(join)}`);
          runs.push(run);
        }
      }
    }
  } finally {
    for (const [, s] of sessions) await s.stop();
  }

  const table = tableOf(runs, EVENTS);
  console.log(`\n${LABEL ? `${LABEL} (commit ${gitCommit()})\n` : ""}${table}`);
  if (OUT === "none") return;
  const resultsDir = path.join(path.dirname(new URL(import.meta.url).pathname), "results");
  mkdirSync(resultsDir, { recursive: true });
  const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version };
  const out = {
    benchmark: "stream-join",
    date: new Date().toISOString(),
    commit: gitCommit(),
    label: LABEL,
    events: EVENTS,
    impressions: data.impressions,
    clicks: data.clicks,
    steps,
    spanMs: SPAN_MS,
    matchWindowMs: MATCH_WINDOW_MS,
    watermarks: { impressionTime: IMPRESSION_DELAY, clickTime: CLICK_DELAY },
    condition: CONDITION,
    expected: { inner: data.expectedInner, leftOuter: data.expectedLeftOuter },
    reps: REPS,
    machine,
    runs,
  };
  writeFileSync(path.join(resultsDir, `${OUT}.json`), `${JSON.stringify(out, null, 2)}\n`);
  writeFileSync(path.join(resultsDir, `${OUT}.table.md`), `${table}\n`);
  console.log(`wrote bench/results/${OUT}.json and ${OUT}.table.md`);
}

/**
 * Medians per (build, join, system); the ratios are to the loop's medians over all the runs given
 * (the loop is the same code in every build).
 */
function tableOf(runs: readonly Run[], events: number): string {
  const rows: string[] = [];
  const keys = [...new Set(runs.map((r) => `${r.join}\u0000${r.build}\u0000${r.system}`))];
  for (const key of keys) {
    const [join, build, system] = key.split("\u0000") as [JoinKind, string, string];
    const loops = runs.filter((r) => r.join === join && r.system === "loop");
    const loopWall = loops.length > 0 ? median(loops.map((r) => events / r.seconds)) : NaN;
    const loopCpu = loops.length > 0 ? median(loops.map((r) => events / r.cpuSeconds)) : NaN;
    const rs = runs.filter((r) => r.join === join && r.build === build && r.system === system);
    const wall = median(rs.map((r) => events / r.seconds));
    const cpu = median(rs.map((r) => events / r.cpuSeconds));
    const ratio = (x: number, peer: number) => (system === "loop" || Number.isNaN(peer) ? "" : `${(x / peer).toFixed(2)}x`);
    const bytes = (f: (r: Run) => number | null) => mib(f(rs[0]!) === null ? null : median(rs.map((r) => f(r)!)));
    rows.push(
      `| ${join} | ${build ? `${build} ` : ""}${system} | ${rs.length} | ${median(rs.map((r) => r.seconds)).toFixed(1)} | ${fmt(wall)} | ${ratio(wall, loopWall)} | ${fmt(cpu)} | ${ratio(cpu, loopCpu)} | ` +
        `${fmt(rs[0]!.outputRows)} ✓ | ${fmt(median(rs.map((r) => r.peakStateRows)))} | ${bytes((r) => r.peakStateBytes)} | ` +
        `${fmt(median(rs.map((r) => r.lastStepStateRows)))} | ${bytes((r) => r.lastStepStateBytes)} | ${rs.map((r) => fmt(events / r.seconds)).join(", ")} |`,
    );
  }
  return [
    "| join | system | runs | seconds (median) | events/s (median) | ÷ loop | events per CPU-second | ÷ loop | joined rows (= expected) | peak state rows | peak state MiB | state rows after the data | state MiB after the data | each run (events/s) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
  ].join("\n");
}

if (REPORT !== undefined) {
  const files = REPORT.split(",").map((f) => JSON.parse(readFileSync(f, "utf8")) as { events: number; runs: Run[] });
  console.log(tableOf(files.flatMap((f) => f.runs), files[0]!.events));
} else {
  await main();
}
