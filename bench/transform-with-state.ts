/**
 * transformWithState benchmark: Spark's sessionization example written as arbitrary stateful
 * processing (bench/harness/click-sessions.ts: value state per user, an event-time timer per
 * session that emits and clears it), over clicks from a memory stream, with 0 and 2 workers,
 * against the same sessionization written by hand over a Map, one record at a time. One step of
 * clicks (Arrow batches built before the clock starts) per micro-batch; the last step holds one
 * click far ahead, whose watermark fires every timer. Every run is checked: the sessions it emitted
 * count every click exactly once.
 *
 *   npm run bench:tws                                     # 1,000,000 clicks of 50,000 users, 3 interleaved reps
 *   npm run bench:tws -- --events 500000 --reps 1 --workers 0 --out none
 *   npm run bench:tws -- --label before --loop no --out tws-before   # from another checkout, to compare builds
 *   npm run bench:tws -- --report tws-before-1,tws-after-1 --out transform-with-state   # runs of several invocations, merged
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { makeBatch, type Batch } from "../src/batch/batch.js";
import { int32Column, timestampColumn } from "../src/batch/numeric-columns.js";
import { Session, statefulProcessor } from "../src/index.js";
import type { StreamingQueryProgress } from "../src/runtime/progress.js";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!);
const EVENTS = Number(args.get("events") ?? 1_000_000);
const USERS = Number(args.get("users") ?? 50_000);
const STEP_EVENTS = Number(args.get("step") ?? 50_000);
const REPS = Number(args.get("reps") ?? 3);
const WORKERS = args.get("workers") === "none" ? [] : (args.get("workers") ?? "0,2").split(",").map(Number);
const OUT = args.get("out") ?? "transform-with-state";
const LABEL = args.get("label") ?? "";
const WITH_LOOP = args.get("loop") !== "no";
const REPORT = args.get("report");

/** Clicks spread evenly over 8 hours of event time; a session ends after 30 minutes without a click. */
const SPAN_MS = 8 * 3_600_000;
const GAP_MS = 30 * 60_000;
const DELAY = "1 minute";
const T0 = Date.UTC(2026, 0, 1);
const PROCESSOR = new URL(`./harness/click-sessions${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

const ClickRow = z.object({ user: z.int32(), time: z.date() });
const SessionRow = z.object({ user: z.int32(), start: z.date(), end: z.date(), clicks: z.int32() });

interface Run {
  readonly build: string;
  readonly system: string;
  readonly rep: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly sessions: number;
  readonly microBatches: number;
  readonly peakStateRows: number;
  readonly peakStateBytes: number | null;
}

function mix32(x: number): number {
  let h = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Click i: user mix32(i) mod USERS, at T0 + i * SPAN / EVENTS. */
function generate(): { users: Int32Array; times: Float64Array } {
  const users = new Int32Array(EVENTS);
  const times = new Float64Array(EVENTS);
  for (let i = 0; i < EVENTS; i++) {
    users[i] = mix32(i) % USERS;
    times[i] = T0 + Math.floor((i * SPAN_MS) / EVENTS);
  }
  return { users, times };
}

/** The data's steps as batches, then the flush step: one click of user -1 far past every session's end. */
function buildSteps(data: { users: Int32Array; times: Float64Array }): Batch[] {
  const fields = [
    { name: "user", type: "int32", nullable: false },
    { name: "time", type: "timestamp", nullable: false },
  ] as const;
  const steps: Batch[] = [];
  for (let from = 0; from < EVENTS; from += STEP_EVENTS) {
    const to = Math.min(EVENTS, from + STEP_EVENTS);
    steps.push(makeBatch(fields, [int32Column(data.users.slice(from, to)), timestampColumn(data.times.slice(from, to))], to - from));
  }
  const flushAt = T0 + SPAN_MS + 2 * GAP_MS + 3_600_000;
  steps.push(makeBatch(fields, [int32Column(Int32Array.of(-1)), timestampColumn(Float64Array.of(flushAt))], 1));
  return steps;
}

function cpuSecondsNow(): number {
  // getrusage(RUSAGE_SELF): every thread of the process, the pool's worker threads included.
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function runSluice(session: Session, steps: readonly Batch[], system: string, rep: number): Promise<Run> {
  const clicks = session.memoryStream(ClickRow);
  const sessions = clicks
    .toDF()
    .withWatermark("time", DELAY)
    .groupByKey("user")
    .transformWithState(statefulProcessor(PROCESSOR, "ClickSessions", { outputSchema: SessionRow, args: { gapMs: GAP_MS } }), "eventTime", "append");
  const checkpoint = mkdtempSync(path.join(os.tmpdir(), "sluice-bench-tws-"));
  let next = 0;
  let emitted = 0;
  let counted = 0;
  const feed = () => {
    if (next < steps.length) clicks.addBatch(steps[next++]!);
  };
  const progress: StreamingQueryProgress[] = [];
  try {
    const cpu0 = cpuSecondsNow();
    const t0 = performance.now();
    feed();
    const q = sessions.writeStream
      .outputMode("append")
      .option("checkpointLocation", checkpoint)
      .foreachBatch(async (df) => {
        feed();
        const table = await df.toArrow();
        emitted += table.numRows;
        const column = table.getChild("clicks");
        if (column) for (const c of column.toArray() as Int32Array) counted += c;
      })
      .start();
    const listener = { onQueryProgress: (e: { progress: StreamingQueryProgress }) => (e.progress.id === q.id ? void progress.push(e.progress) : undefined) };
    session.streams.addListener(listener);
    while (next < steps.length) await q.processAllAvailable();
    // The flush step is in: its batch, then the batch without data whose watermark fires every timer.
    await q.processAllAvailable();
    const seconds = (performance.now() - t0) / 1000;
    const cpuSeconds = cpuSecondsNow() - cpu0;
    await q.stop();
    session.streams.removeListener(listener);
    if (counted !== EVENTS) throw new Error(`${system}: the sessions counted ${counted} clicks of ${EVENTS}`);
    const ops = progress.map((p) => p.stateOperators[0]!);
    return {
      build: LABEL,
      system,
      rep,
      seconds,
      cpuSeconds,
      sessions: emitted,
      microBatches: progress.length,
      peakStateRows: Math.max(...ops.map((o) => o.numRowsTotal)),
      peakStateBytes: Math.max(...ops.map((o) => o.memoryUsedBytes)),
    };
  } finally {
    rmSync(checkpoint, { recursive: true, force: true });
  }
}

/** The same sessions by hand: a Map of open sessions, one click at a time, closed when a click comes after the gap or at the end. */
function loopRun(data: { users: Int32Array; times: Float64Array }, rep: number): Run {
  const cpu0 = cpuSecondsNow();
  const t0 = performance.now();
  const open = new Map<number, { start: number; last: number; clicks: number }>();
  let sessions = 0;
  let counted = 0;
  let peak = 0;
  for (let i = 0; i < EVENTS; i++) {
    const user = data.users[i]!;
    const t = data.times[i]!;
    const s = open.get(user);
    if (s !== undefined && t <= s.last + GAP_MS) {
      s.clicks++;
      s.last = t;
      continue;
    }
    if (s !== undefined) {
      sessions++;
      counted += s.clicks;
    }
    open.set(user, { start: t, last: t, clicks: 1 });
    if (open.size > peak) peak = open.size;
  }
  for (const s of open.values()) {
    sessions++;
    counted += s.clicks;
  }
  if (counted !== EVENTS) throw new Error(`loop: the sessions counted ${counted} clicks of ${EVENTS}`);
  return {
    build: LABEL,
    system: "loop",
    rep,
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: cpuSecondsNow() - cpu0,
    sessions,
    microBatches: 0,
    peakStateRows: peak,
    peakStateBytes: null,
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

function tableOf(runs: readonly Run[]): string {
  const groups = new Map<string, Run[]>();
  for (const r of runs) {
    const name = `${r.build ? `${r.build} ` : ""}${r.system}`;
    groups.set(name, [...(groups.get(name) ?? []), r]);
  }
  const lines = [
    "| system | reps | median s | clicks/s | clicks per CPU-second | sessions | micro-batches | peak state rows | peak state MiB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [name, rs] of groups) {
    const s = median(rs.map((r) => r.seconds));
    const cpu = median(rs.map((r) => r.cpuSeconds));
    const bytes = rs[0]!.peakStateBytes;
    lines.push(
      `| ${name} | ${rs.length} | ${s.toFixed(2)} | ${fmt(EVENTS / s)} | ${fmt(EVENTS / cpu)} | ${fmt(rs[0]!.sessions)} | ${rs[0]!.microBatches} | ${fmt(rs[0]!.peakStateRows)} | ${bytes === null ? "—" : (bytes / 2 ** 20).toFixed(1)} |`,
    );
  }
  return lines.join("\n");
}

function writeResults(runs: readonly Run[], meta: Record<string, unknown>): void {
  const json = new URL(`./results/${OUT}.json`, import.meta.url);
  writeFileSync(json, `${JSON.stringify({ ...meta, runs }, null, 2)}\n`);
  const md = [
    "# transformWithState: sessionization (bench/transform-with-state.ts)",
    "",
    `${fmt(EVENTS)} clicks of ${fmt(USERS)} users over 8 h of event time, ${fmt(STEP_EVENTS)} per micro-batch, a session closed by an event-time timer 30 min after its last click (watermark delay ${DELAY}). Medians of interleaved repetitions; ${String(meta.when).slice(0, 10)}, commit ${String(meta.commit)}, Node ${process.version}, ${os.cpus().length} cores.`,
    "",
    tableOf(runs),
    "",
    "Every run is checked: the sessions it emitted count every click once. Sluice's sessions are the processor's: a micro-batch hands it a user's clicks at once, so clicks of one batch fall in one session (as they would in Spark), while the loop closes a session at the first gap of 30 minutes; the session counts differ, the clicks counted do not. `before` and `after` label two builds run alternately (`--label`).",
    "",
  ].join("\n");
  writeFileSync(new URL(`./results/${OUT}.md`, import.meta.url), md);
}

async function main(): Promise<void> {
  if (REPORT) {
    // Runs of separate invocations (two builds, interleaved by hand), merged into one table and results file.
    const files = REPORT.split(",").map((name) => JSON.parse(readFileSync(new URL(`./results/${name}.json`, import.meta.url), "utf8")) as { runs: Run[]; commit: string });
    const runs = files.flatMap((f) => f.runs);
    console.log(tableOf(runs));
    const commits = [...new Set(files.map((f) => f.commit))].join(", ");
    if (OUT !== "none") writeResults(runs, { events: EVENTS, users: USERS, step: STEP_EVENTS, reps: REPS, when: new Date().toISOString(), commit: commits, node: process.version, mergedFrom: REPORT });
    return;
  }
  const data = generate();
  const steps = buildSteps(data);
  const sessions = new Map(WORKERS.map((w) => [w, new Session({ workers: w })]));
  const runs: Run[] = [];
  try {
    for (let rep = 0; rep < REPS; rep++) {
      for (const [w, session] of sessions) {
        const r = await runSluice(session, steps, `sluice, ${w} workers`, rep);
        runs.push(r);
        console.log(`rep ${rep} ${r.system}: ${r.seconds.toFixed(2)} s, ${fmt(EVENTS / r.cpuSeconds)} clicks per CPU-second, ${fmt(r.sessions)} sessions`);
      }
      if (WITH_LOOP) {
        const r = loopRun(data, rep);
        runs.push(r);
        console.log(`rep ${rep} loop: ${r.seconds.toFixed(2)} s, ${fmt(r.sessions)} sessions`);
      }
    }
  } finally {
    await Promise.all([...sessions.values()].map((s) => s.stop()));
  }
  console.log(tableOf(runs));
  if (OUT !== "none") writeResults(runs, { events: EVENTS, users: USERS, step: STEP_EVENTS, reps: REPS, when: new Date().toISOString(), commit: gitCommit(), node: process.version });
}

await main();
