import { describe, expect, it } from "vitest";
import { parseProgressLine, stepBatches, type BenchProgress } from "./batch-progress.js";
import { curveMarkdown, stepP99, type CurveRun } from "./curve-report.js";
import type { StepResult } from "./latency.js";

const batch = (endMs: number, rows: number, durationMs: number, sized?: { maxRowsPerBatch: number; mode: string }): BenchProgress => ({ endMs, batchId: endMs, rows, durationMs, ...sized });

describe("the Sluice job's progress lines, per rate step", () => {
  it("reads a BENCH_PROGRESS line and nothing else", () => {
    expect(parseProgressLine('BENCH_PROGRESS {"endMs":5,"batchId":1,"rows":10,"durationMs":3}')).toEqual({ endMs: 5, batchId: 1, rows: 10, durationMs: 3 });
    expect(parseProgressLine("sluice job failed: boom")).toBeNull();
    expect(parseProgressLine("BENCH_PROGRESS {not json")).toBeNull();
    expect(parseProgressLine('BENCH_PROGRESS {"endMs":"5"}')).toBeNull();
  });

  it("summarizes the batches with rows that ended within the step: medians of rows, duration and the chosen cap, modes by frequency", () => {
    const progress = [
      batch(900, 500, 40),
      batch(1_000, 1_000, 100, { maxRowsPerBatch: 4_000, mode: "probing" }),
      batch(1_500, 3_000, 120, { maxRowsPerBatch: 6_000, mode: "withinTarget" }),
      batch(1_600, 0, 5, { maxRowsPerBatch: 9_000, mode: "withinTarget" }),
      batch(2_000, 5_000, 160, { maxRowsPerBatch: 8_000, mode: "withinTarget" }),
      batch(2_100, 700, 50),
    ];
    expect(stepBatches(progress, 1_000, 2_000)).toEqual({ batches: 3, medianRows: 3_000, medianDurationMs: 120, medianMaxRows: 6_000, modes: ["withinTarget", "probing"] });
    expect(stepBatches([batch(1_000, 10, 4), batch(1_100, 30, 8)], 0, 5_000)).toEqual({ batches: 2, medianRows: 20, medianDurationMs: 6 });
    expect(stepBatches(progress, 3_000, 4_000)).toBeNull();
  });
});

describe("the latency curve's report", () => {
  const step = (rate: number, p99Ms: number, rows?: number): StepResult => ({
    rate,
    sentRate: rate,
    samples: 10,
    p50Ms: p99Ms / 2,
    p99Ms,
    growthMs: 0,
    sustained: true,
    ...(rows === undefined ? {} : { batches: { batches: 4, medianRows: rows, medianDurationMs: 90 } }),
  });
  const run: CurveRun = {
    workload: "W1",
    title: "W1 title",
    systems: ["sluice:target-200ms"],
    rates: [10_000, 50_000, 10_000],
    stepSeconds: 30,
    reps: 2,
    results: [
      { system: "sluice:target-200ms", rep: 1, status: "ok", sustainableRate: 50_000, steps: [step(10_000, 300, 2_000), step(50_000, 500, 9_000), step(10_000, 310, 2_100)] },
      { system: "sluice:target-200ms", rep: 2, status: "ok", sustainableRate: 50_000, steps: [step(10_000, 340, 2_000), step(50_000, 700, 11_000), step(10_000, 330, 1_900)] },
    ],
  };

  it("charts each step's p99 as the median over repetitions", () => {
    expect([0, 1, 2].map((i) => stepP99(run, "sluice:target-200ms", i))).toEqual([320, 600, 320]);
  });

  it("tabulates every step with its range over repetitions", () => {
    const md = curveMarkdown([run], { machine: "2 cores", versions: { Sluice: "0.1.0" } });
    expect(md).toContain("| 2 | 50,000 | 50,000 | 300 (250–350) | 600 (500–700) | 4 | 10,000 (9,000–11,000) | 90 | — | — | 2/2 |");
    expect(md).toContain("Sustained up to 50,000 records/s.");
  });
});
