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

/** Runs `fn` with a session and always stops it, so worker threads never outlive a test. */
export async function withSession<T>(workers: number, fn: (s: Session) => Promise<T>): Promise<T> {
  const session = new Session({ workers });
  try {
    return await fn(session);
  } finally {
    await session.stop();
  }
}
