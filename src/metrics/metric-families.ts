import type { Registry } from "prom-client";
import { promClient } from "./prom-client.js";

/** The labels every query series carries. */
export const QUERY_LABELS = ["query_name", "query_id", "run_id"] as const;
const OPERATOR = [...QUERY_LABELS, "operator", "operator_index"] as const;
const SOURCE = [...QUERY_LABELS, "source", "source_index"] as const;
const SINK = [...QUERY_LABELS, "sink"] as const;

/** The prefix of every metric Sluice exports. */
export const PREFIX = "sluice_streaming_";

/**
 * Every metric family of a query's progress, named after the StreamingQueryProgress field it
 * carries (snake case, with the unit Prometheus conventions ask for), in a session's own registry.
 */
export function metricFamilies(registry: Registry) {
  const { Counter, Gauge } = promClient();
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name: PREFIX + name, help, labelNames, registers: [registry] });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name: PREFIX + name, help, labelNames, registers: [registry] });
  return {
    queriesActive: new Gauge({ name: `${PREFIX}queries_active`, help: "Streaming queries running in the session.", registers: [registry] }),
    batchId: gauge("batch_id", "batchId of the latest progress report.", QUERY_LABELS),
    numInputRows: gauge("num_input_rows", "numInputRows: rows read by the latest batch.", QUERY_LABELS),
    inputRowsPerSecond: gauge("input_rows_per_second", "inputRowsPerSecond: rows arriving per second (Spark's inputRate-total).", QUERY_LABELS),
    processedRowsPerSecond: gauge(
      "processed_rows_per_second",
      "processedRowsPerSecond: rows processed per second (Spark's processingRate-total).",
      QUERY_LABELS,
    ),
    batchDurationMs: gauge("batch_duration_ms", "batchDuration: milliseconds the latest batch took.", QUERY_LABELS),
    durationMs: gauge("duration_ms", "durationMs: milliseconds of each phase of the latest trigger (triggerExecution is Spark's latency).", [
      ...QUERY_LABELS,
      "phase",
    ]),
    watermarkSeconds: gauge("event_time_watermark_seconds", "eventTime.watermark in seconds since the epoch (Spark's eventTime-watermark).", QUERY_LABELS),
    eventTimeSeconds: gauge("event_time_seconds", "eventTime.min, max and avg of the latest batch, seconds since the epoch.", [...QUERY_LABELS, "stat"]),
    stateRowsTotal: gauge("state_num_rows_total", "stateOperators[].numRowsTotal (Spark's states-rowsTotal, summed there).", OPERATOR),
    stateRowsUpdated: gauge("state_num_rows_updated", "stateOperators[].numRowsUpdated.", OPERATOR),
    stateRowsRemoved: gauge("state_num_rows_removed", "stateOperators[].numRowsRemoved.", OPERATOR),
    stateAllUpdatesTimeMs: gauge("state_all_updates_time_ms", "stateOperators[].allUpdatesTimeMs.", OPERATOR),
    stateAllRemovalsTimeMs: gauge("state_all_removals_time_ms", "stateOperators[].allRemovalsTimeMs.", OPERATOR),
    stateCommitTimeMs: gauge("state_commit_time_ms", "stateOperators[].commitTimeMs.", OPERATOR),
    stateMemoryUsedBytes: gauge("state_memory_used_bytes", "stateOperators[].memoryUsedBytes (Spark's states-usedBytes, summed there).", OPERATOR),
    stateRowsDroppedByWatermark: gauge("state_num_rows_dropped_by_watermark", "stateOperators[].numRowsDroppedByWatermark.", OPERATOR),
    stateShufflePartitions: gauge("state_num_shuffle_partitions", "stateOperators[].numShufflePartitions.", OPERATOR),
    stateStoreInstances: gauge("state_num_state_store_instances", "stateOperators[].numStateStoreInstances.", OPERATOR),
    stateCustomMetric: gauge("state_custom_metric", "stateOperators[].customMetrics, by metric name.", [...OPERATOR, "metric"]),
    sourceInputRows: gauge("source_num_input_rows", "sources[].numInputRows.", SOURCE),
    sourceInputRowsPerSecond: gauge("source_input_rows_per_second", "sources[].inputRowsPerSecond.", SOURCE),
    sourceProcessedRowsPerSecond: gauge("source_processed_rows_per_second", "sources[].processedRowsPerSecond.", SOURCE),
    sourceMetric: gauge("source_metric", "sources[].metrics with a numeric value, by metric name.", [...SOURCE, "metric"]),
    sourceOffsetsBehindLatest: gauge(
      "source_offsets_behind_latest",
      "sources[].latestOffset minus endOffset per Kafka topic and partition: records not yet read.",
      [...SOURCE, "topic", "partition"],
    ),
    sinkOutputRows: gauge("sink_num_output_rows", "sink.numOutputRows: rows written by the latest batch.", SINK),
    sinkMetric: gauge("sink_metric", "sink.metrics with a numeric value, by metric name.", [...SINK, "metric"]),
    observedMetric: gauge("observed_metric", "observedMetrics: each numeric field of each observation.", [...QUERY_LABELS, "observation", "metric"]),
    inputRowsTotal: counter("input_rows_total", "Rows read by the run, over every batch reported.", QUERY_LABELS),
    batchesTotal: counter("batches_total", "Progress reports (batches) of the run.", QUERY_LABELS),
  };
}
export type MetricFamilies = ReturnType<typeof metricFamilies>;
