import { readdirSync, readFileSync } from "node:fs";
import { parquetReadObjects } from "hyparquet";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { col, window } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { batchToRows } from "../../batch/rows.js";
import { AnalysisError, OptionError } from "../../errors/errors.js";
import { decodeArrowFile } from "../../formats/arrow-file.js";
import { at, win, WORKER_COUNTS, withSession } from "../../testing/fixtures.js";
import { tempDirs } from "../../testing/temp-dirs.js";
import { committedFiles } from "./committed-files.js";

const Order = z.object({ id: z.int(), item: z.string(), price: z.number().nullable(), time: z.date() });
const order = (id: number, item: string, price: number | null, time: Date) => ({ id, item, price, time });

const folder = tempDirs("sluice-file-sink-query-");

function orderStream(session: Session, d: ReturnType<typeof folder>, format: "json" | "parquet" | "arrow" = "json") {
  const orders = session.memoryStream(Order);
  const start = () => orders.toDF().writeStream.format(format).option("path", d.path("out")).option("checkpointLocation", d.path("cp")).start();
  return { orders, start };
}

const parts = (dir: string) => readdirSync(dir).filter((n) => n !== "_sluice_metadata");

describe.each(WORKER_COUNTS)("writeStream.format(\"json\") with %i workers", (workers) => {
  it("writes each batch's rows once; read.json and readStream.json of the folder read exactly the committed rows", () =>
    withSession(workers, async (session) => {
      const d = folder();
      const { orders, start } = orderStream(session, d);
      let q = start();
      orders.addData(order(1, "tea", 2.5, at("10:00")), order(2, "cake", null, at("10:01")));
      await q.processAllAvailable();
      orders.addData(order(3, "jam", 4, at("10:02")));
      await q.processAllAvailable();
      expect(q.lastProgress!.sink.description).toBe(`FileSink[${d.path("out")}]`);
      await q.stop();
      q = start();
      orders.addData(order(4, "pie", 1, at("10:03")));
      await q.processAllAvailable();
      await q.stop();

      expect(parts(d.path("out"))).toEqual(["part-00000-00000.json", "part-00001-00000.json", "part-00002-00000.json"]);
      expect(readFileSync(d.path("out", "part-00000-00000.json"), "utf8")).toBe(
        '{"id":1,"item":"tea","price":2.5,"time":"2026-01-01T10:00:00.000Z"}\n{"id":2,"item":"cake","time":"2026-01-01T10:01:00.000Z"}\n',
      );
      const expected = [order(1, "tea", 2.5, at("10:00")), order(2, "cake", null, at("10:01")), order(3, "jam", 4, at("10:02")), order(4, "pie", 1, at("10:03"))];
      expect(await session.read.schema(Order).json(d.path("out")).orderBy("id").collect()).toEqual(expected);

      const seen: number[][] = [];
      const reader = session.readStream
        .schema(Order)
        .option("maxFilesPerTrigger", 2)
        .json(d.path("out"))
        .writeStream.foreachBatch(async (df) => {
          seen.push((await df.collect()).map((r) => r.id));
        })
        .option("checkpointLocation", d.path("reader-cp"))
        .start();
      await reader.processAllAvailable();
      await reader.stop();
      expect(seen).toEqual([[1, 2, 3], [4]]);
    }));
});

