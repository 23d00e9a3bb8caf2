import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { tempDirs } from "../testing/temp-dirs.js";
import { atSeconds, suiteWindowedCounts } from "../testing/watermark-suite.js";
import type { StreamingQueryProgress } from "./progress.js";

// Under the default trigger, a batch that moves the watermark of a query that emits or evicts by
// it is followed at once by its no-data batch (runtime/following-no-data-batch.ts):
// what the new watermark made final reaches the sink one sink write after the data that made it
// final, and data that arrives meanwhile waits for the batch after. Spark runs the same no-data
// batch whenever nothing new arrived during the first batch; always running it makes the pair
// the same on every run, so a restart runs it too.

const tempFolder = tempDirs();
const at = atSeconds;
type Counts = ReturnType<typeof suiteWindowedCounts>["counts"];

/** The query's writer: each batch's rows go to `written`, then `after` runs with the batch id. */
function collecting(counts: Counts, checkpoint: string, written: [number, unknown[]][], after?: (batchId: number) => void) {
  return counts.writeStream
    .outputMode("append")
    .option("checkpointLocation", checkpoint)
    .foreachBatch(async (df, batchId) => {
      written.push([batchId, await df.collect()]);
      after?.(batchId);
    });
}

/** The batch timestamp offsets/N records (what current_timestamp() reads in batch N). */
const batchTimestampOf = (checkpoint: string, batchId: number): number =>
  (JSON.parse(readFileSync(path.join(checkpoint, "offsets", String(batchId)), "utf8").split("\n")[1]!) as { batchTimestampMs: number }).batchTimestampMs;

const summary = (p: StreamingQueryProgress) => ({
  batchId: p.batchId,
  rows: p.numInputRows,
  watermark: p.eventTime.watermark,
  dropped: p.stateOperators[0]!.numRowsDroppedByWatermark,
});

/**
 * What both tests of the pair expect: batch 0 (rows at 10, 11, 12 and 26 s) moves the watermark to
 * 16 s, its no-data batch 1 emits [10 s, 15 s), and batch 2 reads the row at 14 s that waited,
 * judged late by batch 1's watermark.
 */
const PAIR_THEN_WAITING_ROW = {
  written: [
    [0, []],
    [1, [{ start: 10, count: 3 }]],
    [2, []],
  ],
  progressAfterBatch0: [
    { batchId: 1, rows: 0, watermark: new Date(16_000).toISOString(), dropped: 0 },
    { batchId: 2, rows: 1, watermark: new Date(16_000).toISOString(), dropped: 1 },
  ],
};

describe.each(WORKER_COUNTS)("the no-data batch that follows a batch at once, with %i workers", (workers) => {
  it("runs before data that arrived meanwhile, with the first batch's timestamp, and writes before either batch commits", () =>
    withSession(workers, async (session) => {
      const { input, counts } = suiteWindowedCounts(session);
      const checkpoint = tempFolder().path("ckpt");
      const logged = (log: string, batchId: number) => existsSync(path.join(checkpoint, log, String(batchId)));
      const written: [number, unknown[]][] = [];
      const durable: string[] = [];
      input.addData(...at(10, 11, 12, 26));
      const q = collecting(counts, checkpoint, written, (batchId) => {
        durable.push(`batch ${batchId}: commits/0 ${logged("commits", 0)}, offsets/1 ${logged("offsets", 1)}`);
        // Arrives while batch 0 runs: in window [10 s, 15 s), on time by batch 0's watermark (0 s), late by the next (16 s).
        if (batchId === 0) input.addData(...at(14));
      }).start();
      await q.processAllAvailable();
      await q.stop();
      expect(written).toEqual(PAIR_THEN_WAITING_ROW.written);
      // The window the watermark of 16 s closed was written before batch 0 committed and before batch 1 was logged.
      expect(durable).toEqual(["batch 0: commits/0 false, offsets/1 false", "batch 1: commits/0 false, offsets/1 false", "batch 2: commits/0 true, offsets/1 true"]);
      expect(q.recentProgress.map(summary)).toEqual([{ batchId: 0, rows: 4, watermark: new Date(0).toISOString(), dropped: 0 }, ...PAIR_THEN_WAITING_ROW.progressAfterBatch0]);
      expect(batchTimestampOf(checkpoint, 1)).toBe(batchTimestampOf(checkpoint, 0));
    }));

  it("runs first after a restart that follows the first batch's commit, whatever data waits", () =>
    withSession(workers, async (session) => {
      const { input, counts } = suiteWindowedCounts(session);
      const checkpoint = tempFolder().path("ckpt");
      const written: [number, unknown[]][] = [];
      // A Trigger.Once run ends after batch 0, which moved the watermark to 16 s.
      input.addData(...at(10, 11, 12, 26));
      const once = collecting(counts, checkpoint, written).trigger({ once: true }).start();
      await once.awaitTermination();
      input.addData(...at(14));
      const q = collecting(counts, checkpoint, written).start();
      await q.processAllAvailable();
      await q.stop();
      expect(written).toEqual(PAIR_THEN_WAITING_ROW.written);
      expect(q.recentProgress.map(summary)).toEqual(PAIR_THEN_WAITING_ROW.progressAfterBatch0);
      // The batch the first run would have followed batch 0 with, timestamp included.
      expect(batchTimestampOf(checkpoint, 1)).toBe(batchTimestampOf(checkpoint, 0));
    }));

  it("is not run at once under a processing-time trigger: new data joins the batch after, as in Spark", () =>
    withSession(workers, async (session) => {
      const { input, counts } = suiteWindowedCounts(session);
      const written: [number, unknown[]][] = [];
      input.addData(...at(10, 11, 12, 26));
      const q = collecting(counts, tempFolder().path("ckpt"), written, (batchId) => batchId === 0 && input.addData(...at(14)))
        .trigger({ processingTime: "200 milliseconds" })
        .start();
      await q.processAllAvailable();
      await q.stop();
      // Batch 1 reads the row at 14 s, judged by batch 0's watermark (0 s): on time, counted in [10 s, 15 s).
      expect(written).toEqual([
        [0, []],
        [1, [{ start: 10, count: 4 }]],
      ]);
    }));
});
