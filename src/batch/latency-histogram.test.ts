import { describe, expect, it } from "vitest";
import { addLatencies, addLatency, emptyLatencies, latencyPercentile, mergeLatencies } from "./latency-histogram.js";

describe("latency histograms", () => {
  it("counts each record's latency in 1 ms buckets below a second", () => {
    const h = emptyLatencies();
    addLatencies(h, [1000, 995, 990, 901], 4, 1003);
    expect({ count: h.count, max: h.maxMs }).toEqual({ count: 4, max: 102 });
    expect([50, 75, 100].map((p) => latencyPercentile(h, p))).toEqual([8, 13, 102]);
  });

  it("adds one latency for many records at once, as a stage shared by a fetch's records", () => {
    const h = emptyLatencies();
    addLatency(h, 4, 99);
    addLatency(h, 40, 1);
    expect([50, 99, 100].map((p) => latencyPercentile(h, p))).toEqual([4, 4, 40]);
    expect(h.count).toBe(100);
  });

  it("merges tasks' histograms, and reports 6%-wide buckets above a second by their lower bound", () => {
    const a = emptyLatencies();
    const b = emptyLatencies();
    addLatency(a, 3, 1);
    addLatency(b, 5_000, 1);
    mergeLatencies(a, b);
    expect({ count: a.count, max: a.maxMs, p100: latencyPercentile(a, 100) }).toEqual({ count: 2, max: 5_000, p100: 4_871 });
    expect(latencyPercentile(emptyLatencies(), 99)).toBeNull();
  });
});
