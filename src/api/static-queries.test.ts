import { tableFromArrays } from "apache-arrow";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { at, WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { avg, col, concat, count, date_trunc, from_json, hour, lit, lower, max, substring, upper, when } from "./functions.js";

const Sale = z.object({ shop: z.string(), item: z.string().nullable(), amount: z.number(), qty: z.int32(), time: z.date() });
const rows = [
  { shop: "North", item: "Tea", amount: 2.5, qty: 2, time: at("09:15", 30) },
  { shop: "South", item: null, amount: 10, qty: 1, time: at("10:45") },
  { shop: "North", item: "Cake", amount: 4, qty: 3, time: at("11:05") },
];

describe.each(WORKER_COUNTS)("static DataFrames with %i workers", (workers) => {
  it("select computes expressions with Spark's names and null rules", () =>
    withSession(workers, async (session) => {
      const df = session.createDataFrame(rows, Sale);
      const out = await df
        .select(
          "shop",
          col("amount").multiply(col("qty")).alias("total"),
          upper(col("item")),
          concat(lower(col("shop")), lit("-"), col("item")).alias("tag"),
          substring(col("shop"), 2, 3).alias("mid"),
          when(col("qty").gt(2), "many").when(col("qty").gt(1), "some").otherwise("one").alias("size"),
          col("qty").cast("string").alias("qtyText"),
          hour(col("time")).alias("h"),
          date_trunc("hour", col("time")).alias("hourStart"),
          col("item").isNull().alias("noItem"),
        )
        .collect();
      expect(out).toEqual([
        { shop: "North", total: 5, "upper(item)": "TEA", tag: "north-Tea", mid: "ort", size: "some", qtyText: "2", h: 9, hourStart: at("09:00"), noItem: false },
        { shop: "South", total: 10, "upper(item)": null, tag: null, mid: "out", size: "one", qtyText: "1", h: 10, hourStart: at("10:00"), noItem: true },
        { shop: "North", total: 12, "upper(item)": "CAKE", tag: "north-Cake", mid: "ort", size: "many", qtyText: "3", h: 11, hourStart: at("11:00"), noItem: false },
      ]);
    }));

  it("filter, withColumn, withColumnRenamed, drop and union", () =>
    withSession(workers, async (session) => {
      const df = session.createDataFrame(rows, Sale);
      const out = await df
        .filter(col("shop").equalTo("North").and(col("amount").geq(3)))
        .withColumn("amount", col("amount").plus(1))
        .withColumnRenamed("shop", "store")
        .drop("time", "qty")
        .union(session.createDataFrame([{ shop: "East", item: "Pie", amount: 1, qty: 1, time: at("08:00") }], Sale).withColumn("amount", col("amount").plus(1)).withColumnRenamed("shop", "store").drop("time", "qty"))
        .collect();
      expect(out).toEqual([
        { store: "North", item: "Cake", amount: 5 },
        { store: "East", item: "Pie", amount: 2 },
      ]);
    }));

  it("groupBy, orderBy and limit", () =>
    withSession(workers, async (session) => {
      const df = session.createDataFrame(rows, Sale);
      expect(
        await df.groupBy("shop").agg(count().alias("n"), avg(col("amount")).alias("mean"), max(col("item")).alias("top")).orderBy(col("n").desc()).limit(1).collect(),
      ).toEqual([{ shop: "North", n: 2, mean: 3.25, top: "Tea" }]);
    }));

  it("joins two static DataFrames and deduplicates", () =>
    withSession(workers, async (session) => {
      const Shop = z.object({ shop: z.string(), city: z.string() });
      const shops = session.createDataFrame([{ shop: "North", city: "Oslo" }, { shop: "South", city: "Rome" }], Shop);
      const sales = session.createDataFrame(rows, Sale);
      expect(await sales.join(shops, "shop").select("city", "qty").dropDuplicates("city").orderBy("city").collect()).toEqual([
        { city: "Oslo", qty: 2 },
        { city: "Rome", qty: 1 },
      ]);
    }));
});

describe("from_json", () => {
  const Event = z.object({ body: z.string().nullable(), n: z.int32() });
  const Payload = z.object({ page: z.string(), ms: z.int32() });

  it.each(WORKER_COUNTS)("parses JSON text into the schema's columns, malformed and null values as nulls (%i workers)", (workers) =>
    withSession(workers, async (session) => {
      const df = session.createDataFrame(
        [
          { body: '{"page":"/a","ms":12}', n: 1 },
          { body: '{"page":"/b",', n: 2 },
          { body: null, n: 3 },
        ],
        Event,
      );
      expect(await df.select(from_json(col("body"), Payload), "n").collect()).toEqual([
        { page: "/a", ms: 12, n: 1 },
        { page: null, ms: null, n: 2 },
        { page: null, ms: null, n: 3 },
      ]);
    }));

  it("FAILFAST names the row, and from_json anywhere but a select is refused", () =>
    withSession(0, async (session) => {
      const df = session.createDataFrame([{ body: "nope", n: 1 }], Event);
      await expect(df.select(from_json(col("body"), Payload, { mode: "FAILFAST" })).collect()).rejects.toThrow(/row 0 of the batch/);
      expect(() => df.filter(from_json(col("body"), Payload) as never)).toThrow("from_json(...) gives several columns: use it as a top-level column of select()");
      expect(() => df.select(from_json(col("n"), Payload))).toThrow("from_json() needs a string or binary column, but n is int32");
    }));
});

describe("static DataFrame actions", () => {
  it("show() prints Spark's table", () =>
    withSession(0, async (session) => {
      const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      try {
        await session.createDataFrame(rows, Sale).select("shop", "item", "time").show(2);
        expect(String(write.mock.calls[0]![0])).toBe(
          [
            "+-----+----+-------------------+",
            "| shop|item|               time|",
            "+-----+----+-------------------+",
            "|North| Tea|2026-01-01 09:15:30|",
            "|South|NULL|2026-01-01 10:45:00|",
            "+-----+----+-------------------+",
            "only showing top 2 rows",
            "",
          ].join("\n"),
        );
      } finally {
        write.mockRestore();
      }
    }));

  it("reads and returns Arrow tables", () =>
    withSession(0, async (session) => {
      const table = tableFromArrays({ k: ["a", "b", "a"], v: Float64Array.of(1, 2, 3) });
      const df = session.fromArrow(table);
      const out = await df.groupBy("k").agg(count().alias("n")).orderBy("k").toArrow();
      expect(out.toArray().map((r) => r.toJSON())).toEqual([
        { k: "a", n: 2n },
        { k: "b", n: 1n },
      ]);
      expect(out.schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(["k:Utf8", "n:Int64"]);
    }));
});
