import type { MessageInitShape } from "@bufbuild/protobuf";
import { RemoteUnsupportedError } from "../../errors/errors.js";
import type { WriterConfig } from "../../runtime/writer-config.js";
import type { WriteStreamOperationStartSchema } from "../gen/spark/connect/commands_pb.js";
import type { Relation } from "../gen/spark/connect/relations_pb.js";

export type WriteStreamStart = MessageInitShape<typeof WriteStreamOperationStartSchema>;

/** Kafka options whose value is a JavaScript module: nothing a Spark server can load. */
const MODULE_OPTIONS = ["kafka.sasl.login.callback.handler.module"];

/**
 * The `WriteStreamOperationStart` command for a query's writer settings: the sink's format and
 * options as Spark names them, the trigger, output mode, name and checkpoint. What only this process
 * could do (a TypeScript foreachBatch function, exactly-once Kafka transactions, a test's manual
 * clock, Arrow IPC files) is refused with what to use instead.
 */
export function writeStreamStart(input: Relation, config: WriterConfig): WriteStreamStart {
  const options: Record<string, string> = {};
  if (config.checkpointLocation !== null) options["checkpointLocation"] = config.checkpointLocation;
  if (config.clock) {
    throw new RemoteUnsupportedError("a manual clock drives the embedded engine's triggers only: a query on a Spark Connect server runs on the server's clock; run the test in an embedded session", "MANUAL_CLOCK");
  }
  const start: WriteStreamStart = {
    input,
    outputMode: config.outputMode,
    ...(config.queryName !== null ? { queryName: config.queryName } : {}),
    trigger: trigger(config),
    options,
  };
  const sink = config.sink;
  switch (sink.kind) {
    case "console":
      return { ...start, format: "console", options: { ...options, numRows: String(sink.numRows), truncate: String(sink.truncate) } };
    case "memory":
      return { ...start, format: "memory" };
    case "kafka": {
      if (sink.transactional) {
        throw new RemoteUnsupportedError(
          "exactly-once Kafka writes (kafka.transactional.id / transactions) are Sluice's own: Spark's Kafka sink writes at least once. Drop the transactional options to run on Spark, or run the query in an embedded session",
          "KAFKA_TRANSACTIONS",
        );
      }
      const security = sink.security as Record<string, unknown>;
      for (const key of MODULE_OPTIONS) {
        if (security[key] !== undefined) {
          throw new RemoteUnsupportedError(`${key} names a JavaScript module, which a Spark server cannot load: give Spark's kafka.sasl.login.callback.handler.class (a Java class on the server) or run the query in an embedded session`, "JS_MODULE_OPTION");
        }
      }
      const kafka: Record<string, string> = { ...options, "kafka.bootstrap.servers": sink.bootstrapServers };
      if (sink.topic !== null) kafka["topic"] = sink.topic;
      for (const [key, value] of Object.entries(security)) if (value !== undefined && value !== "") kafka[key] = String(value);
      return { ...start, format: "kafka", options: kafka };
    }
    case "file": {
      if (sink.format === "arrow") {
        throw new RemoteUnsupportedError('Spark has no Arrow IPC file sink: write "parquet" or "json" files when the query runs on a Spark Connect server', "ARROW_FILES");
      }
      const file = { ...options };
      if (sink.maxRecordsPerFile > 0) file["maxRecordsPerFile"] = String(sink.maxRecordsPerFile);
      return { ...start, format: sink.format, options: file, sinkDestination: { case: "path", value: sink.path } };
    }
    case "foreachBatch":
      throw new RemoteUnsupportedError(
        "foreachBatch calls a TypeScript function with each batch, and a Spark Connect server cannot call into this process: write to a sink Spark has (kafka, parquet or json files, memory, console) and read the results from there, or run the query in an embedded session",
        "FOREACH_BATCH",
      );
  }
}

function trigger(config: WriterConfig): WriteStreamStart["trigger"] {
  const t = config.trigger;
  switch (t.kind) {
    case "default":
      return { case: undefined };
    case "processingTime":
      return { case: "processingTimeInterval", value: `${t.intervalMs} milliseconds` };
    case "availableNow":
      return { case: "availableNow", value: true };
    case "once":
      return { case: "once", value: true };
    case "latencyTarget":
      throw new RemoteUnsupportedError(
        "a latencyTarget trigger is Sluice's own (the engine sizes each micro-batch from measured batch durations) and Spark has no such trigger: " +
          "give Spark a processingTime trigger and the Kafka source's maxOffsetsPerTrigger, or run the query in an embedded session",
        "LATENCY_TARGET",
      );
    case "realTime":
      return { case: "realTimeBatchDuration", value: `${t.batchDurationMs} milliseconds` };
  }
}
