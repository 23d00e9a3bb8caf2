import type { Gauge, Registry } from "prom-client";
import type { QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent, StreamingQueryListener } from "../runtime/listener.js";
import type { StreamingQueryProgress } from "../runtime/progress.js";
import { metricFamilies, type MetricFamilies } from "./metric-families.js";
import { offsetsBehindLatest } from "./offsets-behind-latest.js";
import { promClient } from "./prom-client.js";

type Labels = Record<string, string>;

/** What the exporter keeps of a run between scrapes: its latest report and the totals of all of them. */
interface RunFigures {
  latest: StreamingQueryProgress;
  inputRows: number;
  batches: number;
}

/**
 * The session's queries in Prometheus form. As a listener it only keeps each running query's
 * latest progress report and two totals (constant work inside the batch loop); a scrape then sets
 * one series per figure of those reports, labelled by query name, id and run id. Series are rebuilt
 * at every scrape, so a phase or operator a run no longer reports is gone, and so is every series
 * of a run that ended: a scrape stays as large as the running queries.
 */
export class ProgressMetrics implements StreamingQueryListener {
  /** The session's own registry: never prom-client's global one, so sessions do not mix. */
  readonly registry: Registry = new (promClient().Registry)();
  private readonly m: MetricFamilies = metricFamilies(this.registry);
  private readonly runs = new Map<string, RunFigures>();
  private readonly active = new Set<string>();

  private scrapes: Promise<unknown> = Promise.resolve();

  /**
   * The exposition text of every series, as a scrape of `/metrics` returns it. Scrapes run one
   * after another: the registry's output is collected asynchronously, and a second scrape's
   * rebuild must not empty it halfway.
   */
  scrape(): Promise<string> {
    const next = this.scrapes.then(() => {
      this.registry.resetMetrics();
      this.m.queriesActive.set(this.active.size);
      for (const run of this.runs.values()) this.put(run);
      return this.registry.metrics();
    });
    this.scrapes = next.catch(() => undefined);
    return next;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onQueryStarted(e: QueryStartedEvent): void {
    this.active.add(e.runId);
  }

  onQueryProgress({ progress }: QueryProgressEvent): void {
    const run = this.runs.get(progress.runId);
    if (run) {
      run.latest = progress;
      run.inputRows += progress.numInputRows;
      run.batches++;
    } else {
      this.runs.set(progress.runId, { latest: progress, inputRows: progress.numInputRows, batches: 1 });
    }
  }

  onQueryTerminated(e: QueryTerminatedEvent): void {
    this.runs.delete(e.runId);
    this.active.delete(e.runId);
  }

  private put({ latest: p, inputRows, batches }: RunFigures): void {
    const q: Labels = { query_name: p.name ?? "", query_id: p.id, run_id: p.runId };
    const put: Put = (metric, labels, value) => {
      if (value !== undefined && Number.isFinite(value)) metric.set(labels, value);
    };
    this.putQueryFigures(p, q, put);
    this.putStateFigures(p, q, put);
    this.putSourceAndSinkFigures(p, q, put);
    for (const [observation, row] of Object.entries(p.observedMetrics)) {
      if (row === null || typeof row !== "object") continue;
      for (const [metric, v] of Object.entries(row)) put(this.m.observedMetric, { ...q, observation, metric }, numberOf(v));
    }
    this.m.inputRowsTotal.inc(q, inputRows);
    this.m.batchesTotal.inc(q, batches);
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
