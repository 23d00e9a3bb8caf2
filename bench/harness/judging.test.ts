/**
 * How the benchmark judges a run: the answer check, a latency step's verdict and the summary's
 * medians and common rate. A wrong verdict here would publish a wrong figure, so these rules are
 * specified exactly.
 */
import { describe, expect, it } from "vitest";
import { checkAnswer, type DrainResult } from "./drain.js";
import { feedRounds } from "./generate.js";
import { minStepSeconds, stepResult, type LatencyResult, type StepResult } from "./latency.js";
import { drainInputs, label, resummarized, sluiceBuilds, withRange, type WorkloadRun } from "./report.js";
import { bestPeers, range, summarize } from "./summary.js";
import { launcherArgv } from "./systems.js";
import { appliesTo, normalizeId, parseSystems, type VariantId } from "./variants.js";
import { BASE_MS, CLOSED_BY_MS, eventTime, SPECS, WORKLOADS } from "./workloads.js";

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

describe("minStepSeconds", () => {
  it("is the step's warm-up plus the time between results: the shortest step sure to hold one", () => {
    // W1 and W3: a 10 s tumbling window counts from 11 s into the step (window + 1 s delay); W2 slides every 2 s; W4's records count from 2 s on.
    expect(Object.fromEntries(WORKLOADS.map((w) => [w, minStepSeconds(SPECS[w])]))).toEqual({ W1: 21, W2: 13, W3: 21, W4: 2 });
  });

  it("is met by every workload's default step", () => {
    for (const w of WORKLOADS) expect(SPECS[w].latencyStepSeconds).toBeGreaterThanOrEqual(minStepSeconds(SPECS[w]));
  });
});

/** One drain run of 1,000 records at the given rates (the broker's CPU seconds equal to the repetition, to tell runs apart). */
function drainResult(system: VariantId, o: { rep?: number; recordsPerSecond: number; recordsPerCpuSecond?: number; status?: string }): DrainResult {
  const { rep = 1, recordsPerSecond, recordsPerCpuSecond = 1_000, status = "ok" } = o;
  return {
    system,
    rep,
    status,
    inputRecords: 1_000,
    seconds: 1_000 / recordsPerSecond,
    recordsPerSecond,
    cpuSeconds: 1_000 / recordsPerCpuSecond,
    recordsPerCpuSecond,
    peakRssMiB: 100,
    outputRows: 10,
    brokerCpuSeconds: rep,
  };
}

