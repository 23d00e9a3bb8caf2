/**
 * How the benchmark judges a run: the answer check, a latency step's verdict and the summary's
 * medians and common rate. A wrong verdict here would publish a wrong figure, so these rules are
 * specified exactly.
 */
import { describe, expect, it } from "vitest";
import { checkAnswer, type DrainResult } from "./drain.js";
import { feedRounds } from "./generate.js";
import { stepResult, type LatencyResult, type StepResult } from "./latency.js";
import { sluiceBuilds, summarize, type WorkloadRun } from "./report.js";
import type { SystemName } from "./systems.js";
import { BASE_MS, CLOSED_BY_MS, eventTime, SPECS } from "./workloads.js";

describe("checkAnswer", () => {
  const spec = SPECS.W1;
  const row = (key: string, count: number) => ({ window_start: 0, window_end: 10_000, key, count });

  it("accepts the reference multiset in any order", () => {
    const reference = new Map([
      ["0|10000|a|1", 2],
      ["0|10000|b|5", 1],
    ]);
    expect(checkAnswer(spec, reference, [row("b", 5), row("a", 1), row("a", 1)])).toEqual({ missing: 0, extra: 0, example: null });
  });

  it("counts a duplicate as extra and a lost row as missing", () => {
    const reference = new Map([
      ["0|10000|a|1", 2],
      ["0|10000|b|5", 1],
    ]);
    expect(checkAnswer(spec, reference, [row("a", 1), row("b", 5), row("b", 5)])).toEqual({ missing: 1, extra: 1, example: "missing 0|10000|a|1" });
  });

  it("treats a wrong count as one missing and one unexpected row", () => {
    const reference = new Map([["0|10000|a|3", 1]]);
    expect(checkAnswer(spec, reference, [row("a", 2)])).toEqual({ missing: 1, extra: 1, example: "missing 0|10000|a|3" });
  });
});

describe("stepResult", () => {
  const points = (latencies: readonly number[]) => latencies.map((latency, i) => ({ due: i * 100, latency }));

  it("sustains a rate whose p99 is within 5 s and whose latency stays level", () => {
    const step = stepResult(10_000, 10_000, points(Array.from({ length: 100 }, (_, i) => 300 + (i % 10))));
    expect(step).toMatchObject({ rate: 10_000, samples: 100, p50Ms: 304, p99Ms: 309, sustained: true });
  });

  it("does not sustain a rate whose p99 exceeds 5 s", () => {
    const latencies = Array.from({ length: 100 }, (_, i) => (i % 50 === 49 ? 6_000 : 400));
    expect(stepResult(10_000, 10_000, points(latencies))).toMatchObject({ p99Ms: 6_000, sustained: false });
  });

  it("does not sustain a rate whose latency climbs through the step (growing lag)", () => {
    const step = stepResult(50_000, 50_000, points(Array.from({ length: 100 }, (_, i) => 100 + i * 30)));
    expect(step.p99Ms).toBeLessThan(5_000);
    expect(step.growthMs).toBeGreaterThan(1_000);
    expect(step.sustained).toBe(false);
  });

  it("does not sustain a step without results", () => {
    expect(stepResult(10_000, 10_000, [])).toMatchObject({ samples: 0, sustained: false });
  });
});

describe("summarize", () => {
  const drain = (system: SystemName, rep: number, recordsPerSecond: number, status = "ok"): DrainResult => ({
    system,
    rep,
    status,
    inputRecords: 1_000,
    seconds: 1_000 / recordsPerSecond,
    recordsPerSecond,
    cpuSeconds: 1,
    recordsPerCpuSecond: 1_000,
    peakRssMiB: 100,
    outputRows: 10,
  });
  const step = (rate: number, p99Ms: number): StepResult => ({ rate, sentRate: rate, samples: 100, p50Ms: p99Ms / 2, p99Ms, growthMs: 0, sustained: p99Ms <= 5_000 });
  const ladder = (system: SystemName, rep: number, p99s: readonly number[]): LatencyResult => {
    const steps = p99s.map((p99, i) => step([10_000, 25_000, 50_000][i]!, p99));
    const firstMiss = steps.findIndex((s) => !s.sustained);
    const sustainableRate = firstMiss === 0 ? 0 : steps[(firstMiss < 0 ? steps.length : firstMiss) - 1]!.rate;
    return { system, rep, status: "ok", steps, sustainableRate };
  };

  it("takes medians over correct runs only and counts the failed ones", () => {
    const { summary } = summarize(["sluice"], [drain("sluice", 1, 100), drain("sluice", 2, 300, "wrong answer: 1 missing"), drain("sluice", 3, 200)], []);
    expect(summary[0]).toMatchObject({ drainRuns: "2/3", recordsPerSecond: 150 });
  });

  it("reports latency at the highest rate every system that sustains any sustained in every repetition", () => {
    const latency = [
      ladder("sluice", 1, [100, 120, 150]),
      ladder("sluice", 2, [100, 130, 160]),
      ladder("spark", 1, [900, 1_100, 9_000]),
      ladder("spark", 2, [950, 6_000, 9_000]),
      ladder("kstreams", 1, [29_000, 29_500, 30_000]),
    ];
    const { summary, commonRate } = summarize(["sluice", "spark", "kstreams"], [], latency);
    expect(commonRate).toBe(10_000);
    expect(summary.map((s) => [s.system, s.sustainableRate, s.p99Ms, s.sustainsCommonRate])).toEqual([
      ["sluice", 50_000, 100, true],
      ["spark", 17_500, 925, true],
      ["kstreams", 0, 29_000, false],
    ]);
  });

  it("has no common rate when no system sustains any rate", () => {
    const { commonRate, summary } = summarize(["kstreams"], [], [ladder("kstreams", 1, [29_000])]);
    expect(commonRate).toBeNull();
    expect(summary[0]!.p99Ms).toBeNaN();
  });
});

