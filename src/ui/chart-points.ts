import { offsetsBehindLatest } from "../metrics/offsets-behind-latest.js";
import type { StreamingQueryProgress } from "../runtime/progress.js";

/** The phases of `durationMs` the operation-duration chart splits a trigger into (triggerExecution is their whole). */
export const DURATION_PHASES = ["latestOffset", "queryPlanning", "walCommit", "getBatch", "addBatch", "commitOffsets"] as const;

/** A chart of the query page: which figures of a point it draws, one line each. */
export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  /** The figures drawn, by their key in `ChartPoint.values`. */
  readonly series: readonly string[];
  /** Figures whose keys start with this are drawn too, one line each, as they appear (Kafka partitions). */
  readonly seriesPrefix?: string;
}

const LAG_PREFIX = "offsetsBehindLatest ";

/** Spark's charts of a streaming query's statistics page, in its order, and the Kafka partitions' lag. */
export const CHARTS: readonly ChartSpec[] = [
  { id: "input-rate", title: "Input Rate", unit: "records/sec", series: ["inputRowsPerSecond"] },
  { id: "process-rate", title: "Process Rate", unit: "records/sec", series: ["processedRowsPerSecond"] },
  { id: "input-rows", title: "Input Rows", unit: "records", series: ["numInputRows"] },
  { id: "batch-duration", title: "Batch Duration", unit: "ms", series: ["batchDuration"] },
  { id: "operation-duration", title: "Operation Duration", unit: "ms", series: DURATION_PHASES.map((p) => `durationMs ${p}`) },
  { id: "watermark-gap", title: "Global Watermark Gap", unit: "seconds", series: ["watermarkGapSeconds"] },
  {
    id: "state-rows",
    title: "Aggregated Number Of State Rows",
    unit: "records",
    series: ["stateRowsTotal", "stateRowsUpdated", "stateRowsRemoved"],
  },
  { id: "state-memory", title: "Aggregated State Memory Used In Bytes", unit: "bytes", series: ["stateMemoryUsedBytes"] },
  { id: "dropped-by-watermark", title: "Aggregated Number Of Rows Dropped By Watermark", unit: "records", series: ["numRowsDroppedByWatermark"] },
  { id: "offsets-behind-latest", title: "Offsets Behind Latest, per Kafka Partition", unit: "offsets", series: [], seriesPrefix: LAG_PREFIX },
];

/** One batch's figures, as the query page's charts and batch table draw them. */
export interface ChartPoint {
  readonly batchId: number;
  readonly timestamp: string;
  /** The x of every chart: the batch's timestamp in seconds since the epoch (uPlot's time scale). */
  readonly t: number;
  /** Absent keys have no value for this batch (no watermark yet, no state operator, not a Kafka source). */
  readonly values: Readonly<Record<string, number>>;
}

/**
 * A progress report's figures for the charts. The watermark gap is Spark's: the batch's time minus
 * the global watermark, in seconds, once a watermark is set; state figures are summed over the
 * stateful operators, as Spark's "aggregated" charts are.
 */
export function chartPoint(p: StreamingQueryProgress): ChartPoint {
  const t = Date.parse(p.timestamp);
  const values: Record<string, number> = {
    inputRowsPerSecond: p.inputRowsPerSecond,
    processedRowsPerSecond: p.processedRowsPerSecond,
    numInputRows: p.numInputRows,
    batchDuration: p.batchDuration,
  };
  for (const phase of DURATION_PHASES) {
    const ms = p.durationMs[phase];
    if (ms !== undefined) values[`durationMs ${phase}`] = ms;
  }
  const watermark = p.eventTime.watermark === undefined ? 0 : Date.parse(p.eventTime.watermark);
  if (watermark > 0) values.watermarkGapSeconds = (t - watermark) / 1000;
  if (p.stateOperators.length > 0) {
    const sum = (pick: (s: StreamingQueryProgress["stateOperators"][number]) => number) => p.stateOperators.reduce((a, s) => a + pick(s), 0);
    values.stateRowsTotal = sum((s) => s.numRowsTotal);
    values.stateRowsUpdated = sum((s) => s.numRowsUpdated);
    values.stateRowsRemoved = sum((s) => s.numRowsRemoved);
    values.stateMemoryUsedBytes = sum((s) => s.memoryUsedBytes);
    values.numRowsDroppedByWatermark = sum((s) => s.numRowsDroppedByWatermark);
  }
  for (const source of p.sources) {
    for (const lag of offsetsBehindLatest(source)) values[`${LAG_PREFIX}${lag.topic}-${lag.partition}`] = lag.behind;
  }
  return { batchId: p.batchId, timestamp: p.timestamp, t: t / 1000, values };
}