describe("summarize", () => {
  const drain = (system: VariantId, rep: number, recordsPerSecond: number, status = "ok", recordsPerCpuSecond = 1_000) =>
    drainResult(system, { rep, recordsPerSecond, status, recordsPerCpuSecond });
  const step = (rate: number, p99Ms: number): StepResult => ({ rate, sentRate: rate, samples: 100, p50Ms: p99Ms / 2, p99Ms, growthMs: 0, sustained: p99Ms <= 5_000 });
  const ladder = (system: VariantId, rep: number, p99s: readonly number[]): LatencyResult => {
    const steps = p99s.map((p99, i) => step([10_000, 25_000, 50_000][i]!, p99));
    const firstMiss = steps.findIndex((s) => !s.sustained);
    const sustainableRate = firstMiss === 0 ? 0 : steps[(firstMiss < 0 ? steps.length : firstMiss) - 1]!.rate;
    return { system, rep, status: "ok", steps, sustainableRate };
  };

  it("takes medians over correct runs only and counts the failed ones", () => {
    const { summary } = summarize(["sluice:default"], [drain("sluice:default", 1, 100), drain("sluice:default", 2, 300, "wrong answer: 1 missing"), drain("sluice:default", 3, 200)], []);
    expect(summary[0]).toMatchObject({ drainRuns: "2/3", recordsPerSecond: 150, drainBrokerCpuSeconds: 2 });
  });

  it("gives every figure its range over the correct runs", () => {
    const runs = [drain("sluice:default", 1, 100), drain("sluice:default", 2, 400), drain("sluice:default", 3, 250), drain("sluice:default", 4, 900, "crashed")];
    const s = summarize(["sluice:default"], runs, []).summary[0]!;
    expect([s.recordsPerSecond, s.ranges.recordsPerSecond]).toEqual([250, { min: 100, max: 400 }]);
    expect(s.ranges.drainBrokerCpuSeconds).toEqual({ min: 1, max: 3 });
    expect(withRange(s, "recordsPerSecond")).toBe("250 (100–400)");
    expect(withRange(s, "p99Ms")).toBe("—");
  });

  it("reads results written before variants as each system's default variant", () => {
    const old = { ...drain("sluice:default", 1, 100), system: "naive" as VariantId };
    expect(summarize(["naive:eachMessage"], [old], []).summary[0]).toMatchObject({ drainRuns: "1/1", recordsPerSecond: 100 });
  });

  it("reports latency at the highest rate every system that sustains any sustained in every repetition", () => {
    const latency = [
      ladder("sluice:default", 1, [100, 120, 150]),
      ladder("sluice:default", 2, [100, 130, 160]),
      ladder("spark:default", 1, [900, 1_100, 9_000]),
      ladder("spark:default", 2, [950, 6_000, 9_000]),
      ladder("kstreams:default", 1, [29_000, 29_500, 30_000]),
    ];
    const { summary, commonRate } = summarize(["sluice:default", "spark:default", "kstreams:default"], [], latency);
    expect(commonRate).toBe(10_000);
    expect(summary.map((s) => [s.system, s.sustainableRate, s.p99Ms, s.sustainsCommonRate])).toEqual([
      ["sluice:default", 50_000, 100, true],
      ["spark:default", 17_500, 925, true],
      ["kstreams:default", 0, 29_000, false],
    ]);
    expect(summary[1]!.ranges.p99Ms).toEqual({ min: 900, max: 950 });
  });

  it("has no common rate when no system sustains any rate", () => {
    const { commonRate, summary } = summarize(["kstreams:default"], [], [ladder("kstreams:default", 1, [29_000])]);
    expect(commonRate).toBeNull();
    expect(summary[0]!.p99Ms).toBeNaN();
  });
});

describe("bestPeers", () => {
  const drain = (system: VariantId, recordsPerSecond: number, recordsPerCpuSecond: number) => drainResult(system, { recordsPerSecond, recordsPerCpuSecond });
  const lat = (system: VariantId, p99s: readonly number[]): LatencyResult => ({
    system,
    rep: 1,
    status: "ok",
    steps: p99s.map((p99Ms, i) => ({ rate: [10_000, 25_000][i]!, sentRate: [10_000, 25_000][i]!, samples: 100, p50Ms: p99Ms / 2, p99Ms, growthMs: 0, sustained: p99Ms <= 5_000 })),
    sustainableRate: p99s[1]! <= 5_000 ? 25_000 : p99s[0]! <= 5_000 ? 10_000 : 0,
  });

  it("takes each figure's best over every peer variant and names it; Sluice is never its own peer", () => {
    const systems: VariantId[] = ["sluice:default", "kstreams:default", "kstreams:throughput", "kstreams:latency", "spark:tuned"];
    const { summary } = summarize(
      systems,
      [drain("sluice:default", 900, 500), drain("kstreams:default", 300, 400), drain("kstreams:throughput", 450, 250), drain("kstreams:latency", 200, 150), drain("spark:tuned", 600, 200)],
      [lat("sluice:default", [60, 70]), lat("kstreams:default", [29_000, 29_000]), lat("kstreams:latency", [40, 55]), lat("spark:tuned", [900, 1_000])],
    );
    const best = bestPeers(summary);
    expect(best.map((b) => [b.figure, b.peer?.system, b.ratio])).toEqual([
      ["recordsPerSecond", "spark:tuned", 1.5],
      ["recordsPerCpuSecond", "kstreams:default", 1.25],
      // At the common rate (25,000/s, sustained by all that sustain any), the latency variant's p99 (55 ms) is the best.
      ["p99Ms", "kstreams:latency", 70 / 55],
    ]);
  });

  it("takes Sluice's best variant for each figure, as each trigger suits some figures", () => {
    const { summary } = summarize(
      ["sluice:default", "sluice:target-200ms", "kstreams:latency"],
      [drain("sluice:default", 900, 500), drain("sluice:target-200ms", 800, 450), drain("kstreams:latency", 200, 150)],
      [lat("sluice:default", [60, 90]), lat("sluice:target-200ms", [40, 50]), lat("kstreams:latency", [40, 55])],
    );
    expect(bestPeers(summary).map((b) => [b.figure, b.sluice?.system, b.peer?.system, b.ratio])).toEqual([
      ["recordsPerSecond", "sluice:default", "kstreams:latency", 4.5],
      ["recordsPerCpuSecond", "sluice:default", "kstreams:latency", 500 / 150],
      ["p99Ms", "sluice:target-200ms", "kstreams:latency", 50 / 55],
    ]);
  });

  it("has no best peer for a figure no peer has", () => {
    const { summary } = summarize(["sluice:default", "naive:eachBatch"], [drain("sluice:default", 900, 500), { ...drain("naive:eachBatch", 1, 1), status: "crashed" }], []);
    expect(bestPeers(summary).map((b) => b.peer)).toEqual([null, null, null]);
  });
});

