import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Session } from "../../api/session.js";
import { RemoteUnsupportedError } from "../../errors/errors.js";
import type { Expr, UdfRef } from "../../expr/ast.js";
import type { LogicalPlan } from "../../plan/logical.js";
import type { KafkaSourceDesc } from "../../sources/kafka/kafka-desc.js";
import type { Fields } from "../../types/dtype.js";
import { assertRunsRemotely } from "./compile-relation.js";

const session = new Session({ workers: 0 });
const fields: Fields = [
  { name: "id", type: "int32", nullable: false },
  { name: "body", type: "binary", nullable: true },
];
const table: LogicalPlan = { kind: "source", streaming: false, source: { format: "table", tableId: "t-1", fields }, fields };
const select = (...exprs: Expr[]): LogicalPlan => ({ kind: "project", input: table, exprs });

/** What assertRunsRemotely refuses the plan with: the reason and the message. */
function refusal(plan: LogicalPlan): { reason: string; message: string } {
  try {
    assertRunsRemotely(plan);
  } catch (e) {
    if (e instanceof RemoteUnsupportedError) return { reason: e.reason, message: e.message };
    throw e;
  }
  throw new Error("the plan was not refused");
}

const EMBEDDED = 'or run the query in an embedded session (new Session() without "remote")';

describe("what a Spark Connect server cannot run is refused, saying what to do instead", () => {
  it("a TypeScript UDF", () => {
    const fn: UdfRef = { kind: "udfRef", name: "score", module: "file:///app/score.js", exportName: "score", form: "row", returnType: { type: "int32", nullable: true }, args: null };
    expect(refusal(select({ kind: "alias", child: { kind: "udf", fn, inputs: [{ kind: "col", name: "id" }] }, name: "s" }))).toEqual({
      reason: "UDF",
      message: `the udf "score" is TypeScript, which a Spark Connect server cannot run: write it with Spark's built-in functions (col, when, concat, ...) ${EMBEDDED}`,
    });
    expect(refusal({ kind: "filter", input: table, condition: { kind: "udf", fn: { ...fn, form: "vector", returnType: { type: "boolean", nullable: false } }, inputs: [] } }).message).toMatch(/^the vectorUdf "score" is TypeScript/);
  });

  it("a transformWithState processor", () => {
    const plan: LogicalPlan = {
      kind: "transformWithState",
      input: table,
      keys: ["id"],
      processor: { kind: "processorRef", name: "Sessions", module: "file:///app/p.js", exportName: "Sessions", args: null, udfs: {} },
      timeMode: "none" as never,
      outputMode: "update",
      fields,
      initialState: null,
    };
    expect(refusal(plan)).toEqual({
      reason: "TRANSFORM_WITH_STATE",
      message: `transformWithState runs the TypeScript processor "Sessions", which a Spark Connect server cannot run (its transformWithState takes JVM or Python processors only): express the logic with groupBy/agg, dropDuplicates and joins, ${EMBEDDED}`,
    });
  });

  it("a memory stream", () => {
    const stream: LogicalPlan = { kind: "source", streaming: true, source: { format: "memory", streamId: "m-1", fields }, fields };
    expect(refusal({ kind: "union", inputs: [table, stream] })).toEqual({
      reason: "MEMORY_STREAM",
      message: `a memory stream is fed from this process, which a Spark Connect server cannot read from: write the rows to JSON or Parquet files (or a Kafka topic) and readStream those, ${EMBEDDED}`,
    });
  });

  it("Arrow IPC files", () => {
    const df = session.read.schema(z.object({ id: z.int32() })).format("arrow").load("/data/t.arrow");
    expect(refusal(df.plan)).toEqual({
      reason: "ARROW_FILES",
      message: `Spark has no source for Arrow IPC files (/data/t.arrow): write them as Parquet and read format "parquet", ${EMBEDDED}`,
    });
  });

  it("Avro and Protobuf values, and any schema registry", () => {
    const body: Expr = { kind: "col", name: "body" };
    const avro = { kind: "avro", readerSchema: null, writerSchema: null } as const;
    const registry = { "schema.registry.url": "http://registry:8081" };
    expect(refusal(select({ kind: "decodeValues", child: body, fields, mode: "PERMISSIVE", format: avro, registry: null }))).toEqual({
      reason: "VALUE_FORMAT",
      message: `from_avro() (avro) needs the spark-avro package on the Spark Connect server, and Sluice's avro schemas are not Spark's: use JSON values (from_json / to_json) remotely, ${EMBEDDED}`,
    });
    expect(refusal(select({ kind: "decodeValues", child: body, fields, mode: "PERMISSIVE", format: avro, registry }))).toEqual({
      reason: "SCHEMA_REGISTRY",
      message: "from_avro() with a schema registry cannot run on a Spark Connect server: open-source Spark has no schema registry client; decode the values in an embedded session, or send plain JSON values and use from_json",
    });
    const encoding = { kind: "protobuf" } as never;
    expect(refusal(select({ kind: "alias", child: { kind: "encodeValues", child: body, encoding, registry: null }, name: "v" })).reason).toBe("VALUE_FORMAT");
    expect(refusal(select({ kind: "alias", child: { kind: "encodeValues", child: body, encoding, registry: { registry, subject: "s", schema: null } }, name: "v" })).reason).toBe("SCHEMA_REGISTRY");
  });

  it("Kafka values in Avro, and Sluice's own Kafka options", () => {
    const kafka = (options: Record<string, string>) => {
      let reader = session.readStream.format("kafka").option("kafka.bootstrap.servers", "b:9092").option("subscribe", "t");
      for (const [k, v] of Object.entries(options)) reader = reader.option(k, v);
      return reader;
    };
    expect(refusal(kafka({ commitOffsetsToGroup: "lag-tools" }).load().plan)).toEqual({
      reason: "SOURCE_OPTION",
      message: `readStream.format("kafka"): option commitOffsetsToGroup is Sluice's own and Spark's source has none like it (Spark keeps offsets in its checkpoint only); remove it, ${EMBEDDED}`,
    });
    const json = kafka({}).schema(z.object({ id: z.int32() })).load().plan as LogicalPlan & { kind: "source" };
    const desc = json.source as KafkaSourceDesc;
    const asAvro: LogicalPlan = { ...json, source: { ...desc, values: { format: { kind: "avro", readerSchema: null, writerSchema: null }, registry: null } } };
    expect(refusal(asAvro).reason).toBe("VALUE_FORMAT");
    const withRegistry: LogicalPlan = { ...json, source: { ...desc, values: { format: { kind: "json" }, registry: { "schema.registry.url": "http://r:8081" } } } };
    expect(refusal(withRegistry).reason).toBe("SCHEMA_REGISTRY");
  });

  it("lets through what Spark runs as Sluice does", () => {
    expect(() => assertRunsRemotely(select({ kind: "col", name: "id" }, { kind: "decodeValues", child: { kind: "col", name: "body" }, fields: [{ name: "n", type: "int32", nullable: true }], mode: "FAILFAST", format: { kind: "json" }, registry: null }))).not.toThrow();
  });
});
