import { rmSync } from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { col, count, window } from "../api/functions.js";
import { at, withSession } from "../testing/fixtures.js";
import { tempDir } from "../testing/temp-dir.js";
import { ConsoleSink } from "./console-sink.js";
import { ForeachBatchSink } from "./foreach-batch-sink.js";
import { rowsToBatch } from "../batch/rows.js";

const Word = z.object({ word: z.string(), time: z.date() });

describe("console sink", () => {
  it("prints each batch as Spark's console sink does", async () => {
    const out: string[] = [];
    const sink = new ConsoleSink({ numRows: 20, truncate: true }, (t) => out.push(t));
    const batch = rowsToBatch(
      [
        { window: { start: at("10:00"), end: at("10:01") }, word: "a very long word indeed, longer than twenty", n: 2 },
        { window: { start: at("10:01"), end: at("10:02") }, word: null, n: 1 },
      ],
      [
        { name: "window", type: "window", nullable: false },
        { name: "word", type: "string", nullable: true },
        { name: "n", type: "int64", nullable: false },
      ],
    );
    await sink.addBatch(3, batch);
    expect(out.join("")).toBe(
      [
        "-------------------------------------------",
        "Batch: 3",
        "-------------------------------------------",
        "+--------------------+--------------------+---+",
        "|              window|                word|  n|",
        "+--------------------+--------------------+---+",
        "|{2026-01-01 10:00...|a very long word ...|  2|",
        "|{2026-01-01 10:01...|                NULL|  1|",
        "+--------------------+--------------------+---+",
        "",
        "",
      ].join("\n"),
    );
  });

  it("is what format('console') writes to stdout, honouring numRows and truncate", () =>
    withSession(0, async (session) => {
      const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      try {
        const words = session.memoryStream(Word);
        const q = words.toDF().select("word").writeStream.format("console").option("numRows", 1).option("truncate", "false").start();
        words.addData({ word: "alpha", time: at("10:00") }, { word: "beta", time: at("10:00") });
        await q.processAllAvailable();
        await q.stop();
        expect(write.mock.calls.map((c) => String(c[0])).join("")).toContain("|word |\n+-----+\n|alpha|\n+-----+\nonly showing top 1 row\n");
      } finally {
        write.mockRestore();
      }
    }));
});

describe("memory sink", () => {
  it("appends in append mode and replaces in complete mode; session.table reads it", () =>
    withSession(0, async (session) => {
      const words = session.memoryStream(Word);
      const appended = words.toDF().writeStream.format("memory").queryName("all_words").start();
      const counted = words.toDF().groupBy("word").count().writeStream.outputMode("complete").format("memory").queryName("word_counts").start();
      words.addData({ word: "a", time: at("10:00") });
      await appended.processAllAvailable();
      await counted.processAllAvailable();
      words.addData({ word: "a", time: at("10:01") }, { word: "b", time: at("10:02") });
      await appended.processAllAvailable();
      await counted.processAllAvailable();
      await appended.stop();
      await counted.stop();
      expect(await session.table("all_words").count()).toBe(3);
      expect(await session.table("word_counts").orderBy("word").collect()).toEqual([
        { word: "a", count: 2 },
        { word: "b", count: 1 },
      ]);
    }));

  it("session.table names a missing table and how to create it", () =>
    withSession(0, async (session) => {
      expect(() => session.table("nope")).toThrow('Table or view not found: nope; a memory sink creates it: writeStream.format("memory").queryName("nope")');
    }));
});

describe("foreachBatch", () => {
  const temp = tempDir("sluice-foreach-");
  afterAll(() => temp.remove());

  it("hands each batch to the function as a static DataFrame with its batch id", () =>
    withSession(2, async (session) => {
      const words = session.memoryStream(Word);
      const seen: { id: number; rows: unknown[] }[] = [];
      const q = words
        .toDF()
        .withWatermark("time", "1 minute")
        .groupBy(window(col("time"), "1 minute"))
        .agg(count().alias("n"))
        .writeStream.outputMode("update")
        .foreachBatch(async (df, id) => {
          seen.push({ id, rows: await df.select("n").collect() });
        })
        .option("checkpointLocation", temp.path("foreach"))
        .start();
      words.addData({ word: "a", time: at("10:00") }, { word: "b", time: at("10:00", 30) });
      await q.processAllAvailable();
      words.addData({ word: "c", time: at("10:00", 40) });
      await q.processAllAvailable();
      await q.stop();
      // Batches 1 and 3 are the no-data batches each moved watermark asks for; in update mode
      // they emit nothing.
      expect(seen).toEqual([
        { id: 0, rows: [{ n: 2 }] },
        { id: 1, rows: [] },
        { id: 2, rows: [{ n: 3 }] },
        { id: 3, rows: [] },
      ]);
    }));

  it("lets a batch's DataFrame go when the function returns: used later, it says so instead of reading nothing", () =>
    withSession(0, async (session) => {
      const words = session.memoryStream(Word);
      const kept: { collect(): Promise<unknown[]> }[] = [];
      const q = words
        .toDF()
        .select("word")
        .writeStream.foreachBatch((df) => {
          kept.push(df);
        })
        .option("checkpointLocation", temp.path("let-go"))
        .start();
      words.addData({ word: "a", time: at("10:00") });
      await q.processAllAvailable();
      await q.stop();
      await expect(kept[0]!.collect()).rejects.toThrow(
        "this DataFrame was handed to a foreachBatch function whose call has returned, and its batch is let go: use it inside the call (collect() its rows to keep them)",
      );
    }));

  it("is exactly-once when the function skips batch ids it already wrote: a batch re-run after a crash comes with the same id and rows", () =>
    withSession(0, async (session) => {
      // The idempotent pattern: the "warehouse" records, with each write, the last batch id it took.
      const warehouse = { lastBatchId: -1, rows: [] as unknown[] };
      const calls: number[] = [];
      const words = session.memoryStream(Word);
      const checkpoint = temp.path("idempotent");
      const start = () =>
        words
          .toDF()
          .select("word")
          .writeStream.foreachBatch(async (df, batchId) => {
            calls.push(batchId);
            if (batchId <= warehouse.lastBatchId) return; // already written before the crash
            warehouse.rows.push(...(await df.collect()));
            warehouse.lastBatchId = batchId;
          })
          .option("checkpointLocation", checkpoint)
          .start();
      const first = start();
      words.addData({ word: "a", time: at("10:00") });
      await first.processAllAvailable();
      words.addData({ word: "b", time: at("10:01") });
      await first.processAllAvailable();
      await first.stop();
      // A crash after the function wrote batch 1 but before the commit: commits/1 is not there.
      rmSync(`${checkpoint}/commits/1`);
      const second = start();
      await second.processAllAvailable();
      await second.stop();
      expect(calls).toEqual([0, 1, 1]);
      expect(warehouse.rows).toEqual([{ word: "a" }, { word: "b" }]);
    }));

  it("says how it keeps its guarantee", () => {
    const sink = new ForeachBatchSink(() => undefined);
    expect([sink.guarantee, sink.requiresCheckpoint]).toEqual(["at-least-once", true]);
    expect(sink.describe()).toMatch(/^ForeachBatchSink \(at-least-once: a re-run batch is handed over again with the same batchId/);
  });
});
