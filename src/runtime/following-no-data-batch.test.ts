import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, unix_seconds, window } from "../api/functions.js";
import type { Session } from "../api/session.js";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { tempDirs } from "../testing/temp-dirs.js";
import type { StreamingQueryProgress } from "./progress.js";

// Under the default trigger, a batch that moves the watermark of a query that emits or evicts by
// it is followed at once by its no-data batch (MicroBatchExecution.followingNoDataWatermark):
// what the new watermark made final reaches the sink one sink write after the data that made it
// final, and data that arrives meanwhile waits for the batch after. Spark runs the same no-data
// batch whenever nothing new arrived during the first batch; always running it makes the pair
// the same on every run, so a restart runs it too.

const Value = z.object({ eventTime: z.date() });
const tempFolder = tempDirs();
const at = (...seconds: number[]) => seconds.map((s) => ({ eventTime: new Date(s * 1000) }));

/** Spark's EventTimeWatermarkSuite windowed count: 5 s windows, a watermark 10 s behind. */
function windowedCounts(session: Session) {
  const input = session.memoryStream(Value);
  const counts = input
    .toDF()
    .withWatermark("eventTime", "10 seconds")
    .groupBy(window(col("eventTime"), "5 seconds"))
    .agg(count().alias("count"))
    .select(unix_seconds(col("window.start")).alias("start"), col("count"));
  return { input, counts };
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

describe.each(WORKER_COUNTS)("the no-data batch that follows a batch at once, with %i workers", (workers) => {
  it("runs before data that arrived meanwhile, with the first batch's timestamp, and writes before either batch commits", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      const checkpoint = tempFolder().path("ckpt");
      const logged = (log: string, batchId: number) => existsSync(path.join(checkpoint, log, String(batchId)));
      const written: { batchId: number; rows: unknown[]; durable: string }[] = [];
      input.addData(...at(10, 11, 12, 26));
      const q = counts.writeStream
        .outputMode("append")
        .option("checkpointLocation", checkpoint)
        .foreachBatch(async (df, batchId) => {
          written.push({ batchId, rows: await df.collect(), durable: `commits/0 ${logged("commits", 0)}, offsets/1 ${logged("offsets", 1)}` });
          // Arrives while batch 0 runs: in window [10 s, 15 s), on time by batch 0's watermark (0 s), late by the next (16 s).
          if (batchId === 0) input.addData(...at(14));
        })
        .start();
      await q.processAllAvailable();
      await q.stop();
      expect(written).toEqual([
        { batchId: 0, rows: [], durable: "commits/0 false, offsets/1 false" },
        // The window the watermark of 16 s closed, written before batch 0 committed and before batch 1 was logged.
        { batchId: 1, rows: [{ start: 10, count: 3 }], durable: "commits/0 false, offsets/1 false" },
        { batchId: 2, rows: [], durable: "commits/0 true, offsets/1 true" },
      ]);
      expect(q.recentProgress.map(summary)).toEqual([
        { batchId: 0, rows: 4, watermark: new Date(0).toISOString(), dropped: 0 },
        { batchId: 1, rows: 0, watermark: new Date(16_000).toISOString(), dropped: 0 },
        // The row at 14 s is judged by batch 1's watermark: late.
        { batchId: 2, rows: 1, watermark: new Date(16_000).toISOString(), dropped: 1 },
      ]);
      expect(batchTimestampOf(checkpoint, 1)).toBe(batchTimestampOf(checkpoint, 0));
    }));

  it("runs first after a restart that follows the first batch's commit, whatever data waits", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      const checkpoint = tempFolder().path("ckpt");
      const written: [number, unknown[]][] = [];
      const start = (trigger: { once: true } | undefined) => {
        const writer = counts.writeStream
          .outputMode("append")
          .option("checkpointLocation", checkpoint)
          .foreachBatch(async (df, batchId) => void written.push([batchId, await df.collect()]));
        return (trigger ? writer.trigger(trigger) : writer).start();
      };
      // A Trigger.Once run ends after batch 0, which moved the watermark to 16 s.
      input.addData(...at(10, 11, 12, 26));
      const once = start({ once: true });
      await once.awaitTermination();
      input.addData(...at(14));
      const q = start(undefined);
      await q.processAllAvailable();
      await q.stop();
      expect(written).toEqual([
        [0, []],
        [1, [{ start: 10, count: 3 }]],
        [2, []],
      ]);
      expect(q.recentProgress.map(summary)).toEqual([
        { batchId: 1, rows: 0, watermark: new Date(16_000).toISOString(), dropped: 0 },
        { batchId: 2, rows: 1, watermark: new Date(16_000).toISOString(), dropped: 1 },
      ]);
      // The batch the first run would have followed batch 0 with, timestamp included.
      expect(batchTimestampOf(checkpoint, 1)).toBe(batchTimestampOf(checkpoint, 0));
    }));

  it("is not run at once under a processing-time trigger: new data joins the batch after, as in Spark", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      const written: [number, unknown[]][] = [];
      input.addData(...at(10, 11, 12, 26));
      const q = counts.writeStream
        .outputMode("append")
        .option("checkpointLocation", tempFolder().path("ckpt"))
        .trigger({ processingTime: "200 milliseconds" })
        .foreachBatch(async (df, batchId) => {
          written.push([batchId, await df.collect()]);
          if (batchId === 0) input.addData(...at(14));
        })
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
