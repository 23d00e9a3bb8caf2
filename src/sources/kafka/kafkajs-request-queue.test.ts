import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadKafkajs } from "./kafkajs.js";
import { mendsKafkajsRequestQueue, schedulePendingCheck, type PendingRequests } from "./kafkajs-request-queue.js";

/** A request queue's state as kafkajs keeps it, counting the checks its timer runs. */
function queue(pending: number, throttledUntil = -1): PendingRequests & { checks: number } {
  const q = {
    pending: Array.from({ length: pending }, (_, i) => i),
    throttledUntil,
    throttleCheckTimeoutId: null,
    checks: 0,
    checkPendingRequests() {
      q.checks++;
    },
  };
  return q;
}

describe("kafkajs's request queue checks its pending requests only while one waits", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("arms no timer when no request waits (kafkajs re-armed a 1 ms timer forever)", () => {
    const q = queue(0);
    schedulePendingCheck.call(q);
    expect(q.throttleCheckTimeoutId).toBeNull();
    vi.advanceTimersByTime(1_000);
    expect(q.checks).toBe(0);
  });

  it("checks a request that waits for an in-flight slot after 10 ms, once", () => {
    const q = queue(2);
    schedulePendingCheck.call(q);
    schedulePendingCheck.call(q);
    vi.advanceTimersByTime(9);
    expect(q.checks).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.checks).toBe(1);
    expect(q.throttleCheckTimeoutId).toBeNull();
  });

  it("checks a request held back by the broker's throttle when the throttle ends", () => {
    const q = queue(1, 1_000_000 + 250);
    schedulePendingCheck.call(q);
    vi.advanceTimersByTime(249);
    expect(q.checks).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.checks).toBe(1);
  });

  it("is the check kafkajs's request queues use once Sluice has loaded kafkajs", async () => {
    await loadKafkajs();
    expect(mendsKafkajsRequestQueue()).toBe(true);
  });
});
