// The recovery scenario of the fault tests: a stateful, windowed Kafka query whose exact output is known in
// advance, run in child processes that are killed (at named crash points or at random times) and started again
// on the same checkpoint until the input is done. Its output must then equal the uninterrupted answer: nothing
// lost, nothing written twice.
import { createInterface } from "node:readline";
import { z } from "zod";
import { col } from "../api/functions.js";
import type { Session } from "../api/session.js";
import { startChildQuery } from "./child-query.js";
import { createTopic } from "./kafka.js";
import { produceJson } from "./kafka-load.js";
import { DELAY_MS, WINDOW_MS, type WindowedCountsPlan } from "./windowed-counts.js";

/** One row of the scenario's output. */
export interface WindowCount {
  readonly window_start: number;
  readonly key: string;
  readonly count: number;
  readonly sum: number;
}

/** The input: `n` events over 2 partitions, key k0..k(keys-1), event time 10 ms apart. */
export interface ScenarioInput {
  readonly topic: string;
  readonly expected: readonly WindowCount[];
}

const BASE_TIME = Date.UTC(2026, 0, 1);
const STEP_MS = 10;

export async function loadScenarioInput(bootstrap: string, n: number, keys: number): Promise<ScenarioInput> {
  // Event times are fixed in the past: the topic keeps them forever instead of deleting them by age.
  const topic = await createTopic("recovery-input", 2, { "retention.ms": "-1" });
  const keyOf = (i: number) => `k${i % keys}`;
  const valueOf = (i: number) => i % 7;
  const timeOf = (i: number) => BASE_TIME + i * STEP_MS;
  await produceJson(bootstrap, topic, 2, n, (i) => JSON.stringify({ key: keyOf(i), value: valueOf(i) }), { perBatch: 1000, timestamp: timeOf });
  // The answer, computed without Sluice: append mode emits the windows the final watermark closed.
  const watermark = timeOf(n - 1) - DELAY_MS;
  const byGroup = new Map<string, { window_start: number; key: string; count: number; sum: number }>();
  for (let i = 0; i < n; i++) {
    const start = Math.floor(timeOf(i) / WINDOW_MS) * WINDOW_MS;
    if (start + WINDOW_MS > watermark) continue;
    const id = `${start}/${keyOf(i)}`;
    const g = byGroup.get(id) ?? { window_start: start, key: keyOf(i), count: 0, sum: 0 };
    g.count++;
    g.sum += valueOf(i);
    byGroup.set(id, g);
  }
  return { topic, expected: sortCounts([...byGroup.values()]) };
}