describe("variants", () => {
  it("expands a system to all its variants and keeps the order given, without repeats", () => {
    expect(parseSystems("kstreams,sluice,kstreams:latency")).toEqual(["kstreams:default", "kstreams:throughput", "kstreams:latency", "sluice:default", "sluice:target-200ms", "sluice:realtime"]);
    expect(parseSystems("naive:eachBatch, spark:mopt-250000")).toEqual(["naive:eachBatch", "spark:mopt-250000"]);
    expect(parseSystems("sluice:mopt-50000,sluice:target-100ms")).toEqual(["sluice:mopt-50000", "sluice:target-100ms"]);
    expect(parseSystems("spark")).toEqual(["spark:default", "spark:tuned", "spark:mopt-500000", "spark:mopt-2000000", "spark:realtime"]);
    expect(parseSystems("all")).toHaveLength(13);
  });

  it("names what is unknown and what exists", () => {
    expect(() => parseSystems("flink")).toThrow('unknown system "flink": use sluice, spark, kstreams, naive, system:variant or all');
    expect(() => parseSystems("kstreams:fast")).toThrow('unknown variant "kstreams:fast": kstreams has default, throughput, latency');
    expect(() => parseSystems("spark:mopt-0")).toThrow("spark has default, tuned, mopt-500000, mopt-2000000, realtime, mopt-<n>");
    expect(() => parseSystems("sluice:target-fast")).toThrow('unknown variant "sluice:target-fast": sluice has default, target-200ms, realtime, mopt-<n>, target-<n>ms');
    expect(() => parseSystems("")).toThrow("no system given");
  });

  it("runs Spark's real-time mode on the stateless workload only", () => {
    expect((["W1", "W2", "W3", "W4"] as const).map((w) => appliesTo("spark:realtime", w))).toEqual([false, false, false, true]);
    expect(appliesTo("spark:mopt-123", "W3")).toBe(true);
  });

  it("reads a system name from results written before variants as its default", () => {
    expect([normalizeId("kstreams"), normalizeId("naive"), normalizeId("spark:tuned")]).toEqual(["kstreams:default", "naive:eachMessage", "spark:tuned"]);
    expect(label("kstreams:throughput")).toBe("Kafka Streams (throughput)");
  });

  it("passes the variant and phase to the launcher", () => {
    const argv = launcherArgv({ workload: "W1", bootstrap: "b:1", input: "i", output: "o", ads: "a", stateDir: "/s", runId: "r", variant: "latency", phase: "drain" });
    expect(argv).toEqual(["--workload", "W1", "--bootstrap", "b:1", "--input", "i", "--output", "o", "--ads", "a", "--state-dir", "/s", "--run-id", "r", "--variant", "latency", "--phase", "drain"]);
  });

  it("gives an empty range when no repetition has the figure", () => {
    expect(range([NaN])).toEqual({ min: NaN, max: NaN });
    expect(range([3, 1, 2])).toEqual({ min: 1, max: 3 });
  });
});