describe("sluiceBuilds", () => {
  const run = (sluiceByPhase?: WorkloadRun["sluiceByPhase"]): WorkloadRun => ({
    workload: "W2",
    title: "",
    finishedAt: "",
    environment: { machine: "", versions: { Sluice: "0.1.0 (commit bbbbbbb)" } },
    config: { records: 1, reps: 1, rates: [], stepSeconds: 10, order: "" },
    sluiceByPhase,
    drain: [],
    latency: [],
    summary: [],
    commonRate: null,
  });

  it("names one build when both phases ran on it", () => {
    expect(sluiceBuilds(run())).toBe("Sluice 0.1.0 (commit bbbbbbb)");
    expect(sluiceBuilds(run({ drain: "0.1.0 (commit bbbbbbb)", latency: "0.1.0 (commit bbbbbbb)" }))).toBe("Sluice 0.1.0 (commit bbbbbbb)");
  });

  it("names each phase's build when a phase kept its figures from an earlier build", () => {
    expect(sluiceBuilds(run({ drain: "0.1.0 (commit aaaaaaa)", latency: "0.1.0 (commit bbbbbbb)" }))).toBe(
      "Sluice 0.1.0 (commit aaaaaaa) for the drain, 0.1.0 (commit bbbbbbb) for latency",
    );
  });
});

describe("workload data", () => {
  it("spreads event time evenly over 31.5 s, whatever the topic's size", () => {
    for (const n of [1_000, 15_000_000]) {
      expect(eventTime(0, n)).toBe(BASE_MS);
      expect(eventTime(n - 1, n)).toBe(BASE_MS + 31_500);
    }
  });

  it("includes in the reference only windows the data closes", () => {
    for (const name of ["W1", "W2", "W3"] as const) {
      const ends = [...SPECS[name].reference(20_000).keys()].map((row) => Number(row.split("|")[1]));
      expect(Math.max(...ends), name).toBe(BASE_MS + CLOSED_BY_MS);
    }
  });

  it("gives W2 every bid in the five 10 s windows sliding every 2 s that cover it", () => {
    // Windows ending by 30 s that are fully covered by the data start at 0..20 s: each holds the
    // bids of 10 s, a third of 31.5 s, so their counts sum to the bids those windows cover.
    const n = 31_501;
    const reference = SPECS.W2.reference(n);
    let total = 0;
    for (const [row, times] of reference) {
      const [start, , , count] = row.split("|").map(Number);
      if (start! >= BASE_MS) total += count! * times;
    }
    // Event time i ms after BASE_MS for record i: windows starting at 0, 2, ..., 20 s each hold 10,000 bids.
    expect(total).toBe(11 * 10_000);
  });

  it("makes W4's reference one row per view", () => {
    const views = [...SPECS.W4.reference(10_000).values()].reduce((a, b) => a + b, 0);
    const w1Views = [...SPECS.W1.reference(10_000)].reduce((n, [row, times]) => n + Number(row.split("|")[3]) * times, 0);
    // W1 counts the same views, minus those in windows still open (event time past 30 s).
    expect(views).toBeGreaterThan(w1Views);
    expect(views).toBeLessThan(10_000);
  });
});

describe("feedRounds", () => {
  it("carries on round-robin from the last batch sent, so a slow feed reaches every partition", () => {
    // Two batches a tick over four partitions: ticks alternate between partitions 0-1 and 2-3.
    expect([feedRounds(0, 2, 4), feedRounds(2, 4, 4), feedRounds(4, 6, 4)]).toEqual([[[0, 1]], [[2, 3]], [[0, 1]]]);
  });

  it("puts at most one batch per partition in a Produce request", () => {
    expect(feedRounds(3, 12, 4)).toEqual([
      [3, 0, 1, 2],
      [3, 0, 1, 2],
      [3],
    ]);
    expect(feedRounds(5, 5, 4)).toEqual([]);
  });
});
