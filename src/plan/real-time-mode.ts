import type { OutputMode } from "../config/options.js";
import { RealTimeModeError } from "../errors/errors.js";
import { driverOperators, type DriverNode, type OperatorSpec, type PhysicalPlan } from "../planner/physical.js";
import { realTimeRefusal } from "../sources/source-kinds.js";

/** What the real-time checks need to know of the writer, besides the plan. */
export interface RealTimeWriter {
  readonly outputMode: OutputMode;
  /** The trigger's checkpoint interval. */
  readonly batchDurationMs: number;
  /** spark.sql.streaming.realTimeMode.minBatchDuration. */
  readonly minBatchDurationMs: number;
  /** The sink's kind, and whether a Kafka sink writes in transactions. */
  readonly sink: { readonly kind: string; readonly transactional: boolean };
}

/** Sinks a real-time query may write to (Spark 4.1's allowlist, less its ForeachWriter, which Sluice lacks). */
const REAL_TIME_SINKS = new Set(["kafka", "memory", "console"]);

/**
 * Spark's real-time mode checks, at start() and before anything runs: update output mode, a
 * checkpoint interval of at least the minimum, sources with a real-time reader (Kafka), each
 * source read once, stateless operators only (projections, filters, explode, stream-static joins,
 * unions, withWatermark), and a sink that writes row by row (Kafka) or collects each batch for
 * development (memory, console). What Spark 4.1 cannot run in real time is refused with its
 * error condition, naming what to change.
 */
export function checkRealTimeQuery(plan: PhysicalPlan, writer: RealTimeWriter): void {
  if (writer.outputMode !== "update") {
    throw new RealTimeModeError(
      "OUTPUT_MODE_NOT_SUPPORTED",
      `The output mode ${writer.outputMode} is not supported in real-time mode: use outputMode("update"), which for the stateless queries real-time mode runs writes every row once, as append would`,
    );
  }
  if (writer.batchDurationMs < writer.minBatchDurationMs) {
    throw new RealTimeModeError(
      "INVALID_TRIGGER_INTERVAL",
      `The real-time trigger's checkpoint interval is ${writer.batchDurationMs} ms, below spark.sql.streaming.realTimeMode.minBatchDuration (${writer.minBatchDurationMs} ms). ` +
        "The interval sets how often progress is checkpointed, not the latency: records are written as they arrive whatever it is; use a longer interval",
    );
  }
  for (const p of plan.inputs) {
    const refusal = realTimeRefusal(p.source);
    if (refusal !== null) throw new RealTimeModeError("INPUT_STREAM_NOT_SUPPORTED", `Real-time mode cannot read its input: ${refusal}`);
  }
  const read = plan.inputs.map((p) => p.sourceIndex);
  if (new Set(read).size !== read.length) {
    throw new RealTimeModeError(
      "IDENTICAL_SOURCES_IN_UNION_NOT_SUPPORTED",
      "The query reads the same streaming source more than once (a union of a DataFrame with itself, or with another query of the same readStream); " +
        "real-time mode reads each source's partitions in one task each: create a separate readStream for each input of the union",
    );
  }
  const unsupported = [...new Set([...plan.inputs.flatMap((p) => p.operators), ...driverOperators(plan)].flatMap(refusedOperator))];
  if (!driverIsUnionOfPipelines(plan.driver) && unsupported.length === 0) unsupported.push("an operator that needs the rows of every task in one place");
  if (unsupported.length > 0) {
    throw new RealTimeModeError(
      "OPERATOR_OR_SINK_NOT_IN_ALLOWLIST",
      `The operator${unsupported.length > 1 ? "s" : ""} ${unsupported.join(", ")} ${unsupported.length > 1 ? "are" : "is"} not in the operator allowlist for real-time mode, ` +
        "which runs stateless queries only (select, filter, explode, UDFs, unions, stream-static joins, withWatermark); run this query with a micro-batch trigger",
    );
  }
  if (!REAL_TIME_SINKS.has(writer.sink.kind)) {
    throw new RealTimeModeError(
      "SINK_NOT_SUPPORTED",
      `The ${writer.sink.kind} sink is not supported in real-time mode, which writes each record as it is processed: write to Kafka (or, while developing, to the memory or console sink, which show each batch when it ends)`,
    );
  }
  if (writer.sink.kind === "kafka" && writer.sink.transactional) {
    throw new RealTimeModeError(
      "SINK_NOT_SUPPORTED",
      'The Kafka sink\'s exactly-once mode (exactlyOnce / kafka.transactional.id.prefix) is not supported in real-time mode: records are written as they arrive, not in one transaction per batch, ' +
        "and the output is at-least-once (records after the last checkpoint may be written again after a failure); remove the option",
    );
  }
}

/** The user's name for an operator real-time mode cannot run, or none when it can. */
function refusedOperator(op: OperatorSpec): string[] {
  switch (op.op) {
    case "filter":
    case "project":
    case "generate":
    case "observeEventTime":
    case "joinStatic":
      return [];
    case "partialAggregate":
    case "finalAggregate":
      return ["streaming aggregation (groupBy().agg())"];
    case "sessionMerge":
      return ["session window aggregation"];
    case "deduplicate":
      return [op.withinWatermarkDelayMs === null ? "dropDuplicates" : "dropDuplicatesWithinWatermark"];
    case "streamJoin":
      return ["stream-stream join"];
    case "transformWithState":
      return ["transformWithState"];
    case "sort":
      return ["sort"];
    case "limit":
      return ["limit"];
  }
}

/** Whether the driver only concatenates the pipelines' outputs: nothing runs there but the union. */
function driverIsUnionOfPipelines(node: DriverNode): boolean {
  switch (node.kind) {
    case "pipelines":
      return true;
    case "union":
      return node.inputs.every(driverIsUnionOfPipelines);
    case "operators":
      return node.operators.length === 0 && driverIsUnionOfPipelines(node.input);
    case "join":
      return false;
  }
}
