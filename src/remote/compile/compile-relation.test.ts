import { toJson } from "@bufbuild/protobuf";
import * as arrow from "apache-arrow";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, explode, from_json, split, window } from "../../api/functions.js";
import { Session } from "../../api/session.js";
import type { LogicalPlan } from "../../plan/logical.js";
import { at } from "../../testing/fixtures.js";
import { type Relation, RelationSchema } from "../gen/spark/connect/relations_pb.js";
import { compileRelation } from "./compile-relation.js";
import type { CompileContext } from "./compile-source.js";

const session = new Session({ workers: 0 });
afterAll(() => session.stop());

/** Tables by the ids the session gave them, read through the session as a remote session hands them over. */
async function contextFor(plan: LogicalPlan): Promise<CompileContext> {
  const batches = new Map<string, Awaited<ReturnType<Session["executeStatic"]>>>();
  const visit = async (p: LogicalPlan): Promise<void> => {
    if (p.kind === "source" && p.source.format === "table") batches.set(p.source.tableId, await session.executeStatic(p));
    if (p.kind !== "source") for (const c of p.kind === "join" ? [p.left, p.right] : p.kind === "union" ? p.inputs : [p.input]) await visit(c);
  };
  await visit(plan);
  return { tableBatches: (id) => [batches.get(id)!] };
}

const noTables: CompileContext = { tableBatches: () => [] };
const json = (r: Relation) => toJson(RelationSchema, r) as Record<string, any>;
const attr = (name: string) => ({ unresolvedAttribute: { unparsedIdentifier: name } });
const f = (functionName: string, ...args: unknown[]) => ({ unresolvedFunction: { functionName, arguments: args } });
const str = (s: string) => ({ literal: { string: s } });

