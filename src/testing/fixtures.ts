import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, it } from "vitest";
import type { DataFrame } from "../api/data-frame.js";
import { Session } from "../api/session.js";
import type { OutputMode } from "../config/options.js";
import { restartBeforeEachInput, testStream, type StreamAction } from "./stream-test.js";

/** `at("12:07")` is 2026-01-01T12:07:00Z: readable event times for tests and examples. */
export function at(hhmm: string, seconds = 0): Date {
  const [h, m] = hhmm.split(":").map(Number);
  return new Date(Date.UTC(2026, 0, 1, h!, m!, seconds));
}

/** `{ start: at(a), end: at(b) }`: a window value as rows carry it. */
export function win(start: string, end: string): { start: Date; end: Date } {
  return { start: at(start), end: at(end) };
}

/**
 * Worker counts every engine test runs with: inline on the driver, and two threads, which also split
 * the input into several tasks whose results merge (one thread would add no path these two miss).
 */
export const WORKER_COUNTS = [0, 2] as const;

/**
 * The runs of a ported Spark suite: with 0 and 2 workers, each straight through and again stopped
 * and restarted (state read back from the checkpoint) before every step that adds data. Use with
 * `describe.each(SUITE_CASES)`, `suiteRunner(restart)` and `itWithoutRestarts(restart)`.
 */
export const SUITE_CASES = [
  { workers: 0, restart: false },
  { workers: 2, restart: false },
  { workers: 0, restart: true },
  { workers: 2, restart: true },
] as const;

/** Runs a StreamTest on `df`; see `suiteRunner`. */
export type SuiteRunner = (df: DataFrame<any>, mode: OutputMode, ...actions: StreamAction[]) => Promise<void>;

/** StreamTest in this process, with a stop and a start before every step that adds data when `restartEachStep`. */
export function suiteRunner(restartEachStep: boolean): SuiteRunner {
  return (df, mode, ...actions) => testStream(df, mode).run(...(restartEachStep ? restartBeforeEachInput(actions) : actions));
}

/**
 * `it` for the scenarios that need one uninterrupted run (they read one run's progress, or stop
 * and start on their own): in the restarting cases they are not registered at all, so a suite's
 * test list names only what runs.
 */
export function itWithoutRestarts(restart: boolean): typeof it {
  return restart ? (Object.assign(() => undefined, { each: () => () => undefined }) as unknown as typeof it) : it;
}

/**
 * Runs `fn` with a session and always stops it, so worker threads never outlive a test. Queries
 * without a checkpointLocation of their own keep it in a temporary folder, removed afterwards.
 */
export async function withSession<T>(workers: number, fn: (s: Session) => Promise<T>): Promise<T> {
  const checkpoints = mkdtempSync(path.join(os.tmpdir(), "sluice-session-"));
  const session = new Session({ workers, checkpointLocation: checkpoints });
  try {
    return await fn(session);
  } finally {
    await session.stop();
    rmSync(checkpoints, { recursive: true, force: true });
  }
}

/**
 * One session per worker count for a whole test file: starting a pool of worker threads costs
 * seconds, so a file's scenarios share one (each query still has its own checkpoint). Call at the
 * top of the file; the sessions stop after its last test.
 */
export function sessionsPerFile(name: string): (workers: number) => Session {
  const sessions = new Map<number, { session: Session; dir: string }>();
  afterAll(async () => {
    for (const { session, dir } of sessions.values()) {
      await session.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return (workers) => {
    let s = sessions.get(workers);
    if (!s) {
      const dir = mkdtempSync(path.join(os.tmpdir(), `sluice-${name}-`));
      s = { session: new Session({ workers, checkpointLocation: dir }), dir };
      sessions.set(workers, s);
    }
    return s.session;
  };
}