describe("writeStream to files", () => {
  it("writes a windowed aggregation in append mode to Parquet that another reader reads with exact types", () =>
    withSession(0, async (session) => {
      const d = folder();
      const orders = session.memoryStream(Order);
      const q = orders
        .toDF()
        .withWatermark("time", "1 minute")
        .groupBy(window(col("time"), "5 minutes"), "item")
        .count()
        .writeStream.format("parquet")
        .option("path", d.path("out"))
        .option("checkpointLocation", d.path("cp"))
        .start();
      orders.addData(order(1, "tea", 2, at("10:00")), order(2, "tea", 2, at("10:03")), order(3, "jam", 1, at("10:04")));
      await q.processAllAvailable();
      orders.addData(order(4, "pie", 1, at("10:12")));
      await q.processAllAvailable();
      await q.stop();
      // Batches 1 and 3 run without data because the watermark moved; the window closes in batch 3.
      expect(q.recentProgress.map((p) => [p.batchId, p.numInputRows, p.sink.numOutputRows])).toEqual([
        [0, 3, 0],
        [1, 0, 0],
        [2, 1, 0],
        [3, 0, 2],
      ]);
      expect(readdirSync(d.path("out", "_sluice_metadata"))).toEqual(["0", "1", "2", "3"]);
      const files = (await committedFiles(d.path("out")))!;
      const rows = [];
      for (const f of files) {
        const bytes = readFileSync(f.path);
        rows.push(...(await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer })));
      }
      expect(rows.sort((a, b) => String(a.item).localeCompare(String(b.item)))).toEqual([
        { window: win("10:00", "10:05"), item: "jam", count: 1n },
        { window: win("10:00", "10:05"), item: "tea", count: 2n },
      ]);
      expect(files.map((f) => [f.path.slice(d.path("out").length + 1), f.numRows])).toEqual([["part-00003-00000.parquet", 2]]);
    }));

  it("writes Arrow IPC files that decode into the same rows, using start(path)", () =>
    withSession(0, async (session) => {
      const d = folder();
      const orders = session.memoryStream(Order);
      const q = orders.toDF().writeStream.format("arrow").option("checkpointLocation", d.path("cp")).option("maxRecordsPerFile", 1).start(d.path("out"));
      orders.addData(order(1, "tea", null, at("10:00")), order(2, "cake", 3, at("10:01")));
      await q.processAllAvailable();
      await q.stop();
      expect(parts(d.path("out"))).toEqual(["part-00000-00000.arrow", "part-00000-00001.arrow"]);
      const rows = parts(d.path("out")).flatMap((name) => batchToRows(decodeArrowFile(readFileSync(d.path("out", name)), orders.toDF().schema, name)));
      expect(rows).toEqual([order(1, "tea", null, at("10:00")), order(2, "cake", 3, at("10:01"))]);
    }));

  it.each([
    ["json", "update", "Data source json does not support Update output mode"],
    ["parquet", "complete", "Data source parquet does not support Complete output mode"],
    ["arrow", "update", "Data source arrow does not support Update output mode"],
  ] as const)("refuses %s in %s mode at start(), as Spark", (format, mode, message) =>
    withSession(0, async (session) => {
      const d = folder();
      const counts = session.memoryStream(Order).toDF().groupBy("item").count();
      const start = () => counts.writeStream.outputMode(mode).format(format).option("path", d.path("out")).option("checkpointLocation", d.path("cp")).start();
      expect(start).toThrow(AnalysisError);
      expect(start).toThrow(message);
    }),
  );

  it.each([
    [{}, `json sink: option "path": 'path' is not specified: the file sink writes into a folder, set it with option("path", "/data/out")`],
    [{ path: "/tmp/x", maxRecordsPerFile: -1 }, `json sink: option "maxRecordsPerFile": maxRecordsPerFile must be 0 (no limit) or more (got -1)`],
    [{ path: "/tmp/x", maxRecordsPerFile: "many" }, `json sink: option "maxRecordsPerFile": Invalid input: expected number, received NaN (got "many")`],
    [{ path: "/tmp/x", "spark.sql.streaming.fileSink.log.compactInterval": 0 }, `json sink: option "spark.sql.streaming.fileSink.log.compactInterval": spark.sql.streaming.fileSink.log.compactInterval must be greater than 0 (got 0)`],
    [{ path: "/tmp/x", compression: "gzip" }, `json sink: option "(options)": Unrecognized key: "compression"`],
  ] as const)("names the option that is wrong: %j", (options, message) =>
    withSession(0, async (session) => {
      const start = () => session.memoryStream(Order).toDF().writeStream.format("json").options(options).option("checkpointLocation", "/tmp/unused-cp").start();
      expect(start).toThrow(OptionError);
      expect(start).toThrow(message);
    }),
  );
});
