import { mkdirSync, readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MalformedRecordError } from "../errors/errors.js";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { tempDirs } from "../testing/temp-dirs.js";
import { col, count } from "./functions.js";

const Order = z.object({ id: z.int(), item: z.string(), price: z.number() });
const OrderWithCorrupt = Order.extend({ _corrupt_record: z.string().nullable() });

const folder = tempDirs();

const GOOD = [
  { id: 1, item: "tea", price: 2.5 },
  { id: 2, item: "cake", price: 4 },
];
const BAD_JSON = '{"id": 3, "item": "pie", "price": ';
const BAD_TYPE = '{"id": 4, "item": "jam", "price": "cheap"}';

describe.each(WORKER_COUNTS)("JSON-lines source with %i workers", (workers) => {
  it("reads new files per trigger, maxFilesPerTrigger at a time, in order", () =>
    withSession(workers, async (session) => {
      const d = folder();
      d.write("a.jsonl", [GOOD[0]!]);
      d.write("b.jsonl", [GOOD[1]!]);
      const seen: number[][] = [];
      const q = session.readStream
        .schema(Order)
        .option("maxFilesPerTrigger", 1)
        .json(d.dir)
        .writeStream.foreachBatch(async (df) => {
          seen.push((await df.collect()).map((r) => r.id));
        })
        .start();
      await q.processAllAvailable();
      d.write("c.jsonl", [{ id: 5, item: "bun", price: 1 }]);
      await q.processAllAvailable();
      await q.stop();
      expect(seen).toEqual([[1], [2], [5]]);
      expect(q.recentProgress.map((p) => p.sources[0]!.endOffset)).toEqual([1, 2, 3]);
    }));

  it("PERMISSIVE keeps malformed lines as nulls with the raw text in _corrupt_record", () =>
    withSession(workers, async (session) => {
      const d = folder();
      const file = d.write("orders.jsonl", [GOOD[0]!, BAD_JSON, BAD_TYPE]);
      const rows = await session.read.schema(OrderWithCorrupt).json(file).collect();
      expect(rows).toEqual([
        { id: 1, item: "tea", price: 2.5, _corrupt_record: null },
        { id: null, item: null, price: null, _corrupt_record: BAD_JSON },
        { id: null, item: null, price: null, _corrupt_record: BAD_TYPE },
      ]);
    }));

  it("DROPMALFORMED drops malformed lines and counts them in progress", () =>
    withSession(workers, async (session) => {
      const d = folder();
      d.write("orders.jsonl", [GOOD[0]!, BAD_JSON, GOOD[1]!, BAD_TYPE]);
      const q = session.readStream
        .schema(Order)
        .option("mode", "DROPMALFORMED")
        .json(d.dir)
        .groupBy("item")
        .agg(count().alias("n"))
        .writeStream.outputMode("complete")
        .format("memory")
        .queryName(`orders_${workers}`)
        .start();
      await q.processAllAvailable();
      await q.stop();
      expect(await session.table(`orders_${workers}`).orderBy("item").collect()).toEqual([
        { item: "cake", n: 1 },
        { item: "tea", n: 1 },
      ]);
      expect(q.lastProgress!.sources[0]!.metrics.numMalformedRecords).toBe("2");
      expect(q.lastProgress!.numInputRows).toBe(2);
    }));

  it("FAILFAST stops the query with an error naming the file and line", () =>
    withSession(workers, async (session) => {
      const d = folder();
      const file = d.write("orders.jsonl", [GOOD[0]!, GOOD[1]!, BAD_TYPE]);
      const q = session.readStream.schema(Order).option("mode", "FAILFAST").json(d.dir).writeStream.format("memory").queryName(`ff_${workers}`).start();
      await expect(q.awaitTermination()).rejects.toThrow(`line 3 of ${file}`);
      expect(q.exception!.cause).toBeInstanceOf(MalformedRecordError);
      expect(q.isActive).toBe(false);
    }));
});

describe("the JSON source's log of files read", () => {
  it("is compacted every 10 entries, and a restart after 23 files reads no file twice", () =>
    withSession(0, async (session) => {
      const input = folder();
      const checkpoint = folder().path("ckpt");
      const ids: number[] = [];
      const start = () =>
        session.readStream
          .schema(Order)
          .option("maxFilesPerTrigger", 1)
          .json(input.dir)
          .writeStream.foreachBatch(async (df) => {
            ids.push(...(await df.collect()).map((r) => r.id));
          })
          .option("checkpointLocation", checkpoint)
          .start();
      for (let i = 0; i < 20; i++) input.write(`${String(i).padStart(2, "0")}.jsonl`, [{ id: i, item: "x", price: 1 }]);
      const first = start();
      await first.processAllAvailable();
      await first.stop();
      for (let i = 20; i < 23; i++) input.write(`${i}.jsonl`, [{ id: i, item: "x", price: 1 }]);
      const second = start();
      await second.processAllAvailable();
      await second.stop();
      expect(ids).toEqual(Array.from({ length: 23 }, (_, i) => i));
      // Entries 1..23: compactions at 9 and 19 leave 19.compact and the entries after it.
      expect(readdirSync(`${checkpoint}/sources/0`).sort()).toEqual(["19.compact", "20", "21", "22", "23"]);
    }));
});

describe("static JSON reads", () => {
  it("collects, filters and aggregates a folder", () =>
    withSession(0, async (session) => {
      const d = folder();
      d.write("1.jsonl", GOOD);
      d.write("2.jsonl", [{ id: 3, item: "tea", price: 3 }]);
      const df = session.read.schema(Order).json(d.dir);
      expect(await df.count()).toBe(3);
      expect(await df.filter(col("price").gt(2.6)).select("id").orderBy("id").collect()).toEqual([{ id: 2 }, { id: 3 }]);
    }));

  it("reports a missing folder by name", () =>
    withSession(0, async (session) => {
      const missing = `${folder().dir}/nope`;
      await expect(session.read.schema(Order).json(missing).collect()).rejects.toThrow(missing);
    }));

  it("a streaming query over a missing folder fails naming it", () =>
    withSession(0, async (session) => {
      const d = folder();
      const missing = d.path("nope");
      const q = session.readStream.schema(Order).json(missing).writeStream.format("memory").queryName("missing_dir").start();
      await expect(q.awaitTermination()).rejects.toThrow(missing);
      mkdirSync(missing);
    }));
});
