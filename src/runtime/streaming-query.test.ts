import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, window } from "../api/functions.js";
import { CheckpointError, StreamingQueryException } from "../errors/errors.js";
import { at, withSession } from "../testing/fixtures.js";
import { tempDirs } from "../testing/temp-dirs.js";
import type { StreamingQueryListener } from "./listener.js";

const Click = z.object({ page: z.string(), time: z.date() });

const tempFolder = tempDirs();
function checkpointDir(): string {
  const d = tempFolder("sluice-ckpt-");
  return d.path("ckpt");
}

describe("StreamingQuery", () => {
  it("reports progress with Spark's fields", () =>
    withSession(0, async (session) => {
      const clicks = session.memoryStream(Click);
      const q = clicks
        .toDF()
        .withWatermark("time", "1 minute")
        .groupBy(window(col("time"), "1 minute"), "page")
        .agg(count().alias("n"))
        .writeStream.outputMode("update")
        .format("memory")
        .queryName("progress_q")
        .start();
      clicks.addData({ page: "/a", time: at("10:00", 10) }, { page: "/b", time: at("10:00", 30) });
      await q.processAllAvailable();
      await q.stop();
      const p = q.recentProgress[0]!;
      expect(p.id).toBe(q.id);
      expect(p.runId).toBe(q.runId);
      expect(p.name).toBe("progress_q");
      expect(p.batchId).toBe(0);
      expect(p.numInputRows).toBe(2);
      expect(p.eventTime).toEqual({
        avg: at("10:00", 20).toISOString(),
        max: at("10:00", 30).toISOString(),
        min: at("10:00", 10).toISOString(),
        watermark: "1970-01-01T00:00:00.000Z",
      });
      expect(Object.keys(p.durationMs).sort()).toEqual(["addBatch", "commitOffsets", "getBatch", "latestOffset", "triggerExecution", "walCommit"]);
      expect(p.stateOperators).toHaveLength(1);
      expect(p.stateOperators[0]).toMatchObject({ operatorName: "stateStoreSave", numRowsTotal: 2, numRowsUpdated: 2, numRowsDroppedByWatermark: 0 });
      expect(p.sources).toEqual([
        expect.objectContaining({ description: "MemoryStream[page,time]", startOffset: 0, endOffset: 1, latestOffset: 1, numInputRows: 2 }),
      ]);
      expect(p.sink).toEqual({ description: "MemorySink[progress_q]", numOutputRows: 2, metrics: {} });
      expect(q.lastProgress!.eventTime.watermark).toBe(at("09:59", 30).toISOString());
    }));

  it("tells listeners about start, progress, idleness and termination", () =>
    withSession(0, async (session) => {
      const events: string[] = [];
      const listener: StreamingQueryListener = {
        onQueryStarted: (e) => events.push(`started ${e.name}`),
        onQueryProgress: (e) => events.push(`progress ${e.progress.batchId}`),
        onQueryIdle: () => {
          if (events.at(-1) !== "idle") events.push("idle");
        },
        onQueryTerminated: (e) => events.push(`terminated ${e.exception === null ? "cleanly" : "with error"}`),
      };
      session.streams.addListener(listener);
      const clicks = session.memoryStream(Click);
      const q = clicks.toDF().writeStream.format("memory").queryName("listened").start();
      clicks.addData({ page: "/a", time: at("10:00") });
      await q.processAllAvailable();
      await new Promise((r) => setTimeout(r, 30));
      await q.stop();
      session.streams.removeListener(listener);
      expect(events).toEqual(["started listened", "progress 0", "idle", "terminated cleanly"]);
    }));

  it("an error in foreachBatch stops the query; exception, awaitTermination and listeners carry it", () =>
    withSession(0, async (session) => {
      let terminated: StreamingQueryException | null | undefined;
      session.streams.addListener({ onQueryTerminated: (e) => (terminated = e.exception) });
      const clicks = session.memoryStream(Click);
      const q = clicks
        .toDF()
        .writeStream.foreachBatch(() => {
          throw new Error("warehouse is down");
        })
        .queryName("failing")
        .option("checkpointLocation", checkpointDir())
        .start();
      clicks.addData({ page: "/a", time: at("10:00") });
      await expect(q.awaitTermination()).rejects.toThrow(StreamingQueryException);
      expect(q.exception!.message).toMatch(/^Query failing \[id = .*, runId = .*\] terminated with exception: warehouse is down$/);
      expect((q.exception!.cause as Error).message).toBe("warehouse is down");
      expect(terminated).toBe(q.exception);
      expect(q.isActive).toBe(false);
    }));

  it("keeps the query id across restarts from one checkpoint, with a new run id", () =>
    withSession(0, async (session) => {
      const ckpt = checkpointDir();
      const clicks = session.memoryStream(Click);
      const start = () => clicks.toDF().writeStream.format("memory").queryName("ids").option("checkpointLocation", ckpt).start();
      const first = start();
      clicks.addData({ page: "/a", time: at("10:00") });
      await first.processAllAvailable();
      await first.stop();
      const second = start();
      clicks.addData({ page: "/b", time: at("10:00") });
      await second.processAllAvailable();
      await second.stop();
      expect(second.id).toBe(first.id);
      expect(second.runId).not.toBe(first.runId);
      expect(second.recentProgress.map((p) => p.batchId)).toEqual([1]);
      expect(await session.table("ids").collect()).toEqual([
        { page: "/a", time: at("10:00") },
        { page: "/b", time: at("10:00") },
      ]);
    }));

  it("refuses a checkpoint written by another query", () =>
    withSession(0, async (session) => {
      const ckpt = checkpointDir();
      const clicks = session.memoryStream(Click);
      const first = clicks.toDF().writeStream.format("memory").queryName("owner").option("checkpointLocation", ckpt).start();
      clicks.addData({ page: "/a", time: at("10:00") });
      await first.processAllAvailable();
      await first.stop();
      const other = () =>
        session
          .memoryStream(Click)
          .toDF()
          .groupBy("page")
          .count()
          .writeStream.outputMode("complete")
          .format("memory")
          .queryName("intruder")
          .option("checkpointLocation", ckpt)
          .start();
      expect(other).toThrow(CheckpointError);
      expect(other).toThrow(new RegExp(`checkpoint file ${ckpt}/metadata belongs to another query`));
    }));

  it("refuses a corrupt offsets file, naming it", () =>
    withSession(0, async (session) => {
      const ckpt = checkpointDir();
      const clicks = session.memoryStream(Click);
      const start = () => clicks.toDF().writeStream.format("memory").queryName("corrupt").option("checkpointLocation", ckpt).start();
      const first = start();
      clicks.addData({ page: "/a", time: at("10:00") });
      await first.processAllAvailable();
      await first.stop();
      writeFileSync(`${ckpt}/offsets/0`, "v1\n{not json");
      const second = start();
      await expect(second.awaitTermination()).rejects.toThrow(`checkpoint file ${ckpt}/offsets/0 is corrupt`);
    }));

  it("fails with a disk error naming the checkpoint path", () =>
    withSession(0, async (session) => {
      const d = tempFolder();
      const blocker = d.write("not-a-dir", ["x"]);
      const clicks = session.memoryStream(Click);
      const start = () => clicks.toDF().writeStream.format("memory").queryName("disk").option("checkpointLocation", `${blocker}/ckpt`).start();
      expect(start).toThrow(CheckpointError);
      expect(start).toThrow(/cannot (read|write|create directory) checkpoint file .*not-a-dir\/ckpt.*ENOTDIR/);
    }));

  it("stop() returns within stopTimeout when a foreachBatch function never returns; the batch is abandoned and runs again after a restart", async () => {
    const { Session } = await import("../api/session.js");
    const session = new Session({ workers: 0, stopTimeout: "300 milliseconds" });
    try {
      const ckpt = checkpointDir();
      const clicks = session.memoryStream(Click);
      const calls: number[] = [];
      let release: () => void = () => undefined;
      const hang = new Promise<void>((resolve) => (release = resolve));
      const start = (fn: (id: number) => Promise<void> | void) =>
        clicks
          .toDF()
          .writeStream.foreachBatch((_df, id) => {
            calls.push(id);
            return fn(id);
          })
          .queryName("stuck")
          .option("checkpointLocation", ckpt)
          .start();
      const stuck = start(() => hang);
      clicks.addData({ page: "/a", time: at("10:00") });
      while (calls.length === 0) await new Promise((r) => setTimeout(r, 5));
      const began = Date.now();
      await stuck.stop();
      expect(Date.now() - began).toBeLessThan(2000);
      expect(stuck.isActive).toBe(false);
      expect(stuck.exception!.message).toMatch(
        /did not stop within stopTimeout \(300 ms\): it was writing batch 0 to ForeachBatchSink\. The run was abandoned and its checkpoint released/,
      );
      // The function finally returns: the abandoned run commits nothing.
      release();
      await new Promise((r) => setTimeout(r, 50));
      const again = start(() => undefined);
      await again.processAllAvailable();
      await again.stop();
      expect(calls).toEqual([0, 0]);
      expect(again.recentProgress.map((p) => p.batchId)).toEqual([0]);
    } finally {
      await session.stop();
    }
  });

  it("explain() shows the plan and the sink with the guarantee it gives across restarts", () =>
    withSession(0, async (session) => {
      const clicks = session.memoryStream(Click);
      const q = clicks.toDF().groupBy("page").count().writeStream.outputMode("complete").format("memory").queryName("explained").start();
      expect(q.explain()).toBe(
        [
          "Aggregate [page], [count]",
          "+- StreamingRelation MemoryStream[page,time]",
          "Sink: MemorySink[explained] (idempotent: a re-run batch replaces the rows its batch id wrote before)",
        ].join("\n"),
      );
      await q.stop();
    }));

  it("runs a trigger once and stops", () =>
    withSession(0, async (session) => {
      const clicks = session.memoryStream(Click);
      clicks.addData({ page: "/a", time: at("10:00") });
      const q = clicks.toDF().writeStream.format("memory").queryName("once").trigger({ once: true }).start();
      expect(await q.awaitTermination(5000)).toBe(true);
      expect(q.recentProgress.map((p) => p.numInputRows)).toEqual([1]);
    }));

  it("the rate source produces rowsPerSecond rows per second with Spark's columns", () =>
    withSession(2, async (session) => {
      const q = session.readStream
        .format("rate")
        .option("rowsPerSecond", 50)
        .option("numPartitions", 3)
        .load()
        .writeStream.format("memory")
        .queryName("rate_q")
        .trigger({ processingTime: "200 milliseconds" })
        .start();
      await new Promise((r) => setTimeout(r, 2300));
      await q.stop();
      const rows = await session.table("rate_q").orderBy("value").collect();
      expect(rows.length).toBeGreaterThanOrEqual(50);
      expect(rows.length % 50).toBe(0);
      expect(rows.map((r) => r.value)).toEqual(rows.map((_, i) => i));
      const t0 = (rows[0]!.timestamp as Date).getTime();
      expect((rows[1]!.timestamp as Date).getTime() - t0).toBe(20);
    }));
});
