import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../../api/data-frame.js";
import {
  avg,
  base64,
  col,
  concat,
  count,
  date_trunc,
  explode,
  first,
  from_json,
  hex,
  hour,
  interval,
  last,
  length,
  lit,
  lower,
  max,
  min,
  negate,
  not,
  session_window,
  split,
  struct,
  substring,
  sum,
  timestamp_seconds,
  to_json,
  to_timestamp,
  unbase64,
  unix_micros,
  unix_millis,
  unix_seconds,
  upper,
  when,
  window,
  window_time,
} from "../../api/functions.js";
import { Session } from "../../api/session.js";
import type { Batch } from "../../batch/batch.js";
import { batchToRows } from "../../batch/rows.js";
import { type LogicalPlan, planChildren } from "../../plan/logical.js";
import type { DataType } from "../gen/spark/connect/types_pb.js";
import { RelationSchema } from "../gen/spark/connect/relations_pb.js";
import { create } from "@bufbuild/protobuf";
import type { Fields } from "../../types/dtype.js";
import type { CompileContext } from "./compile-source.js";
import { batchFromSparkArrow } from "./spark-arrow-batch.js";
import { at } from "../../testing/fixtures.js";
import { compileRelation } from "./compile-relation.js";
import { sorted } from "../../testing/sorted-rows.js";
import { type SparkTestClient, sparkTestClient } from "./test-client.js";

/**
 * Each plan shape compiled, run on the Spark Connect server (SPARK_REMOTE) and read back: the rows
 * must be the embedded engine's for the same DataFrame.
 */

const Sale = z.object({ shop: z.string(), item: z.string().nullable(), amount: z.number(), qty: z.int32(), time: z.date() });
const sales = [
  { shop: "North", item: "Tea", amount: 2.5, qty: 2, time: at("09:15", 30) },
  { shop: "South", item: null, amount: 10, qty: 1, time: at("10:45") },
  { shop: "North", item: "Cake", amount: 4, qty: 3, time: at("11:05") },
  { shop: "East", item: "Pie", amount: -1.25, qty: 0, time: at("11:07", 59) },
];
const Shop = z.object({ shop: z.string(), city: z.string() });
const shops = [
  { shop: "North", city: "Oslo" },
  { shop: "West", city: "Lima" },
  { shop: "South", city: "Rome" },
];

/**
 * For the compiler's server tests: the rows a DataFrame gives when its plan runs on the Spark
 * Connect server, read back as Sluice reads them, beside the rows the embedded engine gives.
 */

/** The in-memory tables a plan reads, taken from the session that made them (as the remote session will hand them over). */
async function tablesOf(session: Session, plan: LogicalPlan): Promise<CompileContext> {
  const tables = new Map<string, readonly Batch[]>();
  const visit = async (p: LogicalPlan): Promise<void> => {
    if (p.kind === "source" && p.source.format === "table" && !tables.has(p.source.tableId)) {
      tables.set(p.source.tableId, [await session.executeStatic(p)]);
    }
    for (const c of planChildren(p)) await visit(c);
  };
  await visit(plan);
  return {
    tableBatches: (id) => {
      const batches = tables.get(id);
      if (!batches) throw new Error(`no table ${id}`);
      return batches;
    },
  };
}

async function remoteRows(client: SparkTestClient, session: Session, df: DataFrame<any>): Promise<Record<string, unknown>[]> {
  const relation = compileRelation(df.plan, await tablesOf(session, df.plan));
  return batchToRows(batchFromSparkArrow(await client.collect(relation), df.schema));
}

/**
 * A Spark schema as Sluice's fields, for comparison with schemaOf: Spark's types named as Sluice
 * names the type it maps to (spark-types.ts), "?" for one Sluice has no name for.
 */
function fieldsOfSparkSchema(schema: DataType): { name: string; type: string }[] {
  if (schema.kind.case !== "struct") throw new Error(`a schema is a struct, not ${schema.kind.case}`);
  return schema.kind.value.fields.map((f) => ({ name: f.name, type: sluiceTypeName(f.dataType!) }));
}

