import type { Sink } from "../sinks/sink.js";
import type { Offset, StreamSource } from "../sources/source.js";
import type { PipelineOutput } from "./batch-runner.js";
import type { BatchSizingProgress } from "./batch-sizer.js";
import { isoOrUndefined, rate, type StateOperatorProgress, type StreamingQueryProgress } from "./progress.js";

export interface BatchTimings {
  triggerStart: number;
  triggerEnd?: number;
  latestOffset?: number;
  walCommit?: number;
  getBatch?: number;
  addBatch?: number;
  commitOffsets?: number;
}

export interface ProgressInput {
  readonly id: string;
  readonly runId: string;
  readonly name: string | null;
  readonly batchId: number;
  readonly timings: BatchTimings;
  readonly out: PipelineOutput;
  readonly sources: readonly StreamSource[];
  readonly startOffsets: readonly Offset[];
  readonly endOffsets: readonly Offset[];
  readonly latestOffsets: readonly Offset[];
  /** Watermark the batch ran with; null when the query has no watermark. */
  readonly watermarkMs: number | null;
  readonly stateOperators: readonly StateOperatorProgress[];
  readonly sink: Sink;
  readonly numOutputRows: number;
  /** The sizing a latencyTarget trigger chose for this batch. */
  readonly batchSizing?: BatchSizingProgress;
}

/** Assembles one batch's `StreamingQueryProgress` from what the loop measured. */
export function buildProgress(p: ProgressInput): StreamingQueryProgress {
  const duration = (p.timings.triggerEnd ?? p.timings.triggerStart) - p.timings.triggerStart;
  const numInputRows = p.out.perInput.reduce((n, f) => n + f.numInputRows, 0);
  const { latestOffset, walCommit, getBatch, addBatch, commitOffsets } = p.timings;
  const stats = p.out.eventTime.filter((s) => s !== null);
  const min = stats.length ? Math.min(...stats.map((s) => s.min)) : null;
  const max = stats.length ? Math.max(...stats.map((s) => s.max)) : null;
  const count = stats.reduce((n, s) => n + s.count, 0);
  const avg = count ? stats.reduce((n, s) => n + s.sum, 0) / count : null;
  const eventTime: Record<string, string> = {};
  for (const [k, v] of [
    ["avg", avg],
    ["max", max],
    ["min", min],
    ["watermark", p.watermarkMs],
  ] as const) {
    const iso = isoOrUndefined(v);
    if (iso) eventTime[k] = iso;
  }
  // Several pipelines may read one source (a self-union); progress reports per source.
  const perSource = p.sources.map((source, i) => {
    const figures = p.out.perInput[i] ?? { numInputRows: 0, numMalformedRecords: 0 };
    return {
      description: source.description,
      startOffset: p.startOffsets[i],
      endOffset: p.endOffsets[i],
      latestOffset: p.latestOffsets[i],
      numInputRows: figures.numInputRows,
      inputRowsPerSecond: rate(figures.numInputRows, duration),
      processedRowsPerSecond: rate(figures.numInputRows, duration),
      metrics: { ...(source.metrics?.(p.endOffsets[i]) ?? {}), numMalformedRecords: String(figures.numMalformedRecords) },
    };
  });
  return {
    id: p.id,
    runId: p.runId,
    name: p.name,
    timestamp: new Date(p.timings.triggerStart).toISOString(),
    batchId: p.batchId,
    batchDuration: duration,
    numInputRows,
    inputRowsPerSecond: rate(numInputRows, duration),
    processedRowsPerSecond: rate(numInputRows, duration),
    durationMs: strip({ latestOffset, walCommit, getBatch, addBatch, commitOffsets, triggerExecution: duration }),
    eventTime,
    stateOperators: p.stateOperators,
    sources: perSource,
    sink: { description: p.sink.description, numOutputRows: p.numOutputRows, metrics: {} },
    observedMetrics: {},
    ...(p.batchSizing ? { batchSizing: p.batchSizing } : {}),
  };
}

function strip<T extends Record<string, number | undefined>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