export function sortCounts(rows: readonly WindowCount[]): WindowCount[] {
  return [...rows].sort((a, b) => a.window_start - b.window_start || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** What the scenario wrote: read_committed from Kafka, or the committed files of the folder. */
export async function scenarioOutput(session: Session, plan: WindowedCountsPlan): Promise<WindowCount[]> {
  const sink = plan.sink;
  if (sink.kind === "file") {
    const Out = z.object({ window_start: z.number(), key: z.string(), count: z.number(), sum: z.number() });
    return sortCounts((await session.read.schema(Out).json(sink.path).collect()) as WindowCount[]);
  }
  const rows = await session.read
    .format("kafka")
    .option("kafka.bootstrap.servers", plan.bootstrap)
    .option("subscribe", sink.topic)
    .option("kafka.isolation.level", "read_committed")
    .load()
    .select(col("value").cast("string").alias("value"))
    .collect();
  return sortCounts(rows.map((r) => JSON.parse(r.value!) as WindowCount));
}

export interface Attempt {
  /**
   * How the child ended: "done" (the query finished), "crashed" (SIGKILL at its crash point),
   * "killed" (by the test), "failed" (the query stopped with an error, on stderr).
   */
  readonly outcome: "done" | "crashed" | "killed" | "failed";
  /** The `SLUICE_CRASHED <point> <detail>` line of a crashed child. */
  readonly crashLine: string | null;
  /** Batches the child reported before it ended. */
  readonly batches: number;
  readonly stderr: string;
}

/**
 * When the test SIGKILLs a child: `thenMs` after the child reported its `afterBatches`-th batch
 * (0: after it started the query). Anchoring the clock to progress, not to the process start, is
 * what makes an early kill land on a fast machine as on a slow one.
 */
export interface KillPlan {
  readonly afterBatches: number;
  readonly thenMs: number;
}

/**
 * Runs the scenario in a child process. With `crashAt` the child runs with SLUICE_CRASH_AT set;
 * with `kill` the test SIGKILLs it at that moment of its work (if it is still running).
 */
export async function runChild(plan: WindowedCountsPlan, options: { crashAt?: string; kill?: KillPlan; env?: Record<string, string> } = {}): Promise<Attempt> {
  const child = startChildQuery(plan, { ...options.env, ...(options.crashAt ? { SLUICE_CRASH_AT: options.crashAt } : {}) });
  let batches = 0;
  let started = false;
  let killed = false;
  let timer: NodeJS.Timeout | undefined;
  const armKill = () => {
    if (options.kill === undefined || timer !== undefined || !started || batches < options.kill.afterBatches) return;
    timer = setTimeout(() => {
      killed = true;
      child.process.kill("SIGKILL");
    }, options.kill.thenMs);
  };
  createInterface({ input: child.process.stdout! }).on("line", (line) => {
    if (line.startsWith("STARTED ")) started = true;
    else if (line.startsWith("BATCH ")) batches++;
    armKill();
  });
  const exit = await child.exited;
  clearTimeout(timer);
  const crashLine = exit.stderr.split("\n").find((l) => l.startsWith("SLUICE_CRASHED ")) ?? null;
  const ended = { crashLine, batches, stderr: exit.stderr };
  if (exit.code === 0) return { outcome: "done", ...ended };
  if (exit.signal === "SIGKILL" && crashLine !== null) return { outcome: "crashed", ...ended };
  if (exit.signal === "SIGKILL" && killed) return { outcome: "killed", ...ended };
  if (exit.code === 1) return { outcome: "failed", ...ended };
  throw new Error(`the scenario's child process ended unexpectedly (${exit.signal ?? `exit ${exit.code}`}):\n${exit.stderr}`);
}

/** Rows of `actual` that `expected` lacks (duplicates) and rows of `expected` that `actual` lacks (lost). */
export function compareCounts(actual: readonly WindowCount[], expected: readonly WindowCount[]): { lost: number; duplicated: number } {
  const key = (r: WindowCount) => JSON.stringify([r.window_start, r.key, r.count, r.sum]);
  const want = new Map<string, number>();
  for (const r of expected) want.set(key(r), (want.get(key(r)) ?? 0) + 1);
  let duplicated = 0;
  for (const r of actual) {
    const left = want.get(key(r)) ?? 0;
    if (left > 0) want.set(key(r), left - 1);
    else duplicated++;
  }
  return { lost: [...want.values()].reduce((n, v) => n + v, 0), duplicated };
}

/**
 * The first kill of a randomized run lands within this many batches and milliseconds of the
 * query's start: a fresh run has ~20 batches, so it always finds the query still working.
 */
const FIRST_KILL: KillPlan = { afterBatches: 5, thenMs: 150 };

/** A deterministic pseudo-random sequence in [0, 1) (a test prints its seed, so a failure can be replayed). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/**
 * One randomized run: the scenario is SIGKILLed `kills` times, each at a random moment of its
 * work, and started again each time, then left to finish. The first kill comes within the first
 * quarter of the batches (so every run is killed at least once, however fast the machine); later
 * ones anywhere within `maxRunMs` of a restart, which may find the query already done. Returns
 * every child's attempt.
 */
export async function runWithRandomKills(plan: WindowedCountsPlan, random: () => number, kills: number, maxRunMs: number): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (let k = 0; k < kills; k++) {
    const kill: KillPlan =
      k === 0
        ? { afterBatches: Math.floor(random() * (FIRST_KILL.afterBatches + 1)), thenMs: Math.floor(random() * FIRST_KILL.thenMs) }
        : { afterBatches: 0, thenMs: Math.floor(random() * maxRunMs) };
    const attempt = await runChild(plan, { kill });
    attempts.push(attempt);
    if (attempt.outcome === "done") return attempts;
  }
  return [...attempts, ...(await runToCompletion(plan))];
}

/** Starts the scenario again after each kill until the query finished; at most `maxAttempts` children. */
export async function runToCompletion(plan: WindowedCountsPlan, maxAttempts = 20): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (let i = 0; i < maxAttempts; i++) {
    const attempt = await runChild(plan);
    attempts.push(attempt);
    if (attempt.outcome === "done") return attempts;
    if (attempt.outcome === "failed") throw new Error(`the scenario failed:\n${attempt.stderr}`);
  }
  throw new Error(`the scenario did not finish in ${maxAttempts} runs`);
}
