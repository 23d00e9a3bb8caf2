// A remote session (`new Session({ remote })`) against a real Spark Connect server: the same calls as an
// embedded session, answered by Spark; what only this process can run is refused; the session's lifetime.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, sum } from "../api/functions.js";
import { udf } from "../api/udf.js";
import { AnalysisError, RemoteUnsupportedError, StreamingQueryException } from "../errors/errors.js";
import type { StreamingQueryListener } from "../runtime/listener.js";
import { remoteSession, sparkRemote, withRemoteSession } from "../testing/spark-connect.js";
import { tempDirs } from "../testing/temp-dirs.js";

const folder = tempDirs("sluice-remote-");
const Sale = z.object({ shop: z.string(), qty: z.int() });
const SALES = [
  { shop: "north", qty: 3 },
  { shop: "south", qty: 5 },
  { shop: "north", qty: 4 },
];

describe("static DataFrames on a Spark Connect server", () => {
  it("collect(), count() and toArrow() return the rows Spark computed, typed as the embedded engine's", () =>
    withRemoteSession(async (session) => {
      const totals = session.createDataFrame(SALES, Sale).groupBy("shop").agg(sum(col("qty")).alias("total"), count().alias("n")).orderBy("shop");
      expect(await totals.collect()).toEqual([
        { shop: "north", total: 7, n: 2 },
        { shop: "south", total: 5, n: 1 },
      ]);
      expect(await totals.count()).toBe(2);
      const table = await totals.toArrow();
      expect(table.schema.fields.map((f) => f.name)).toEqual(["shop", "total", "n"]);
      expect(table.numRows).toBe(2);
    }));

  it("explain() returns Spark's plans", () =>
    withRemoteSession(async (session) => {
      const df = session.createDataFrame(SALES, Sale).filter(col("qty").gt(3));
      const simple = await df.explain();
      // Spark evaluates a filter over local rows while it optimizes: the physical plan is the scan of the result.
      expect(simple).toMatch(/^== Physical Plan ==\nLocalTableScan \[shop#\d+, qty#\d+L\]/);
      const extended = await df.explain("extended");
      expect(extended).toMatch(/== Analyzed Logical Plan ==\n(.|\n)*Filter \(qty#\d+L > cast\(3 as bigint\)\)/);
      expect(extended).toContain("== Optimized Logical Plan ==");
    }));

  it("the server's errors keep Spark's error class, SQLSTATE and message", () =>
    withRemoteSession(async (session) => {
      const missing = folder().path("nothing-here");
      const err = await session.read.schema(Sale).json(missing).collect().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AnalysisError);
      expect(err).toMatchObject({ errorClass: "PATH_NOT_FOUND", sqlState: "42K03" });
      expect((err as Error).message).toMatch(/^\[PATH_NOT_FOUND\] Path does not exist: file:.*nothing-here\. SQLSTATE: 42K03/);
    }));

  it("refuses a TypeScript UDF at collect(): Spark cannot call into this process", () =>
    withRemoteSession(async (session) => {
      const addOne = udf(new URL("../api/testing/test-udfs.ts", import.meta.url), "addOne", "int32");
      const df = session.createDataFrame(SALES, Sale).select(addOne(col("qty")).alias("next"));
      await expect(df.collect()).rejects.toThrow(RemoteUnsupportedError);
    }));
});

describe("streaming queries on a Spark Connect server", () => {
  it("reads JSON files into a memory sink: progress, status, listeners, the sink's table, stop", () =>
    withRemoteSession(async (session) => {
      const input = folder();
      input.write("1.jsonl", SALES);
      const events: string[] = [];
      const listener: StreamingQueryListener = {
        onQueryStarted: (e) => events.push(`started ${e.name}`),
        onQueryProgress: (e) => events.push(`progress ${e.progress.batchId}: ${e.progress.numInputRows} rows`),
        onQueryTerminated: (e) => events.push(`terminated ${e.exception === null ? "cleanly" : "with an exception"}`),
      };
      session.streams.addListener(listener);
      const query = session.readStream
        .schema(Sale)
        .json(input.dir)
        .groupBy("shop")
        .agg(sum(col("qty")).alias("total"))
        .writeStream.outputMode("complete")
        .format("memory")
        .queryName("remote_totals")
        .option("checkpointLocation", folder().path("checkpoint"))
        .start();
      await query.processAllAvailable();
      expect(query.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(query.runId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await session.table("remote_totals").orderBy("shop").collect()).toEqual([
        { shop: "north", total: 7 },
        { shop: "south", total: 5 },
      ]);
      input.write("2.jsonl", [{ shop: "south", qty: 10 }]);
      await query.processAllAvailable();
      expect(await session.table("remote_totals").orderBy("shop").collect()).toEqual([
        { shop: "north", total: 7 },
        { shop: "south", total: 15 },
      ]);
      // The listener bus delivers each batch's progress; the query keeps them as the embedded engine does.
      await expect.poll(() => query.recentProgress.map((p) => p.numInputRows).filter((n) => n > 0), { timeout: 20_000 }).toEqual([3, 1]);
      const last = query.recentProgress.find((p) => p.numInputRows === 1)!;
      expect(last).toMatchObject({ id: query.id, runId: query.runId, name: "remote_totals", numInputRows: 1 });
      expect(last.stateOperators[0]).toMatchObject({ operatorName: "stateStoreSave", numRowsTotal: 2, numRowsUpdated: 1 });
      expect(last.sink.description).toMatch(/MemorySink/);
      expect(query.isActive).toBe(true);
      await expect.poll(() => query.explain(), { timeout: 20_000 }).toContain("StateStoreSave");
      await query.stop();
      expect(query.isActive).toBe(false);
      expect(query.exception).toBeNull();
      expect(query.status).toEqual({ message: "Stopped", isDataAvailable: false, isTriggerActive: false });
      expect(await query.awaitTermination()).toBe(true);
      await expect.poll(() => events.at(-1), { timeout: 20_000 }).toBe("terminated cleanly");
      expect(events[0]).toBe("started remote_totals");
      expect(events.filter((e) => e.startsWith("progress")).length).toBeGreaterThanOrEqual(2);
    }));

  it("writes Parquet and JSON files (availableNow) that Spark and Sluice both read back, and prints to the server's console", () =>
    withRemoteSession(async (session) => {
      const input = folder();
      input.write("1.jsonl", SALES);
      const out = folder();
      for (const format of ["parquet", "json"] as const) {
        const query = session.readStream
          .schema(Sale)
          .json(input.dir)
          .writeStream.format(format)
          .option("checkpointLocation", out.path(`${format}-checkpoint`))
          .trigger({ availableNow: true })
          .start(out.path(format));
        expect(await query.awaitTermination(60_000)).toBe(true);
        expect(query.lastProgress?.sink.description).toMatch(new RegExp(`^FileSink\\[.*${format}\\]$`));
      }
      const byQty = (rows: { shop: string; qty: number }[]) => [...rows].sort((a, b) => a.qty - b.qty);
      expect(byQty(await session.read.schema(Sale).parquet(out.path("parquet")).collect())).toEqual(byQty(SALES));
      expect(byQty(await session.read.schema(Sale).json(out.path("json")).collect())).toEqual(byQty(SALES));
      const printed = session.readStream.schema(Sale).json(input.dir).writeStream.format("console").option("checkpointLocation", out.path("console-checkpoint")).start();
      await printed.processAllAvailable();
      expect(printed.lastProgress?.sink).toMatchObject({ description: expect.stringMatching(/Console/), numOutputRows: 3 });
      await printed.stop();
    }));

  it("awaitTermination(timeout) outlasts the server's stream limit by reattaching, and answers false for a running query", () =>
    withRemoteSession(async (session) => {
      const query = session.readStream.format("rate").option("rowsPerSecond", 5).load().writeStream.format("memory").queryName("remote_rate").start();
      const started = Date.now();
      // The test server cuts result streams after 10 s: this call's stream is resumed with ReattachExecute.
      expect(await query.awaitTermination(14_000)).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(13_000);
      expect(query.lastProgress?.batchId).toBeGreaterThan(0);
      await query.stop();
    }));

  it("a query that fails on the server surfaces its exception from awaitTermination() and exception", () =>
    withRemoteSession(async (session) => {
      const input = folder();
      input.write("bad.jsonl", ['{"shop": "north", "qty": '] as string[]);
      const query = session.readStream
        .schema(Sale)
        .option("mode", "FAILFAST")
        .json(input.dir)
        .writeStream.format("memory")
        .queryName("remote_failfast")
        .start();
      const err = await query.awaitTermination().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StreamingQueryException);
      // Spark's message (with the plan it failed in), without the JVM's stack trace, which the terminated event carries.
      expect((err as Error).message).toMatch(/^org\.apache\.spark\.sql\.streaming\.StreamingQueryException: \[USER_RAISED_EXCEPTION\] Malformed records are detected in record parsing of .*sluice-remote-.*\. Parse Mode: FAILFAST\./);
      expect((err as Error).message).not.toContain("\tat org.apache.spark");
      expect(query.exception).toBe(err);
      expect(query.isActive).toBe(false);
    }));

  it("refuses at start() what only this process can run: foreachBatch, memory streams", () =>
    withRemoteSession(async (session) => {
      const rates = session.readStream.format("rate").load();
      expect(() => rates.writeStream.foreachBatch(() => undefined).start()).toThrow(RemoteUnsupportedError);
      expect(() => rates.writeStream.foreachBatch(() => undefined).start()).toThrow("a Spark Connect server cannot call into this process");
      const fed = session.memoryStream(Sale);
      expect(() => fed.toDF().writeStream.format("memory").queryName("fed").start()).toThrow(RemoteUnsupportedError);
      expect(session.streams.active).toEqual([]);
    }));

  it("an analysis error of the server rejects the query's calls", () =>
    withRemoteSession(async (session) => {
      const missing = folder().path("missing");
      // Spark needs the folder of a file stream to exist when the query starts.
      const query = session.readStream.schema(Sale).json(missing).writeStream.format("memory").queryName("remote_missing").start();
      const err = await query.processAllAvailable().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AnalysisError);
      expect((err as AnalysisError).errorClass).toBe("PATH_NOT_FOUND");
      expect(query.isActive).toBe(false);
    }));
});

describe("a remote session's lifetime", () => {
  it("keep-alive holds the server's session through a minute of silence; without it the server closes the session", async () => {
    const kept = remoteSession();
    const left = remoteSession(sparkRemote(), { keepAliveInterval: "10 minutes" });
    try {
      const one = () => ({ one: 1 });
      const Row = z.object({ one: z.int() });
      expect(await kept.createDataFrame([one()], Row).count()).toBe(1);
      expect(await left.createDataFrame([one()], Row).count()).toBe(1);
      // The test server closes sessions idle for 30 s, checking every 5 s.
      await new Promise((r) => setTimeout(r, 45_000));
      expect(await kept.createDataFrame([one()], Row).count()).toBe(1);
      const err = await left.createDataFrame([one()], Row).count().catch((e: unknown) => e);
      expect((err as { errorClass?: string }).errorClass).toMatch(/^INVALID_HANDLE\.SESSION_(CLOSED|CHANGED|NOT_FOUND)$/);
    } finally {
      await Promise.all([kept.stop(), left.stop()]);
    }
  }, 90_000);
});
