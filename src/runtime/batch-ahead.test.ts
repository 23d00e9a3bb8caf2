import { existsSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, window } from "../api/functions.js";
import { withSession } from "../testing/fixtures.js";
import { tempDirs } from "../testing/temp-dirs.js";

// Batches that overlap (runtime/batch-ahead.ts): under the default and availableNow triggers,
// batch N+1 is planned and its tasks start as soon as batch N's tasks are done, while batch N's
// driver half, sink write and commit run. Its offsets are logged only after commits/N, so what is
// durable stays in Spark's order.

const Event = z.object({ at: z.date(), key: z.string() });
const tempFolder = tempDirs();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("pipelined micro-batches", () => {
  it("starts batch N+1 while batch N's sink writes, and logs offsets/N+1 only after commits/N", () =>
    withSession(1, async (session) => {
      const input = tempFolder();
      const checkpoint = tempFolder().path("ckpt");
      for (let f = 0; f < 3; f++) input.write(`part-${f}.jsonl`, [{ at: new Date(f * 10_000).toISOString(), key: `k${f}` }]);
      const durableDuringSink: string[] = [];
      const q = session.readStream
        .schema(Event)
        .option("maxFilesPerTrigger", 1)
        .json(input.dir)
        .writeStream.foreachBatch(async (_df, batchId) => {
          // The next batch is already planned in memory; on disk, batch N is all there is.
          durableDuringSink.push(
            `batch ${batchId}: offsets/${batchId} ${existsSync(path.join(checkpoint, "offsets", String(batchId)))}, ` +
              `offsets/${batchId + 1} ${existsSync(path.join(checkpoint, "offsets", String(batchId + 1)))}`,
          );
          await sleep(300);
        })
        .option("checkpointLocation", checkpoint)
        .trigger({ availableNow: true })
        .start();
      expect(await q.awaitTermination(20_000)).toBe(true);
      expect(durableDuringSink).toEqual(["batch 0: offsets/0 true, offsets/1 false", "batch 1: offsets/1 true, offsets/2 false", "batch 2: offsets/2 true, offsets/3 false"]);
      const [b0, b1, b2] = q.recentProgress;
      expect(q.recentProgress.map((p) => p.numInputRows)).toEqual([1, 1, 1]);
      // Each next batch's trigger started (its planning) before the batch before it ended (after its 300 ms sink write).
      const endOf = (p: typeof b0) => Date.parse(p!.timestamp) + p!.batchDuration;
      expect(Date.parse(b1!.timestamp)).toBeLessThan(endOf(b0) - 200);
      expect(Date.parse(b2!.timestamp)).toBeLessThan(endOf(b1) - 200);
    }));

  it("gives the batch started ahead the watermark the batch before it committed", () =>
    withSession(1, async (session) => {
      const input = tempFolder();
      // File f holds events at f × 10 s: each batch moves the watermark (delay 0) to its own event time.
      for (let f = 0; f < 4; f++) input.write(`part-${f}.jsonl`, [{ at: new Date(f * 10_000).toISOString(), key: "a" }]);
      const q = session.readStream
        .schema(Event)
        .option("maxFilesPerTrigger", 1)
        .json(input.dir)
        .withWatermark("at", "0 seconds")
        .groupBy(window(col("at"), "10 seconds"))
        .agg(count().alias("n"))
        .writeStream.format("memory")
        .queryName("pipelined_windows")
        .outputMode("append")
        .trigger({ availableNow: true })
        .start();
      expect(await q.awaitTermination(20_000)).toBe(true);
      expect(q.recentProgress.map((p) => [p.numInputRows, p.eventTime.watermark])).toEqual([
        [1, "1970-01-01T00:00:00.000Z"],
        [1, "1970-01-01T00:00:00.000Z"],
        [1, "1970-01-01T00:00:10.000Z"],
        [1, "1970-01-01T00:00:20.000Z"],
        // The last batch moved the watermark to 30 s: a batch without data emits [20 s, 30 s).
        [0, "1970-01-01T00:00:30.000Z"],
      ]);
      const rows = (await session.table("pipelined_windows").collect()) as unknown as { window: { start: Date }; n: number }[];
      expect(rows.map((r) => [r.window.start.getTime(), r.n])).toEqual([
        [0, 1],
        [10_000, 1],
        [20_000, 1],
      ]);
    }));
});
