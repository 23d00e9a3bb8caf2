import { afterEach, describe, expect, it, vi } from "vitest";
import { closeIdleClients, idleClientCount, keepIdleClient, MAX_IDLE_MS, MAX_IDLE_PER_KEY, takeIdleClient } from "./idle-clients.js";

/** A stand-in client: what the pool does with it is all that is observed. */
const client = (name: string) => ({ name, closed: false });
const close = async (c: { closed: boolean }) => {
  c.closed = true;
};

afterEach(async () => {
  await closeIdleClients();
  vi.useRealTimers();
});

describe("idle Kafka clients kept between real-time batches", () => {
  it("hands a kept client to the next taker of its key, once", async () => {
    const a = client("a");
    await keepIdleClient("tail x", a, close);
    expect(takeIdleClient("tail y")).toBeNull();
    expect(takeIdleClient("tail x")).toBe(a);
    expect(takeIdleClient("tail x")).toBeNull();
    expect(a.closed).toBe(false);
  });

  it("closes what is given back beyond the per-key bound", async () => {
    const kept = Array.from({ length: MAX_IDLE_PER_KEY + 1 }, (_, i) => client(String(i)));
    for (const c of kept) await keepIdleClient("sink", c, close);
    expect(idleClientCount()).toBe(MAX_IDLE_PER_KEY);
    expect(kept.filter((c) => c.closed).map((c) => c.name)).toEqual([String(MAX_IDLE_PER_KEY)]);
  });

  it("closes a client idle for longer than the bound instead of handing it on", async () => {
    vi.useFakeTimers();
    const old = client("old");
    await keepIdleClient("tail x", old, close);
    vi.advanceTimersByTime(MAX_IDLE_MS + 1);
    const fresh = client("fresh");
    await keepIdleClient("tail x", fresh, close);
    expect(old.closed).toBe(true);
    expect(takeIdleClient("tail x")).toBe(fresh);
    expect(takeIdleClient("tail x")).toBeNull();
  });

  it("closes every kept client at a session's stop", async () => {
    const a = client("a");
    const b = client("b");
    await keepIdleClient("tail x", a, close);
    await keepIdleClient("sink", b, close);
    await closeIdleClients();
    expect([a.closed, b.closed]).toEqual([true, true]);
    expect(idleClientCount()).toBe(0);
  });
});
