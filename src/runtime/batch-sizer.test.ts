import { describe, expect, it } from "vitest";
import { BatchSizer, type BatchSizerOptions } from "./batch-sizer.js";

/**
 * A query whose batches take exactly `fixedMs + perRowMs × rows`: the sizer runs against it for
 * `batches` batches, and `capped(i)` says whether batch i left rows waiting. Returns what each
 * batch was sized to.
 */
function drive(options: BatchSizerOptions, cost: { fixedMs: number; perRowMs: number }, batches: number, capped: (i: number) => boolean = () => false) {
  const sizer = new BatchSizer(options);
  const seen = [];
  for (let i = 0; i < batches; i++) {
    const { maxRowsPerBatch: rows, mode, minTasks } = sizer.next;
    seen.push({ rows, mode, minTasks });
    sizer.observe(rows, cost.fixedMs + cost.perRowMs * rows, capped(i));
  }
  return { seen, last: sizer.next };
}

// 20 ms per batch plus 1/1024 ms per row (about a million rows a second).
const COST = { fixedMs: 20, perRowMs: 1 / 1024 };

describe("BatchSizer (the latencyTarget trigger's batch sizes)", () => {
  it("probes with 10,000 rows, then fills the budget: target × 0.8 over the batches a result's latency spans", () => {
    // 250 ms, two spans: a 100 ms budget, (100 - 20) × 1024 = 81,920 rows.
    const { seen, last } = drive({ latencyTargetMs: 250, spans: 2, workers: 2 }, COST, 6);
    expect(seen).toEqual([
      { rows: 10_000, mode: "probing", minTasks: 1 },
      // One size seen: the cap doubles (the most one step may change it), as 29.8 ms is far under 100.
      { rows: 20_000, mode: "probing", minTasks: 1 },
      // Two sizes: fixed and per-row cost are known, each step lands on the budget unless the bound stops it.
      { rows: 40_000, mode: "withinTarget", minTasks: 2 },
      { rows: 80_000, mode: "withinTarget", minTasks: 2 },
      { rows: 81_920, mode: "withinTarget", minTasks: 2 },
      { rows: 81_920, mode: "withinTarget", minTasks: 2 },
    ]);
    expect(last).toEqual({
      latencyTargetMs: 250,
      batchBudgetMs: 100,
      maxRowsPerBatch: 81_920,
      minTasks: 2,
      mode: "withinTarget",
      fixedCostMs: 20,
      perMillionRowsMs: 976.56,
    });
  });

  it("gives a query whose output waits for the watermark a third of the target per batch", () => {
    // 375 ms over three spans: the same 100 ms budget.
    const { last } = drive({ latencyTargetMs: 375, spans: 3, workers: 2 }, COST, 6);
    expect(last.batchBudgetMs).toBe(100);
    expect(last.maxRowsPerBatch).toBe(81_920);
  });

  it("at most doubles or halves a cap per batch", () => {
    expect(drive({ latencyTargetMs: 10_000, spans: 2, workers: 2 }, COST, 5).seen.map((s) => s.rows)).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
    // A first batch that also paid 3 s for the workers' start halves the cap once, and the next batches recover it.
    const sizer = new BatchSizer({ latencyTargetMs: 250, spans: 2, workers: 2 });
    sizer.observe(10_000, 3_000 + 20 + 10_000 / 1024, false);
    expect(sizer.next.maxRowsPerBatch).toBe(5_000);
    for (let i = 0; i < 8; i++) sizer.observe(sizer.next.maxRowsPerBatch, 20 + sizer.next.maxRowsPerBatch / 1024, false);
    // Within 0.1% of the budget's 81,920 rows (the slow batch still weighs a little in the fit).
    expect(sizer.next.maxRowsPerBatch).toBeGreaterThan(81_840);
    expect(sizer.next.maxRowsPerBatch).toBeLessThanOrEqual(81_920);
  });

  it("catches up after three capped batches in a row (fixed cost a ninth of the work), and returns to the budget once a batch takes all", () => {
    // Batches 7 to 10 leave rows waiting; batch 11 takes everything.
    const { seen } = drive({ latencyTargetMs: 250, spans: 2, workers: 2 }, COST, 13, (i) => i >= 6 && i <= 9);
    expect(seen.slice(6).map((s) => [s.rows, s.mode])).toEqual([
      [81_920, "withinTarget"],
      [81_920, "withinTarget"],
      [81_920, "withinTarget"],
      // Three capped: grow (at most doubling) towards 9 × 20 ms of work at 1/1024 ms per row.
      [163_840, "catchingUp"],
      [184_320, "catchingUp"],
      // Caught up: back to the budget's size.
      [81_920, "withinTarget"],
      [81_920, "withinTarget"],
    ]);
  });

  it("catches up without a model too: while batches keep hitting the cap, it doubles", () => {
    // Every batch takes its cap in 100 ms, whatever its size (a busy machine's noise): no line with a
    // positive cost per row fits, so fixed and per-row cost cannot be told apart.
    const sizer = new BatchSizer({ latencyTargetMs: 250, spans: 2, workers: 2 });
    const seen = [];
    for (let i = 0; i < 6; i++) {
      seen.push([sizer.next.maxRowsPerBatch, sizer.next.mode]);
      sizer.observe(sizer.next.maxRowsPerBatch, 100, i < 5);
    }
    expect(seen).toEqual([
      [10_000, "probing"],
      [10_000, "probing"],
      [10_000, "probing"],
      [20_000, "catchingUp"],
      [40_000, "catchingUp"],
      [80_000, "catchingUp"],
    ]);
    // A batch that took everything waiting: back to the budget's size (10,000 rows filled it).
    expect(sizer.next).toMatchObject({ maxRowsPerBatch: 10_000, mode: "probing" });
  });

  it("sizes for throughput when full batches stay over twice the budget while the cap halves under them", () => {
    // Every batch takes 250 ms whatever its size (the machine is saturated): a 100 ms budget.
    const sizer = new BatchSizer({ latencyTargetMs: 250, spans: 2, workers: 2 });
    const seen = [];
    for (let i = 0; i < 6; i++) {
      seen.push([sizer.next.maxRowsPerBatch, sizer.next.mode]);
      sizer.observe(sizer.next.maxRowsPerBatch, 250, false);
    }
    expect(seen).toEqual([
      [10_000, "probing"],
      [5_000, "probing"],
      [2_500, "probing"],
      // Three slow full batches, the cap halved under each: the size is not the cost; grow instead.
      [5_000, "targetUnreachable"],
      [10_000, "targetUnreachable"],
      [20_000, "targetUnreachable"],
    ]);
    // A batch that did not fill its cap, still slow: the cap stays (no model says a larger size would help).
    sizer.observe(12_000, 250, false);
    expect(sizer.next).toMatchObject({ maxRowsPerBatch: 40_000, mode: "targetUnreachable" });
    sizer.observe(12_000, 250, false);
    expect(sizer.next).toMatchObject({ maxRowsPerBatch: 40_000, mode: "targetUnreachable" });
    // The load goes: a batch takes what is there within the budget, the fit puts the fixed cost
    // under the budget again, and the cap is the budget's.
    sizer.observe(3_000, 40, false);
    expect(sizer.next).toMatchObject({ maxRowsPerBatch: 1_250, mode: "withinTarget", fixedCostMs: 89.92 });
  });

  it("sizes for throughput, and says so, when fixed costs alone exceed the budget", () => {
    // A 40 ms target is a 16 ms budget, under the 20 ms every batch costs.
    const { last } = drive({ latencyTargetMs: 40, spans: 2, workers: 2 }, COST, 10);
    expect(last).toMatchObject({ maxRowsPerBatch: 184_320, mode: "targetUnreachable" });
  });

  it("keeps a batch in one task when splitting would give a task under 5 ms of work", () => {
    // 60 ms: a 24 ms budget, 4 ms of row work (4,096 rows): one task; on the driver alone (workers 0), always one.
    expect(drive({ latencyTargetMs: 60, spans: 2, workers: 2 }, COST, 6).last).toMatchObject({ maxRowsPerBatch: 4_096, minTasks: 1 });
    expect(drive({ latencyTargetMs: 250, spans: 2, workers: 0 }, COST, 6).last).toMatchObject({ maxRowsPerBatch: 81_920, minTasks: 1 });
  });

  it("leaves the cap alone after a batch that was not full (it says nothing about a larger size)", () => {
    const sizer = new BatchSizer({ latencyTargetMs: 250, spans: 2, workers: 2 });
    sizer.observe(300, 20.3, false);
    expect(sizer.next.maxRowsPerBatch).toBe(10_000);
  });

  it("follows a load that changes", () => {
    const sizer = new BatchSizer({ latencyTargetMs: 250, spans: 2, workers: 2 });
    const run = (perRowMs: number, batches: number) => {
      for (let i = 0; i < batches; i++) sizer.observe(sizer.next.maxRowsPerBatch, COST.fixedMs + perRowMs * sizer.next.maxRowsPerBatch, false);
    };
    run(COST.perRowMs, 8);
    // Rows become twice as costly (a wider record, a busier machine): the cap halves.
    run(2 * COST.perRowMs, 12);
    // (100 - 20) × 512 = 40,960, within 5% while the older batches fade from the fit.
    expect(sizer.next.maxRowsPerBatch).toBeGreaterThan(38_900);
    expect(sizer.next.maxRowsPerBatch).toBeLessThan(43_000);
  });

  it("reads batches without data as fixed cost", () => {
    const sizer = new BatchSizer({ latencyTargetMs: 250, spans: 2, workers: 2 });
    sizer.observe(0, 20, false);
    expect(sizer.next).toMatchObject({ maxRowsPerBatch: 10_000, mode: "probing" });
    // Two sizes seen (0 and 10,000 rows): the model is exact at once, and only the step bound holds the cap.
    sizer.observe(10_000, 20 + 10_000 / 1024, false);
    expect(sizer.next).toMatchObject({ maxRowsPerBatch: 20_000, mode: "withinTarget", fixedCostMs: 20, perMillionRowsMs: 976.56 });
    sizer.observe(20_000, 20 + 20_000 / 1024, false);
    sizer.observe(40_000, 20 + 40_000 / 1024, false);
    sizer.observe(80_000, 20 + 80_000 / 1024, false);
    expect(sizer.next).toMatchObject({ maxRowsPerBatch: 81_920, mode: "withinTarget", fixedCostMs: 20 });
  });
});
