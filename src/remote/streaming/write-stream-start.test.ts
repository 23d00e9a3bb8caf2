import { create, toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { RemoteUnsupportedError } from "../../errors/errors.js";
import { ManualClock } from "../../testing/manual-clock.js";
import type { WriterConfig } from "../../runtime/writer-config.js";
import { WriteStreamOperationStartSchema } from "../gen/spark/connect/commands_pb.js";
import { RelationSchema } from "../gen/spark/connect/relations_pb.js";
import { writeStreamStart } from "./write-stream-start.js";

const input = create(RelationSchema, { relType: { case: "sql", value: { query: "SELECT 1" } } });
const base: Omit<WriterConfig, "sink"> = { outputMode: "update", trigger: { kind: "default" }, queryName: "counts", checkpointLocation: "/data/checkpoints/counts" };

/** The command as JSON, without its input relation. */
function command(config: WriterConfig): unknown {
  const json = toJson(WriteStreamOperationStartSchema, create(WriteStreamOperationStartSchema, writeStreamStart(input, config))) as Record<string, unknown>;
  delete json["input"];
  return json;
}

describe("a remote query's writer settings as Spark Connect's WriteStreamOperationStart", () => {
  it("console: Spark's numRows and truncate options, the checkpoint, mode and name", () => {
    expect(command({ ...base, sink: { kind: "console", numRows: 5, truncate: false } })).toEqual({
      format: "console",
      options: { checkpointLocation: "/data/checkpoints/counts", numRows: "5", truncate: "false" },
      outputMode: "update",
      queryName: "counts",
    });
  });

  it("memory, with each trigger as Spark names it", () => {
    const memory = { kind: "memory" } as const;
    expect(command({ ...base, checkpointLocation: null, queryName: null, sink: memory })).toEqual({ format: "memory", outputMode: "update" });
    expect(command({ ...base, trigger: { kind: "processingTime", intervalMs: 1500 }, sink: memory })).toMatchObject({ processingTimeInterval: "1500 milliseconds" });
    expect(command({ ...base, trigger: { kind: "availableNow" }, sink: memory })).toMatchObject({ availableNow: true });
    expect(command({ ...base, trigger: { kind: "once" }, sink: memory })).toMatchObject({ once: true });
  });

  it("kafka: bootstrap servers, topic and the security options Spark's Kafka sink takes", () => {
    const security = { "kafka.security.protocol": "SASL_SSL", "kafka.sasl.mechanism": "SCRAM-SHA-256", "kafka.sasl.jaas.config": "x required;", "kafka.ssl.endpoint.identification.algorithm": "https" };
    expect(
      command({ ...base, outputMode: "append", sink: { kind: "kafka", bootstrapServers: "b1:9092,b2:9092", topic: "out", clientId: "sluice", transactional: null, security: security as never } }),
    ).toEqual({
      format: "kafka",
      options: { checkpointLocation: "/data/checkpoints/counts", "kafka.bootstrap.servers": "b1:9092,b2:9092", topic: "out", ...security },
      outputMode: "append",
      queryName: "counts",
    });
  });

  it("parquet and json files: the path as the sink's destination, maxRecordsPerFile as an option", () => {
    expect(command({ ...base, outputMode: "append", sink: { kind: "file", format: "parquet", path: "/data/out", maxRecordsPerFile: 1000, compactInterval: 10 } })).toEqual({
      format: "parquet",
      options: { checkpointLocation: "/data/checkpoints/counts", maxRecordsPerFile: "1000" },
      outputMode: "append",
      queryName: "counts",
      path: "/data/out",
    });
  });

  it.each<[string, WriterConfig, string]>([
    ["a foreachBatch function", { ...base, sink: { kind: "foreachBatch", fn: () => undefined } }, "foreachBatch calls a TypeScript function with each batch, and a Spark Connect server cannot call into this process"],
    [
      "exactly-once Kafka writes",
      { ...base, sink: { kind: "kafka", bootstrapServers: "b:9092", topic: "t", clientId: "c", transactional: { idPrefix: null, timeoutMs: 60_000 }, security: {} as never } },
      "exactly-once Kafka writes (kafka.transactional.id / transactions) are Sluice's own: Spark's Kafka sink writes at least once",
    ],
    [
      "a JavaScript OAuth token module",
      { ...base, sink: { kind: "kafka", bootstrapServers: "b:9092", topic: "t", clientId: "c", transactional: null, security: { "kafka.sasl.login.callback.handler.module": "./token.js" } as never } },
      "kafka.sasl.login.callback.handler.module names a JavaScript module, which a Spark server cannot load",
    ],
    ["Arrow IPC files", { ...base, sink: { kind: "file", format: "arrow", path: "/out", maxRecordsPerFile: 0, compactInterval: 10 } }, "Spark has no Arrow IPC file sink"],
    ["a manual clock", { ...base, clock: new ManualClock(), sink: { kind: "memory" } }, "a manual clock drives the embedded engine's triggers only"],
    [
      "a latencyTarget trigger",
      { ...base, trigger: { kind: "latencyTarget", targetMs: 200 }, sink: { kind: "memory" } },
      "a latencyTarget trigger is Sluice's own (the engine sizes each micro-batch from measured batch durations) and Spark has no such trigger: " +
        "give Spark a processingTime trigger and the Kafka source's maxOffsetsPerTrigger, or run the query in an embedded session",
    ],
  ])("refuses %s, saying why and what to use instead", (_, config, message) => {
    expect(() => writeStreamStart(input, config)).toThrow(RemoteUnsupportedError);
    expect(() => writeStreamStart(input, config)).toThrow(message);
  });
});
