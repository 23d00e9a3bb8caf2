import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll } from "vitest";
import { Session } from "../api/session.js";

/** `at("12:07")` is 2026-01-01T12:07:00Z: readable event times for tests and examples. */
export function at(hhmm: string, seconds = 0): Date {
  const [h, m] = hhmm.split(":").map(Number);
  return new Date(Date.UTC(2026, 0, 1, h!, m!, seconds));
}

/** `{ start: at(a), end: at(b) }`: a window value as rows carry it. */
export function win(start: string, end: string): { start: Date; end: Date } {
  return { start: at(start), end: at(end) };
}

/** Worker counts every engine test runs with: inline, one thread, two threads. */
export const WORKER_COUNTS = [0, 1, 2] as const;

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