function sluiceTypeName(t: DataType): string {
  switch (t.kind.case) {
    case "string":
      return "string";
    case "double":
      return "float64";
    case "integer":
      return "int32";
    case "long":
      return "int64";
    case "boolean":
      return "boolean";
    case "timestamp":
      return "timestamp";
    case "binary":
      return "binary";
    case "struct":
      return t.kind.value.fields.map((f) => `${f.name}:${sluiceTypeName(f.dataType!)}`).join(",") === "start:timestamp,end:timestamp" ? "window" : "?";
    case "array":
      return "headers";
    default:
      return "?";
  }
}

let client: SparkTestClient;
const session = new Session({ workers: 0 });
const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-remote-compile-"));
beforeAll(async () => {
  client = await sparkTestClient();
});
afterAll(async () => {
  await client?.close();
  await session.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The remote rows, after checking them against the embedded ones (in order, or as a multiset). */
async function expectSameRows(df: DataFrame<any>, ordered = false): Promise<Record<string, unknown>[]> {
  const embedded = await df.collect();
  const remote = await remoteRows(client, session, df);
  if (ordered) expect(remote).toEqual(embedded);
  else expect(sorted(remote)).toEqual(sorted(embedded));
  return remote;
}

const salesDf = () => session.createDataFrame(sales, Sale);

describe("projections and filters", () => {
  it("arithmetic, comparisons, logic, null tests, IN and CASE", async () => {
    const out = await expectSameRows(
      salesDf()
        .filter(col("qty").geq(1).or(col("item").isNull()))
        .select(
          "shop",
          col("amount").plus(col("qty")),
          col("amount").minus(1),
          col("amount").multiply(col("qty")),
          col("amount").divide(col("qty")),
          col("qty").mod(2),
          col("qty").equalTo(2),
          col("qty").notEqual(2),
          col("qty").lt(2),
          col("qty").leq(2),
          col("qty").gt(2),
          col("amount").geq(4).and(col("qty").gt(1)),
          not(col("qty").equalTo(1)).alias("notOne"),
          col("item").isNull(),
          col("item").isNotNull(),
          col("shop").isin("North", "West").alias("northOrWest"),
          col("qty").isin(1, 3).alias("oneOrThree"),
          when(col("qty").gt(2), "many").when(col("qty").gt(1), "some").otherwise("one").alias("size"),
          when(col("qty").gt(2), 1.5).alias("noOtherwise"),
        ),
    );
    expect(out).toHaveLength(3);
  });

  it("every scalar function", async () => {
    await expectSameRows(
      salesDf().select(
        lower(col("shop")),
        upper(col("item")),
        length(col("shop")),
        concat(col("shop"), lit("-"), col("qty"), lit("-"), col("amount")).alias("tag"),
        substring(col("shop"), 2, 3),
        hour(col("time")),
        date_trunc("hour", col("time")).alias("hourStart"),
        date_trunc("minute", col("time")).alias("minuteStart"),
        unix_seconds(col("time")),
        unix_millis(col("time")),
        unix_micros(col("time")),
        negate(col("amount")),
        negate(col("qty")).alias("negQty"),
        base64(col("shop")),
        hex(col("shop")),
        unbase64(base64(col("shop"))).alias("bytes"),
        hex(unbase64(base64(col("shop")))).alias("hexBytes"),
        timestamp_seconds(col("qty")).alias("fromSeconds"),
        timestamp_seconds(col("amount")).alias("fromDoubleSeconds"),
        to_timestamp(lit("2026-01-01 10:20:30")).alias("parsed"),
        to_timestamp(lit("2026-01-02T10:20:00Z")).alias("parsedIso"),
        to_timestamp(col("qty")).alias("fromNumber"),
        col("time").plus(interval("90 minutes")).alias("later"),
        col("time").minus(interval("2 days")).alias("earlier"),
      ),
    );
  });

  it("casts between every type", async () => {
    await expectSameRows(
      salesDf().select(
        col("qty").cast("string").alias("qtyText"),
        col("qty").cast("float64").alias("qtyDouble"),
        col("qty").cast("int64").alias("qtyLong"),
        col("qty").cast("boolean").alias("qtyBool"),
        col("amount").cast("int32").alias("amountInt"),
        col("amount").cast("string").alias("amountText"),
        col("shop").cast("int32").alias("shopInt"),
        col("shop").cast("binary").alias("shopBytes"),
        col("shop").cast("binary").cast("string").alias("shopAgain"),
        col("time").cast("string").alias("timeText"),
        col("time").cast("int64").alias("timeSeconds"),
        col("time").cast("float64").alias("timeDouble"),
        lit("2026-01-01 08:00:00").cast("timestamp").alias("litTime"),
        lit(null).cast("int32").alias("nullInt"),
      ),
    );
  });

  it("to_json of a struct and from_json into columns", async () => {
    const Payload = z.object({ page: z.string(), ms: z.int32(), at: z.date() });
    const Event = z.object({ id: z.int32(), body: z.string().nullable() });
    const events = session.createDataFrame(
      [
        { id: 1, body: '{"page":"/home","ms":12,"at":"2026-01-01T10:00:00.000Z"}' },
        { id: 2, body: "not json" },
        { id: 3, body: null },
        { id: 4, body: '{"page":"/cart"}' },
      ],
      Event,
    );
    expect((await expectSameRows(events.select("id", from_json(col("body"), Payload)), true)).map((r) => r["page"])).toEqual(["/home", null, null, null]);
    await expectSameRows(events.select(from_json(col("body"), Payload.partial()), col("id").plus(1).alias("next")));
    await expectSameRows(salesDf().select(to_json(struct(col("shop"), col("qty"), col("amount").multiply(2), col("time").alias("t"))).alias("json")));
    await expect(remoteRows(client, session, events.select(from_json(col("body"), Payload, { mode: "FAILFAST" })))).rejects.toThrow(/Malformed records are detected in record parsing of from_json\(body\)/);
    await expect(events.select(from_json(col("body"), Payload, { mode: "FAILFAST" })).collect()).rejects.toThrow();
  });

  it("explode(split(...)) as a generator", async () => {
    const Line = z.object({ n: z.int32(), line: z.string().nullable() });
    const lines = session.createDataFrame([{ n: 1, line: "a b  c" }, { n: 2, line: "" }, { n: 3, line: null }, { n: 4, line: "x,y" }], Line);
    await expectSameRows(lines.select(col("n"), explode(split(col("line"), " ")).alias("word")));
    await expectSameRows(lines.select(explode(split(col("line"), "[ ,]", 2))));
  });
});

describe("aggregations", () => {
  it("groupBy with every aggregate", async () => {
    await expectSameRows(
      salesDf()
        .groupBy("shop")
        .agg(count().alias("n"), count(col("item")).alias("items"), sum(col("qty")), sum(col("amount")), avg(col("amount")), min(col("item")), max(col("time"))),
    );
    // Spark's first() and last() follow the order rows reach the aggregate, which partitions make arbitrary: one row per group here.
    await expectSameRows(session.createDataFrame(shops, Shop).groupBy("city").agg(first(col("shop")), last(col("shop")).alias("lastShop")));
  });

  it("tumbling, sliding and offset windows, with window_time and window.start", async () => {
    const df = salesDf();
    await expectSameRows(df.groupBy(window(col("time"), "1 hour"), col("shop")).agg(sum(col("qty")).alias("qty")));
    await expectSameRows(df.groupBy(window(col("time"), "1 day", "1 day", "7 hours")).agg(count().alias("n")));
    await expectSameRows(
      df
        .groupBy(window(col("time"), "1 hour", "20 minutes", "5 minutes"))
        .agg(count().alias("n"))
        .select(col("window.start"), col("window.end"), window_time(col("window")).alias("wt"), to_json(col("window")).alias("json"), "n"),
    );
  });

  it("session windows", async () => {
    await expectSameRows(salesDf().groupBy(session_window(col("time"), "30 minutes"), col("shop")).agg(count().alias("n"), max(col("amount")).alias("top")));
  });
});

describe("joins", () => {
  const joinTypes = ["inner", "left", "right", "full", "left_semi", "left_anti"] as const;
  it.each(joinTypes)("%s join on a column", async (how) => {
    await expectSameRows(salesDf().join(session.createDataFrame(shops, Shop), "shop", how));
  });
  it.each(joinTypes)("%s join on a condition, with clashing names", async (how) => {
    const left = salesDf();
    const right = session.createDataFrame(shops, Shop);
    await expectSameRows(left.join(right, left.col("shop").equalTo(right.col("shop")).and(col("qty").gt(0)), how));
  });
});

describe("union, sort, limit, dedup", () => {
  it("union by position, widening types", async () => {
    const a = salesDf().select("shop", "qty");
    const b = salesDf().select(col("item").alias("shop"), col("qty").cast("int64").alias("qty"));
    await expectSameRows(a.union(b));
  });
  it("orderBy with nulls, then limit", async () => {
    await expectSameRows(salesDf().orderBy(col("item").asc(), col("amount").desc()), true);
    await expectSameRows(salesDf().orderBy(col("item").desc(), "qty").limit(2), true);
  });
  it("dropDuplicates on columns and on all columns", async () => {
    const df = salesDf().select("shop", col("qty").gt(1).alias("big"));
    await expectSameRows(df.dropDuplicates());
    await expectSameRows(df.dropDuplicates("shop", "big"));
  });
});

describe("sources", () => {
  it("a local relation of every Sluice type comes back as it went", async () => {
    const ts = arrow.vectorFromArray([at("09:00"), null, at("23:59", 59)], new arrow.TimestampMillisecond());
    const win = new arrow.Struct([new arrow.Field("start", new arrow.TimestampMillisecond(), false), new arrow.Field("end", new arrow.TimestampMillisecond(), false)]);
    const headersType = new arrow.List(new arrow.Field("element", new arrow.Struct([new arrow.Field("key", new arrow.Utf8(), false), new arrow.Field("value", new arrow.Binary(), true)]), false));
    const table = new arrow.Table({
      s: arrow.vectorFromArray(["a", null, "ünï"], new arrow.Utf8()),
      d: arrow.vectorFromArray([1.5, null, -0], new arrow.Float64()),
      i: arrow.vectorFromArray([1, -2147483648, null], new arrow.Int32()),
      l: arrow.vectorFromArray([9007199254740991n, null, -5n], new arrow.Int64()),
      b: arrow.vectorFromArray([true, false, null], new arrow.Bool()),
      t: ts,
      w: arrow.vectorFromArray([{ start: at("09:00"), end: at("10:00") }, null, { start: at("10:00"), end: at("11:00") }], win),
      bin: arrow.vectorFromArray([new Uint8Array([0, 255]), null, new Uint8Array([])], new arrow.Binary()),
      h: arrow.vectorFromArray([[{ key: "k", value: new Uint8Array([1]) }, { key: "n", value: null }], null, []], headersType),
      dict: arrow.vectorFromArray(["x", "y", "x"]),
    });
    const df = session.fromArrow(table);
    await expectSameRows(df);
    await expectSameRows(df.select(to_json(col("h")).alias("headers"), length(col("bin")).alias("n"), hex(col("bin")).alias("hex"), base64(col("bin")).alias("b64"), col("l").minus(1).alias("l1")));
  });

  it("static JSON files with Sluice's rules: required fields, timestamps as text or epoch milliseconds, corrupt records, modes", async () => {
    const Rec = z.object({ id: z.int32(), name: z.string().nullable(), at: z.date(), score: z.number() });
    const file = path.join(dir, "a.json");
    writeFileSync(
      file,
      [
        '\uFEFF{"id":1,"name":"x","at":"2026-01-01T10:00:00Z","score":1.5}',
        '{"id":2,"at":"2026-01-01 11:30:00.250","score":-2}',
        "",
        "  ",
        '{"id":3,"at":1767261600123,"score":0}',
        '{"id":4,"name":"no score","at":"2026-01-01T10:00:00Z"}',
        '{"id":5,"name":"bad time","at":"yesterday","score":1}',
        '{"id":"six","at":"2026-01-01T10:00:00Z","score":1}',
        "broken",
        '{"id":7,"name":null,"at":"2026-01-01T10:00:00Z","score":1e2}\r',
      ].join("\n"),
    );
    expect(await expectSameRows(session.read.schema(Rec).json(file))).toHaveLength(8);
    expect((await expectSameRows(session.read.schema(Rec).option("mode", "DROPMALFORMED").json(file))).map((r) => r["id"])).toEqual([1, 2, 3, 7]);
    const WithCorrupt = Rec.extend({ _corrupt_record: z.string().nullable() });
    const rows = await expectSameRows(session.read.schema(WithCorrupt).json(file));
    expect(rows.filter((r) => r["_corrupt_record"] !== null)).toHaveLength(4);
  });
});

describe("tables and values that live on the server", () => {
  const sql = (query: string) => create(RelationSchema, { relType: { case: "sql", value: { query } } });

  it("a remote-table: source reads the server's table by name", async () => {
    await client.collect(sql("CREATE OR REPLACE TEMP VIEW sluice_counts AS SELECT * FROM VALUES ('a', 1), ('b', 2) AS t(k, n)"));
    const fields: Fields = [
      { name: "k", type: "string", nullable: false },
      { name: "n", type: "int32", nullable: false },
    ];
    const plan: LogicalPlan = { kind: "filter", input: { kind: "source", streaming: false, source: { format: "table", tableId: "remote-table:sluice_counts", fields }, fields }, condition: { kind: "cmp", op: ">", left: { kind: "col", name: "n" }, right: { kind: "lit", value: 1, type: "int32" } } };
    expect(batchToRows(batchFromSparkArrow(await client.collect(compileRelation(plan, { tableBatches: () => [] })), fields))).toEqual([{ k: "b", n: 2 }]);
  });

  it("decimals Spark computed read as numbers", async () => {
    const table = await client.collect(sql("SELECT CAST(12.34 AS DECIMAL(10,2)) AS d, CAST(-7 AS DECIMAL(38,0)) AS l"));
    expect(
      batchToRows(
        batchFromSparkArrow(table, [
          { name: "d", type: "float64", nullable: true },
          { name: "l", type: "int64", nullable: true },
        ]),
      ),
    ).toEqual([{ d: 12.34, l: -7 }]);
  });
});

describe("streaming plans compile to relations Spark resolves to Sluice's columns", () => {
  async function expectSameSchema(df: DataFrame<any>): Promise<void> {
    const relation = compileRelation(df.plan, await tablesOf(session, df.plan));
    expect(fieldsOfSparkSchema(await client.schema(relation))).toEqual(df.schema.map((f) => ({ name: f.name, type: f.type })));
  }
  const rate = () => session.readStream.format("rate").option("rowsPerSecond", 5).load();
  const kafka = () => session.readStream.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:19092").option("subscribe", "clicks").option("startingOffsets", "earliest");

  it("rate with a watermark and a windowed count", async () => {
    await expectSameSchema(rate().withWatermark("timestamp", "10 seconds").groupBy(window(col("timestamp"), "10 seconds", "5 seconds"), col("value").mod(2).alias("parity")).agg(count().alias("n"), max(col("value"))));
  });

  it("names that are not plain identifiers: a watermark's event time, dropDuplicates, a window's start", async () => {
    await expectSameSchema(
      rate()
        .select(col("timestamp").alias("event time"), col("value").alias("v.1"))
        .withWatermark("event time", "5 seconds")
        .dropDuplicates("event time", "v.1")
        .groupBy(window(col("event time"), "10 seconds"))
        .agg(count().alias("n"))
        .select(col("window.start"), "n"),
    );
  });

  it("JSON files with a session window", async () => {
    const Click = z.object({ user: z.string(), at: z.date(), _corrupt_record: z.string().nullable() });
    await expectSameSchema(session.readStream.schema(Click).option("maxFilesPerTrigger", 1).json(dir).withWatermark("at", "1 minute").groupBy(session_window(col("at"), "5 minutes"), col("user")).agg(count()));
  });

  it("Kafka: raw columns with headers, values as text deduplicated within the watermark, JSON values decoded", async () => {
    await expectSameSchema(kafka().option("includeHeaders", true).load());
    await expectSameSchema(kafka().load().select(col("value").cast("string").alias("v"), col("timestamp")).withWatermark("timestamp", "5 seconds").dropDuplicatesWithinWatermark("v"));
    await expectSameSchema(kafka().schema(z.object({ id: z.int32(), at: z.date() })).load());
  });

  it("stream-stream and stream-static joins", async () => {
    const clicks = rate().withWatermark("timestamp", "10 seconds");
    const views = rate().select(col("value").alias("viewId"), col("timestamp").alias("viewAt")).withWatermark("viewAt", "10 seconds");
    await expectSameSchema(
      clicks.join(views, col("value").equalTo(col("viewId")).and(col("timestamp").geq(col("viewAt"))).and(col("timestamp").leq(col("viewAt").plus(interval("1 minute")))), "left"),
    );
    const names = session.createDataFrame([{ value: 1, name: "one" }], z.object({ value: z.int(), name: z.string() }));
    await expectSameSchema(rate().join(names, "value", "left"));
  });
});
