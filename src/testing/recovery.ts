// The recovery scenario of the fault tests: a stateful, windowed Kafka query whose exact output is known in
// advance, run in child processes that are killed (at named crash points or at random times) and started again
// on the same checkpoint until the input is done. Its output must then equal the uninterrupted answer: nothing
// lost, nothing written twice.
import { z } from "zod";
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
  const topic = await createTopic("recovery-input", 2);
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
    const Out = z.object({ window_start: z.int64(), key: z.string(), count: z.int64(), sum: z.int64() });
    return sortCounts((await session.read.schema(Out).json(sink.path).collect()) as WindowCount[]);
  }
  const rows = await session.read
    .format("kafka")
    .option("kafka.bootstrap.servers", plan.bootstrap)
    .option("subscribe", sink.topic)
    .option("kafka.isolation.level", "read_committed")
    .load()
    .select("value")
    .collect();
  return sortCounts(rows.map((r) => JSON.parse(r.value as string) as WindowCount));
}

export interface Attempt {
  /** How the child ended: "done" (the query finished), "crashed" (SIGKILL at its crash point), "killed" (by the test). */
  readonly outcome: "done" | "crashed" | "killed";
  /** The `SLUICE_CRASHED <point> <detail>` line of a crashed child. */
  readonly crashLine: string | null;
  /** Batches the child reported before it ended. */
  readonly batches: number;
}

/**
 * Runs the scenario in a child process. With `crashAt` the child runs with SLUICE_CRASH_AT set;
 * with `killAfterMs` the test SIGKILLs it after that long (if it is still running).
 */
export async function runChild(plan: WindowedCountsPlan, options: { crashAt?: string; killAfterMs?: number } = {}): Promise<Attempt> {
  const child = startChildQuery(plan, options.crashAt ? { SLUICE_CRASH_AT: options.crashAt } : {});
  let batches = 0;
  child.process.stdout!.on("data", (d: Buffer) => (batches += (d.toString("utf8").match(/^BATCH /gm) ?? []).length));
  let killed = false;
  const timer =
    options.killAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          killed = true;
          child.process.kill("SIGKILL");
        }, options.killAfterMs);
  const exit = await child.exited;
  clearTimeout(timer);
  const crashLine = exit.stderr.split("\n").find((l) => l.startsWith("SLUICE_CRASHED ")) ?? null;
  if (exit.code === 0) return { outcome: "done", crashLine, batches };
  if (exit.signal === "SIGKILL" && crashLine !== null) return { outcome: "crashed", crashLine, batches };
  if (exit.signal === "SIGKILL" && killed) return { outcome: "killed", crashLine, batches };
  throw new Error(`the scenario's child process failed (${exit.signal ?? `exit ${exit.code}`}):\n${exit.stderr}`);
}

/** Starts the scenario again after each kill until the query finished; at most `maxAttempts` children. */
export async function runToCompletion(plan: WindowedCountsPlan, maxAttempts = 20): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (let i = 0; i < maxAttempts; i++) {
    const attempt = await runChild(plan);
    attempts.push(attempt);
    if (attempt.outcome === "done") return attempts;
  }
  throw new Error(`the scenario did not finish in ${maxAttempts} runs`);
}
