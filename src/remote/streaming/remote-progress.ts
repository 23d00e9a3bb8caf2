import type {
  DurationMs,
  EventTimeProgress,
  SinkProgress,
  SourceProgress,
  StateOperatorProgress,
  StreamingQueryProgress,
} from "../../runtime/progress.js";

/** A JSON object as Spark's progress events hold it. */
type Json = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const obj = (v: unknown): Json => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

function numbers(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(obj(v))) out[k] = num(x);
  return out;
}

function strings(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(obj(v))) out[k] = typeof x === "string" ? x : JSON.stringify(x);
  return out;
}

function source(s: Json): SourceProgress {
  return {
    description: str(s["description"]),
    startOffset: s["startOffset"] ?? null,
    endOffset: s["endOffset"] ?? null,
    latestOffset: s["latestOffset"] ?? null,
    numInputRows: num(s["numInputRows"]),
    inputRowsPerSecond: num(s["inputRowsPerSecond"]),
    processedRowsPerSecond: num(s["processedRowsPerSecond"]),
    metrics: strings(s["metrics"]),
  };
}

function stateOperator(o: Json): StateOperatorProgress {
  return {
    operatorName: str(o["operatorName"]),
    numRowsTotal: num(o["numRowsTotal"]),
    numRowsUpdated: num(o["numRowsUpdated"]),
    numRowsRemoved: num(o["numRowsRemoved"]),
    allUpdatesTimeMs: num(o["allUpdatesTimeMs"]),
    allRemovalsTimeMs: num(o["allRemovalsTimeMs"]),
    commitTimeMs: num(o["commitTimeMs"]),
    memoryUsedBytes: num(o["memoryUsedBytes"]),
    numRowsDroppedByWatermark: num(o["numRowsDroppedByWatermark"]),
    numShufflePartitions: num(o["numShufflePartitions"]),
    numStateStoreInstances: num(o["numStateStoreInstances"]),
    customMetrics: numbers(o["customMetrics"]),
  };
}

/**
 * A progress report of a query on a Spark Connect server (Spark's StreamingQueryProgress, parsed
 * from its JSON) as the embedded engine's `StreamingQueryProgress`: the same fields, so
 * code that reads progress runs against both. Spark leaves out rates it cannot compute (NaN) and,
 * over Spark Connect, the query-wide input figures: those are the sums over the sources, as
 * Spark defines them.
 */
export function progressFromSpark(p: Json): StreamingQueryProgress {
  const sources = arr(p["sources"]).map(source);
  const sum = (k: "numInputRows" | "inputRowsPerSecond" | "processedRowsPerSecond") => sources.reduce((t, s) => t + s[k], 0);
  const durationMs = numbers(p["durationMs"]) as unknown as DurationMs;
  const eventTime = strings(p["eventTime"]) as EventTimeProgress;
  const sink = obj(p["sink"]);
  const sinkProgress: SinkProgress = { description: str(sink["description"]), numOutputRows: num(sink["numOutputRows"] ?? -1), metrics: strings(sink["metrics"]) };
  return {
    id: str(p["id"]),
    runId: str(p["runId"]),
    name: typeof p["name"] === "string" ? p["name"] : null,
    timestamp: str(p["timestamp"]),
    batchId: num(p["batchId"]),
    batchDuration: num(p["batchDuration"]),
    numInputRows: p["numInputRows"] === undefined ? sum("numInputRows") : num(p["numInputRows"]),
    inputRowsPerSecond: p["inputRowsPerSecond"] === undefined ? sum("inputRowsPerSecond") : num(p["inputRowsPerSecond"]),
    processedRowsPerSecond: p["processedRowsPerSecond"] === undefined ? sum("processedRowsPerSecond") : num(p["processedRowsPerSecond"]),
    durationMs: { ...durationMs, triggerExecution: num(durationMs.triggerExecution) },
    eventTime,
    stateOperators: arr(p["stateOperators"]).map(stateOperator),
    sources,
    sink: sinkProgress,
    observedMetrics: obj(p["observedMetrics"]),
  };
}