describe("plans as Spark Connect relations", () => {
  it("a rate stream with a watermark and a sliding window count", () => {
    const df = session.readStream
      .format("rate")
      .option("rowsPerSecond", 10)
      .load()
      .withWatermark("timestamp", "10 seconds")
      .groupBy(window(col("timestamp"), "10 seconds", "5 seconds"))
      .agg(count().alias("n"));
    expect(json(compileRelation(df.plan, noTables))).toEqual({
      common: { planId: "2" },
      aggregate: {
        input: {
          common: { planId: "1" },
          withWatermark: {
            input: { common: { planId: "0" }, read: { isStreaming: true, dataSource: { format: "rate", options: { rowsPerSecond: "10", numPartitions: "2", rampUpTime: "0s" } } } },
            eventTime: "timestamp",
            delayThreshold: "10 seconds",
          },
        },
        groupType: "GROUP_TYPE_GROUPBY",
        groupingExpressions: [{ alias: { expr: f("window", attr("`timestamp`"), str("10 seconds"), str("5 seconds")), name: ["window"] } }],
        aggregateExpressions: [{ alias: { expr: f("count", { unresolvedStar: {} }), name: ["n"] } }],
      },
    });
  });

  it("a Kafka stream: Spark's option names, values as text, dropDuplicatesWithinWatermark", () => {
    const df = session.readStream
      .format("kafka")
      .option("kafka.bootstrap.servers", "broker:9092")
      .option("subscribe", "clicks")
      .option("startingOffsets", "earliest")
      .option("maxOffsetsPerTrigger", 500)
      .load()
      .select(col("value").cast("string").alias("v"), col("timestamp"))
      .withWatermark("timestamp", "5 seconds")
      .dropDuplicatesWithinWatermark("v");
    const out = json(compileRelation(df.plan, noTables));
    expect(out["deduplicate"]).toMatchObject({ columnNames: ["v"], withinWatermark: true });
    const read = out["deduplicate"].input.withWatermark.input.project.input.read;
    expect(read.isStreaming).toBe(true);
    expect(read.dataSource.format).toBe("kafka");
    expect(read.dataSource.options).toMatchObject({
      "kafka.bootstrap.servers": "broker:9092",
      subscribe: "clicks",
      startingOffsets: "earliest",
      maxOffsetsPerTrigger: "500",
      failOnDataLoss: "true",
      includeHeaders: "false",
      maxTriggerDelay: "900000ms",
    });
    expect(Object.keys(read.dataSource.options).filter((k) => !k.startsWith("kafka.")).sort()).toEqual(
      ["failOnDataLoss", "fetchOffset.numRetries", "fetchOffset.retryIntervalMs", "includeHeaders", "kafkaConsumer.pollTimeoutMs", "maxOffsetsPerTrigger", "maxTriggerDelay", "startingOffsets", "startingOffsetsByTimestampStrategy", "subscribe"],
    );
    expect(out["deduplicate"].input.withWatermark.input.project.expressions).toEqual([{ alias: { expr: { cast: { expr: attr("`value`"), type: { string: {} }, evalMode: "EVAL_MODE_LEGACY" } }, name: ["v"] } }, attr("`timestamp`")]);
  });

  it("a Kafka stream with a JSON record schema: the decoded fields, then Kafka's other columns", () => {
    const df = session.readStream.format("kafka").option("kafka.bootstrap.servers", "b:9092").option("subscribe", "t").schema(z.object({ id: z.int32() })).load();
    const out = json(compileRelation(df.plan, noTables));
    expect(out["project"].expressions.map((e: any) => e.alias?.name[0] ?? e.unresolvedAttribute.unparsedIdentifier)).toEqual(["id", "`key`", "`topic`", "`partition`", "`offset`", "`timestamp`", "`timestampType`"]);
    const first = out["project"].input.project.expressions;
    expect(first[0].alias.expr.unresolvedFunction.arguments.slice(1)).toEqual([
      str("id INT, __sluice_unparsed STRING"),
      f("map", str("mode"), str("PERMISSIVE"), str("columnNameOfCorruptRecord"), str("__sluice_unparsed")),
    ]);
  });

  it("a JSON file stream: the lines of Spark's text source, blank ones skipped, decoded with Sluice's rules", () => {
    const df = session.readStream.schema(z.object({ user: z.string(), at: z.date() })).option("maxFilesPerTrigger", 2).json("/data/clicks");
    const out = json(compileRelation(df.plan, noTables));
    const filter = out["project"].input.project.input.filter;
    expect(filter.input.read).toEqual({ isStreaming: true, dataSource: { format: "text", options: { maxFilesPerTrigger: "2" }, paths: ["/data/clicks"] } });
    expect(filter.condition).toEqual(f("not", f("rlike", attr("`value`"), str("^[ \\t\\r]*$"))));
    expect(out["project"].input.project.expressions[0].alias.expr.unresolvedFunction.arguments[1]).toEqual(str("user STRING, at STRING, __sluice_unparsed STRING"));
    expect(out["project"].expressions.map((e: any) => e.alias.name[0])).toEqual(["user", "at"]);
  });

  it("a Parquet file read with the schema as DDL", () => {
    const df = session.read.schema(z.object({ id: z.int32(), at: z.date().nullable() })).option("pathGlobFilter", "*.parquet").parquet("/data/t");
    expect(json(compileRelation(df.plan, noTables))).toEqual({
      common: { planId: "0" },
      read: { dataSource: { format: "parquet", schema: "id INT NOT NULL, at TIMESTAMP", options: { pathGlobFilter: "*.parquet" }, paths: ["/data/t"] } },
    });
  });

  it("a server table by name; in-memory rows as an Arrow stream of plain Utf8 and Timestamp(us, UTC)", async () => {
    const remote: LogicalPlan = { kind: "source", streaming: false, source: { format: "table", tableId: "remote-table:counts", fields: [] }, fields: [] };
    expect(json(compileRelation(remote, noTables))).toEqual({ common: { planId: "0" }, read: { namedTable: { unparsedIdentifier: "counts" } } });

    const table = new arrow.Table({ s: arrow.vectorFromArray(["x", "y", "x"]), t: arrow.vectorFromArray([at("09:00"), null, at("10:00")], new arrow.TimestampMillisecond()) });
    const df = session.fromArrow(table);
    const rel = compileRelation(df.plan, await contextFor(df.plan));
    const local = rel.relType.case === "localRelation" ? rel.relType.value : null;
    expect(local?.schema).toBe("s STRING, t TIMESTAMP");
    const sent = arrow.tableFromIPC(local!.data!);
    expect(sent.schema.fields.map((x) => String(x.type))).toEqual(["Utf8", "Timestamp<MICROSECOND, UTC>"]);
    expect(sent.getChild("s")!.toArray()).toEqual(["x", "y", "x"]);
    const micros = sent.getChild("t")!.data[0]!.values as BigInt64Array;
    expect([micros[0], micros[2]]).toEqual([BigInt(at("09:00").getTime()) * 1000n, BigInt(at("10:00").getTime()) * 1000n]);
    expect(sent.getChild("t")!.get(1)).toBeNull();
  });

  it("a join on columns puts the columns back in Sluice's order; a join on a condition binds each column to its side's plan id", async () => {
    const T = z.object({ k: z.string(), v: z.int32() });
    const a = session.createDataFrame([{ k: "a", v: 1 }], T);
    const b = session.createDataFrame([{ k: "a", v: 2 }], T).withColumnRenamed("v", "w");
    const using = a.join(b, "k", "full");
    const out = json(compileRelation(using.plan, await contextFor(using.plan)));
    expect(out["project"].expressions).toEqual([attr("`k`"), attr("`v`"), attr("`w`")]);
    expect(out["project"].input.join).toMatchObject({ joinType: "JOIN_TYPE_FULL_OUTER", usingColumns: ["k"] });

    const c = a.join(b, a.col("k").equalTo(b.col("k")), "left_anti");
    const cond = json(compileRelation(c.plan, await contextFor(c.plan)))["join"];
    expect(cond.joinType).toBe("JOIN_TYPE_LEFT_ANTI");
    expect(cond.joinCondition).toEqual(f("==", { unresolvedAttribute: { unparsedIdentifier: "`k`", planId: cond.left.common.planId } }, { unresolvedAttribute: { unparsedIdentifier: "`k_right`", planId: cond.right.common.planId } }));
    expect(cond.right.project.expressions).toEqual([{ alias: { expr: attr("`k`"), name: ["k_right"] } }, attr("`w`")]);
  });

  it("every join type", async () => {
    const T = z.object({ k: z.string() });
    const a = session.createDataFrame([{ k: "a" }], T);
    const b = session.createDataFrame([{ k: "a" }], T);
    const types = [];
    for (const how of ["inner", "left", "right", "full", "left_semi", "left_anti"] as const) {
      const df = a.join(b, "k", how);
      types.push(json(compileRelation(df.plan, await contextFor(df.plan)))["project"].input.join.joinType);
    }
    expect(types).toEqual(["JOIN_TYPE_INNER", "JOIN_TYPE_LEFT_OUTER", "JOIN_TYPE_RIGHT_OUTER", "JOIN_TYPE_FULL_OUTER", "JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI"]);
  });

  it("union as UNION ALL by position, sort with null ordering, limit, dropDuplicates, explode", async () => {
    const T = z.object({ k: z.string(), line: z.string() });
    const a = session.createDataFrame([{ k: "a", line: "x y" }], T);
    const df = a.union(a).union(a).orderBy(col("k").desc(), col("line").asc()).limit(5).dropDuplicates("k");
    const out = json(compileRelation(df.plan, await contextFor(df.plan)));
    expect(out["deduplicate"].columnNames).toEqual(["k"]);
    expect(out["deduplicate"].input.limit.limit).toBe(5);
    const sort = out["deduplicate"].input.limit.input.sort;
    expect(sort.order).toEqual([
      { child: attr("`k`"), direction: "SORT_DIRECTION_DESCENDING", nullOrdering: "SORT_NULLS_LAST" },
      { child: attr("`line`"), direction: "SORT_DIRECTION_ASCENDING", nullOrdering: "SORT_NULLS_FIRST" },
    ]);
    expect(sort.isGlobal).toBe(true);
    expect(sort.input.setOp).toMatchObject({ setOpType: "SET_OP_TYPE_UNION", isAll: true, byName: false, leftInput: { setOp: { setOpType: "SET_OP_TYPE_UNION" } } });

    const words = a.select(col("k"), explode(split(col("line"), " ")).alias("word"));
    expect(json(compileRelation(words.plan, await contextFor(words.plan)))["project"].expressions).toEqual([attr("`k`"), { alias: { expr: f("explode", f("split", attr("`line`"), str(" "), { literal: { integer: -1 } })), name: ["word"] } }]);
  });

  it("from_json in a select: the parsed struct and text first, then its fields where Sluice puts them", async () => {
    const T = z.object({ id: z.int32(), body: z.string().nullable() });
    const df = session.createDataFrame([{ id: 1, body: "{}" }], T).select(col("id"), from_json(col("body"), z.object({ n: z.int32(), at: z.date().nullable() }), { mode: "FAILFAST" }));
    const out = json(compileRelation(df.plan, await contextFor(df.plan)))["project"];
    const first = out.input.project.expressions;
    expect(first.map((e: any) => e.alias?.name[0] ?? e.unresolvedAttribute.unparsedIdentifier)).toEqual(["`id`", "__sluice_json_1", "__sluice_text_1"]);
    expect(first[1].alias.expr.unresolvedFunction.arguments[1]).toEqual(str("n INT, at STRING, __sluice_unparsed STRING"));
    expect(out.expressions.map((e: any) => e.alias?.name[0] ?? e.unresolvedAttribute.unparsedIdentifier)).toEqual(["`id`", "n", "at"]);
    // FAILFAST: the first field raises Spark's error where the record is malformed.
    expect(JSON.stringify(out.expressions[1])).toContain('"functionName":"raise_error"');
    expect(JSON.stringify(out.expressions[2])).not.toContain("raise_error");
  });

  it("a watermark on a column whose name is not a plain identifier is quoted", () => {
    const df = session.readStream.format("rate").load().select(col("timestamp").alias("event time")).withWatermark("event time", "90 seconds");
    expect(json(compileRelation(df.plan, noTables))["withWatermark"]).toMatchObject({ eventTime: "`event time`", delayThreshold: "90 seconds" });
  });
});