describe("drainInputs", () => {
  it("tells a workload's inputs apart by the results their drains gave, failed runs aside", () => {
    const run = (system: VariantId, rep: number, outputRows: number, status = "ok") => ({ ...drainResult(system, { rep, recordsPerSecond: 100, status }), outputRows });
    const drain = [run("sluice:default", 1, 150_000), run("spark:default", 1, 150_000), run("sluice:default", 2, 550_000), run("spark:tuned", 1, 550_000), run("kstreams:throughput", 1, 549_000, "stalled at 549000 of 550000 results")];
    expect(drainInputs(drain)).toEqual([
      { outputRows: 150_000, variants: ["sluice:default", "spark:default"] },
      { outputRows: 550_000, variants: ["sluice:default", "spark:tuned"] },
    ]);
    expect(drainInputs(drain.filter((d) => d.outputRows === 550_000))).toHaveLength(1);
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

  it("recomputes an old results file's summary with variants and ranges", () => {
    const old = { ...run(), drain: [{ system: "kstreams", rep: 1, status: "ok", inputRecords: 10, seconds: 1, recordsPerSecond: 10, cpuSeconds: 1, recordsPerCpuSecond: 10, peakRssMiB: 1, outputRows: 1 }] } as unknown as WorkloadRun;
    expect(resummarized(old).summary.map((s) => [s.system, s.recordsPerSecond, s.drainBrokerCpuSeconds])).toEqual([["kstreams:default", 10, NaN]]);
  });

  it("names each phase's build when a phase kept its figures from an earlier build", () => {
    expect(sluiceBuilds(run({ drain: "0.1.0 (commit aaaaaaa)", latency: "0.1.0 (commit bbbbbbb)" }))).toBe(
      "Sluice 0.1.0 (commit aaaaaaa) for the drain, 0.1.0 (commit bbbbbbb) for latency",
    );
  });
});

describe("workload data", () => {
  it("spreads event time evenly over 111.5 s, whatever the topic's size", () => {
    for (const n of [1_000, 15_000_000]) {
      expect(eventTime(0, n)).toBe(BASE_MS);
      expect(eventTime(n - 1, n)).toBe(BASE_MS + 111_500);
    }
  });

  it("closes at least ten 10 s windows of event time", () => {
    const starts = new Set([...SPECS.W1.reference(50_000).keys()].map((row) => Number(row.split("|")[0])));
    expect(starts.size).toBe(11);
    expect(Math.min(...starts)).toBe(BASE_MS);
  });

  it("includes in the reference only windows the data closes", () => {
    for (const name of ["W1", "W2", "W3"] as const) {
      const ends = [...SPECS[name].reference(20_000).keys()].map((row) => Number(row.split("|")[1]));
      expect(Math.max(...ends), name).toBe(BASE_MS + CLOSED_BY_MS);
    }
  });

  it("gives W2 every bid in the five 10 s windows sliding every 2 s that cover it", () => {
    // Windows ending by 110 s that are fully covered by the data start at 0..100 s: each holds the
    // bids of 10 s, so their counts sum to the bids those windows cover.
    const n = 111_501;
    const reference = SPECS.W2.reference(n);
    let total = 0;
    for (const [row, times] of reference) {
      const [start, , , count] = row.split("|").map(Number);
      if (start! >= BASE_MS) total += count! * times;
    }
    // Event time i ms after BASE_MS for record i: windows starting at 0, 2, ..., 100 s each hold 10,000 bids.
    expect(total).toBe(51 * 10_000);
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
