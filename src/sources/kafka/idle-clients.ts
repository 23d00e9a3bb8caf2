/**
 * Kafka clients a thread keeps between uses. A real-time batch's tasks end at every checkpoint
 * interval and the next batch's tasks start at once (runtime/real-time-execution.ts): opening
 * their partition connections and their idempotent producer again (TCP, API versions, metadata,
 * InitProducerId) would stall every record arriving across the boundary. So a client its user
 * ends cleanly is kept here, idle, under a key naming what it connects to, and the next user with
 * that key takes it. A client whose use failed is closed instead: a broken connection is never
 * handed on.
 *
 * Bounded: at most `MAX_IDLE_PER_KEY` per key, and a client idle longer than `MAX_IDLE_MS` is
 * closed (brokers close idle connections after connections.max.idle.ms, ten minutes by default;
 * a kept client is for the next batch, not the next hour). `closeIdleClients` closes all of them
 * (a session's stop; a worker thread's end closes its own with it).
 */

/** Idle clients kept per key; more are closed when given back. */
export const MAX_IDLE_PER_KEY = 64;
/** How long a client may stay idle before it is closed rather than handed on. */
export const MAX_IDLE_MS = 60_000;

interface IdleClient {
  readonly client: unknown;
  readonly close: () => Promise<void>;
  readonly sinceMs: number;
}

const idle = new Map<string, IdleClient[]>();

/** An idle client kept under `key` (the most recently kept one), or null when there is none. */
export function takeIdleClient<T>(key: string): T | null {
  closeStale();
  const kept = idle.get(key);
  const found = kept?.pop();
  if (kept?.length === 0) idle.delete(key);
  return found ? (found.client as T) : null;
}

/** Keeps `client` idle under `key` for the next `takeIdleClient`, or closes it when the key has enough. */
export function keepIdleClient<T>(key: string, client: T, close: (client: T) => Promise<void>): Promise<void> {
  closeStale();
  const kept = idle.get(key) ?? [];
  if (kept.length >= MAX_IDLE_PER_KEY) return close(client).catch(() => undefined);
  kept.push({ client, close: () => close(client), sinceMs: Date.now() });
  idle.set(key, kept);
  return Promise.resolve();
}

/** Closes every idle client this thread keeps. */
export async function closeIdleClients(): Promise<void> {
  const all = [...idle.values()].flat();
  idle.clear();
  await Promise.all(all.map((c) => c.close().catch(() => undefined)));
}

/** How many idle clients this thread keeps (tests). */
export function idleClientCount(): number {
  let n = 0;
  for (const kept of idle.values()) n += kept.length;
  return n;
}

function closeStale(): void {
  const oldest = Date.now() - MAX_IDLE_MS;
  for (const [key, kept] of idle) {
    const stale = kept.filter((c) => c.sinceMs < oldest);
    if (stale.length === 0) continue;
    for (const c of stale) void c.close().catch(() => undefined);
    const fresh = kept.filter((c) => c.sinceMs >= oldest);
    if (fresh.length === 0) idle.delete(key);
    else idle.set(key, fresh);
  }
}
