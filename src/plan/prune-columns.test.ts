import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, lit, sum, window } from "../api/functions.js";
import { Session } from "../api/session.js";
import { planPhysical } from "../planner/planner.js";
import type { OperatorSpec } from "../planner/physical.js";
import { tempDir } from "../testing/temp-dir.js";
import { pruneColumns } from "./prune-columns.js";
import { schemaOf } from "./schema-of.js";

const AdEvent = z.object({ ad_id: z.string(), event_type: z.string(), user_id: z.string(), time: z.date() });
const Ad = z.object({ ad_id: z.string(), campaign_id: z.string() });
const session = new Session({ workers: 0 });
afterAll(() => session.stop());

function kafka(options: Record<string, string> = {}) {
  let reader = session.readStream.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:1").option("subscribe", "ads");
  for (const [k, v] of Object.entries(options)) reader = reader.option(k, v);
  return reader.schema(AdEvent).load();
}

/** What the first input pipeline decodes and the columns its first step keeps. */
function firstPipeline(df: { plan: Parameters<typeof planPhysical>[0] }) {
  const input = planPhysical(df.plan).inputs[0]!;
  const source = input.source;
  const first: OperatorSpec | undefined = input.operators[0];
  return {
    decoded: source.format === "kafka" || source.format === "json" ? (source.format === "kafka" ? source.valueFields : source.fields)?.map((f) => f.name) : null,
    kept: first?.op === "project" ? first.exprs.map((e) => (e.kind === "col" ? e.name : e.kind)) : null,
  };
}

describe("column pruning: a Kafka record schema is decoded only as far as the query reads it", () => {
  const views = () => kafka().where(col("event_type").equalTo(lit("view")));

  it("decodes only the fields read, and drops Kafka's columns before the first filter", () => {
    const ads = session.createDataFrame([{ ad_id: "a1", campaign_id: "c1" }], Ad);
    const df = views()
      .withWatermark("timestamp", "1 second")
      .join(ads, "ad_id")
      .groupBy(window(col("timestamp"), "10 seconds"), "campaign_id")
      .agg(count().alias("count"));
    expect(firstPipeline(df)).toEqual({ decoded: ["ad_id", "event_type"], kept: ["ad_id", "event_type", "timestamp"] });
  });

  it("keeps the whole schema when every field is read, and every column when the query outputs them", () => {
    expect(firstPipeline(kafka())).toEqual({ decoded: ["ad_id", "event_type", "user_id", "time"], kept: null });
  });

  it.each([
    ["FAILFAST", { mode: "FAILFAST" }],
    ["DROPMALFORMED", { mode: "DROPMALFORMED" }],
    ["a dead-letter topic", { deadLetterTopic: "bad-ads" }],
  ])("does not narrow the record schema under %s, where a wrong type in any field makes a record malformed", (_, options) => {
    const df = kafka(options).select("ad_id");
    expect(firstPipeline(df)).toEqual({ decoded: ["ad_id", "event_type", "user_id", "time"], kept: ["ad_id"] });
  });
});

describe("column pruning: what every operator needs is kept", () => {
  const Event = z.object({ user: z.string(), page: z.string(), ms: z.int(), time: z.date() });
  const stream = () => session.memoryStream(Event).toDF();

  it("a projection over the source keeps the columns read by filters, watermarks and aggregates", () => {
    const df = stream()
      .withWatermark("time", "1 second")
      .where(col("ms").gt(lit(0)))
      .groupBy(window(col("time"), "10 seconds"))
      .agg(sum(col("ms")).alias("total"));
    expect(firstPipeline(df).kept).toEqual(["ms", "time"]);
  });

  it("a count of rows keeps one column to count them by", () => {
    expect(firstPipeline(stream().groupBy().agg(count().alias("n"))).kept).toEqual(["user"]);
  });

  it("dropDuplicates() without columns compares every column, so none is dropped", () => {
    expect(firstPipeline(stream().dropDuplicates().select("user")).kept).toBeNull();
  });

  it("dropDuplicates(columns) keeps its columns as well as the ones selected", () => {
    expect(firstPipeline(stream().dropDuplicates("page").select("user")).kept).toEqual(["user", "page"]);
  });

  it("an unread select output is dropped, and with it the columns it read", () => {
    const df = stream()
      .select(col("user"), col("ms").plus(lit(1)).alias("next"))
      .select("user");
    expect(firstPipeline(df).kept).toEqual(["user"]);
  });

  it("a union keeps every column of its inputs, which it matches by position", () => {
    const df = stream().union(stream()).select("user");
    expect(pruneColumns(df.plan)).toBe(df.plan);
  });

  it("a join keeps its keys on both sides and drops unread columns of the static side", () => {
    const pages = session.createDataFrame([{ page: "p", title: "t", owner: "o" }], z.object({ page: z.string(), title: z.string(), owner: z.string() }));
    const plan = pruneColumns(stream().join(pages, "page").select("user", "title").plan);
    expect(plan.kind === "project" && plan.input.kind === "join" ? schemaOf(plan.input.right).map((f) => f.name) : null).toEqual(["page", "title"]);
    expect(plan.kind === "project" && plan.input.kind === "join" ? schemaOf(plan.input.left).map((f) => f.name) : null).toEqual(["user", "page"]);
  });

  it("never changes the query's output columns", () => {
    const queries = [
      stream(),
      stream().where(col("ms").gt(lit(0))),
      stream().select("page", "user"),
      stream().withWatermark("time", "1 second").groupBy(window(col("time"), "10 seconds"), "page").agg(count().alias("n")),
      stream().dropDuplicates("page"),
    ];
    for (const df of queries) expect(schemaOf(pruneColumns(df.plan))).toEqual(schemaOf(df.plan));
  });

  it("leaves a plan with nothing to prune as it is, node for node", () => {
    const df = stream().select("user", "page");
    const plan = stream().plan;
    expect(pruneColumns(plan)).toBe(plan);
    expect(pruneColumns(df.plan).kind).toBe("project");
  });
});

describe("column pruning: results", () => {
  const dirs: ReturnType<typeof tempDir>[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.remove();
  });
  const Order = z.object({ id: z.int(), item: z.string(), price: z.number() });

  it("in PERMISSIVE mode a wrong type in a field the query never reads leaves the fields it reads, as in Spark", async () => {
    const d = tempDir();
    dirs.push(d);
    d.write("orders.jsonl", [{ id: 1, item: "tea", price: 2.5 }]);
    d.write("more.jsonl", [`{"id": 2, "item": "jam", "price": "cheap"}`]);
    const items = await session.read.schema(Order).json(d.dir).select("id", "item").orderBy("id").collect();
    expect(items).toEqual([
      { id: 1, item: "tea" },
      { id: 2, item: "jam" },
    ]);
    const prices = await session.read.schema(Order).json(d.dir).select("id", "price").orderBy("id").collect();
    // Reading the mistyped field, the record is malformed: PERMISSIVE gives it nulls (sorted first).
    expect(prices).toEqual([
      { id: null, price: null },
      { id: 1, price: 2.5 },
    ]);
  });
});
