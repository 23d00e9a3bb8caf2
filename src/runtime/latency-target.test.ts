import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, window } from "../api/functions.js";
import { AnalysisError, OptionError } from "../errors/errors.js";
import { withSession } from "../testing/fixtures.js";
import { tempDirs } from "../testing/temp-dirs.js";

// trigger({ latencyTarget }) runs batches back to back like the default trigger, each capped at the
// rows runtime/batch-sizer.ts chose from the batches before it; every batch's progress says how.

const Value = z.object({ value: z.int32() });
const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ value: from + i }));
const tempFolder = tempDirs();

describe("trigger({ latencyTarget })", () => {
  it("caps the first batch at the 10,000-row probe (whole memory-stream blocks), reads every row once, and reports its sizing", () =>
    withSession(0, async (session) => {
      const input = session.memoryStream(Value);
      for (let b = 0; b < 3; b++) input.addData(...rows(b * 6_000, 6_000));
      const q = input.toDF().writeStream.format("memory").queryName("sized").trigger({ latencyTarget: "1 second" }).start();
      await q.processAllAvailable();
      const batches = q.recentProgress.filter((p) => p.numInputRows > 0);
      // A second block would pass 10,000 rows: the first batch holds one; later caps come from measured durations.
      expect(batches[0]!.numInputRows).toBe(6_000);
      expect(batches[0]!.batchSizing).toEqual({
        latencyTargetMs: 1_000,
        batchBudgetMs: 400,
        maxRowsPerBatch: 10_000,
        minTasks: 1,
        mode: "probing",
        fixedCostMs: 0,
        perMillionRowsMs: 0,
      });
      expect(batches.reduce((n, p) => n + p.numInputRows, 0)).toBe(18_000);
      for (const p of batches.slice(1)) expect(p.batchSizing!.maxRowsPerBatch).toBeGreaterThan(0);
      const out = await session.table("sized").collect();
      expect(out.map((r) => r.value as number).sort((a, b) => a - b)).toEqual(rows(0, 18_000).map((r) => r.value));
      await q.stop();
    }));

  it("gives a query whose output waits for the watermark a third of the target per batch", () =>
    withSession(0, async (session) => {
      const Event = z.object({ at: z.date(), value: z.int32() });
      const input = session.memoryStream(Event);
      input.addData({ at: new Date(1_000), value: 1 });
      const q = input
        .toDF()
        .withWatermark("at", "1 second")
        .groupBy(window(col("at"), "10 seconds"))
        .agg(count().alias("n"))
        .writeStream.format("memory")
        .queryName("sized_windows")
        .outputMode("append")
        .trigger({ latencyTarget: "300 ms" })
        .start();
      await q.processAllAvailable();
      expect(q.recentProgress[0]!.batchSizing).toMatchObject({ latencyTargetMs: 300, batchBudgetMs: 80 });
      await q.stop();
    }));

  it("is refused with sources whose batches cannot be sized by rows", () =>
    withSession(0, async (session) => {
      const start = (df: { writeStream: { format(f: "memory"): { queryName(n: string): { trigger(t: { latencyTarget: string }): { start(): unknown } } } } }) =>
        () => df.writeStream.format("memory").queryName("refused").trigger({ latencyTarget: "200 ms" }).start();
      expect(start(session.readStream.format("rate").load())).toThrow(
        new AnalysisError(
          "a latencyTarget trigger sizes each batch by rows, and the rate source (its batches hold the rows its clock generated) cannot limit a batch's rows: " +
            "read Kafka or a memory stream with it, or set the rate with rowsPerSecond",
        ),
      );
      const dir = tempFolder();
      expect(start(session.readStream.schema(Value).json(dir.dir))).toThrow(
        new AnalysisError(
          "a latencyTarget trigger sizes each batch by rows, and a file source cannot limit a batch's rows: " +
            "read Kafka or a memory stream with it, or use a processingTime trigger with maxFilesPerTrigger",
        ),
      );
    }));

  it("validates the target", () =>
    withSession(0, async (session) => {
      const writer = () => session.memoryStream(Value).toDF().writeStream.format("memory").queryName("bad_target");
      expect(() => writer().trigger({ latencyTarget: "soon" }).start()).toThrow(OptionError);
      expect(() => writer().trigger({ latencyTarget: "soon" }).start()).toThrow('writeStream.trigger: option "latencyTarget": cannot parse "soon" as a duration');
      expect(() => writer().trigger({ latencyTarget: 0 }).start()).toThrow('option "latencyTarget": must be at least 1 millisecond, e.g. "200 ms" (got 0)');
      const both = { latencyTarget: "200 ms", processingTime: "1 second" } as unknown as { latencyTarget: string };
      expect(() => writer().trigger(both).start()).toThrow('trigger must be { processingTime: "1 second" }, { availableNow: true }, { once: true }, { latencyTarget: "200 ms" } or { realTime: "5 minutes" } (realTime: true for the default checkpoint interval)');
    }));
});
