import type { Counter, Gauge, Registry } from "prom-client";
import type { QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent, StreamingQueryListener } from "../runtime/listener.js";
import type { StreamingQueryProgress } from "../runtime/progress.js";
import { metricFamilies, type MetricFamilies } from "./metric-families.js";
import { offsetsBehindLatest } from "./offsets-behind-latest.js";
import { promClient } from "./prom-client.js";

type Labels = Record<string, string>;
type Series = { readonly metric: Gauge<string> | Counter<string>; readonly labels: Labels };

/**
 * The session's queries in Prometheus form: a listener that sets, at every progress report, one
 * series per figure of that report, labelled by query name, id and run id. A run's series are the
 * figures of its latest report only (one a phase or operator no longer reports is removed), and
 * all of them go when the run ends, so a scrape stays as large as the running queries.
 */
export class ProgressMetrics implements StreamingQueryListener {
  /** The session's own registry: never prom-client's global one, so sessions do not mix. */
  readonly registry: Registry = new (promClient().Registry)();
  private readonly m: MetricFamilies = metricFamilies(this.registry);
  private readonly runs = new Map<string, Map<string, Series>>();
  private readonly active = new Set<string>();

  /** The exposition text of every series, as a scrape of `/metrics` returns it. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onQueryStarted(e: QueryStartedEvent): void {
    this.active.add(e.runId);
    this.m.queriesActive.set(this.active.size);
  }

  onQueryProgress({ progress: p }: QueryProgressEvent): void {
    const q: Labels = { query_name: p.name ?? "", query_id: p.id, run_id: p.runId };
    const next = new Map<string, Series>();
    const put = (metric: Gauge<string>, labels: Labels, value: number | undefined) => {
      if (value === undefined || !Number.isFinite(value)) return;
      metric.set(labels, value);
      next.set(seriesKey(metric, labels), { metric, labels });
    };
    this.putQueryFigures(p, q, put);
    this.putStateFigures(p, q, put);
    this.putSourceAndSinkFigures(p, q, put);
    for (const [observation, row] of Object.entries(p.observedMetrics)) {
      if (row === null || typeof row !== "object") continue;
      for (const [metric, v] of Object.entries(row)) put(this.m.observedMetric, { ...q, observation, metric }, numberOf(v));
    }
    this.m.inputRowsTotal.inc(q, p.numInputRows);
    this.m.batchesTotal.inc(q);
    next.set(seriesKey(this.m.inputRowsTotal, q), { metric: this.m.inputRowsTotal, labels: q });
    next.set(seriesKey(this.m.batchesTotal, q), { metric: this.m.batchesTotal, labels: q });
    for (const [key, s] of this.runs.get(p.runId) ?? []) if (!next.has(key)) s.metric.remove(s.labels);
    this.runs.set(p.runId, next);
  }

  onQueryTerminated(e: QueryTerminatedEvent): void {
    for (const s of this.runs.get(e.runId)?.values() ?? []) s.metric.remove(s.labels);
    this.runs.delete(e.runId);
    this.active.delete(e.runId);
    this.m.queriesActive.set(this.active.size);
  }

  private putQueryFigures(p: StreamingQueryProgress, q: Labels, put: Put): void {
    put(this.m.batchId, q, p.batchId);
    put(this.m.numInputRows, q, p.numInputRows);
    put(this.m.inputRowsPerSecond, q, p.inputRowsPerSecond);
    put(this.m.processedRowsPerSecond, q, p.processedRowsPerSecond);
    put(this.m.batchDurationMs, q, p.batchDuration);
    for (const [phase, ms] of Object.entries(p.durationMs)) put(this.m.durationMs, { ...q, phase }, ms);
    put(this.m.watermarkSeconds, q, secondsOf(p.eventTime.watermark));
    for (const stat of ["min", "max", "avg"] as const) put(this.m.eventTimeSeconds, { ...q, stat }, secondsOf(p.eventTime[stat]));
  }

  private putStateFigures(p: StreamingQueryProgress, q: Labels, put: Put): void {
    p.stateOperators.forEach((s, i) => {
      const o = { ...q, operator: s.operatorName, operator_index: String(i) };
      put(this.m.stateRowsTotal, o, s.numRowsTotal);
      put(this.m.stateRowsUpdated, o, s.numRowsUpdated);
      put(this.m.stateRowsRemoved, o, s.numRowsRemoved);
      put(this.m.stateAllUpdatesTimeMs, o, s.allUpdatesTimeMs);
      put(this.m.stateAllRemovalsTimeMs, o, s.allRemovalsTimeMs);
      put(this.m.stateCommitTimeMs, o, s.commitTimeMs);
      put(this.m.stateMemoryUsedBytes, o, s.memoryUsedBytes);
      put(this.m.stateRowsDroppedByWatermark, o, s.numRowsDroppedByWatermark);
      put(this.m.stateShufflePartitions, o, s.numShufflePartitions);
      put(this.m.stateStoreInstances, o, s.numStateStoreInstances);
      for (const [metric, v] of Object.entries(s.customMetrics)) put(this.m.stateCustomMetric, { ...o, metric }, v);
    });
  }

  private putSourceAndSinkFigures(p: StreamingQueryProgress, q: Labels, put: Put): void {
    p.sources.forEach((s, i) => {
      const src = { ...q, source: s.description, source_index: String(i) };
      put(this.m.sourceInputRows, src, s.numInputRows);
      put(this.m.sourceInputRowsPerSecond, src, s.inputRowsPerSecond);
      put(this.m.sourceProcessedRowsPerSecond, src, s.processedRowsPerSecond);
      for (const [metric, v] of Object.entries(s.metrics)) put(this.m.sourceMetric, { ...src, metric }, numberOf(v));
      for (const lag of offsetsBehindLatest(s)) put(this.m.sourceOffsetsBehindLatest, { ...src, topic: lag.topic, partition: lag.partition }, lag.behind);
    });
    const sink = { ...q, sink: p.sink.description };
    put(this.m.sinkOutputRows, sink, p.sink.numOutputRows);
    for (const [metric, v] of Object.entries(p.sink.metrics)) put(this.m.sinkMetric, { ...sink, metric }, numberOf(v));
  }
}

type Put = (metric: Gauge<string>, labels: Labels, value: number | undefined) => void;

function seriesKey(metric: Gauge<string> | Counter<string>, labels: Labels): string {
  return `${(metric as unknown as { name: string }).name}${JSON.stringify(labels)}`;
}

function secondsOf(iso: string | undefined): number | undefined {
  return iso === undefined ? undefined : Date.parse(iso) / 1000;
}

/** Spark's source and sink metrics are strings; those that hold a number become series. */
function numberOf(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}
