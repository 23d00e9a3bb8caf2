import { describe, expect, it } from "vitest";
import { at } from "../testing/fixtures.js";
import { kafkaProgress, startClickCounts, withUiSession } from "../ui/test-support.js";
import { offsetsBehindLatest } from "./offsets-behind-latest.js";
import { ProgressMetrics } from "./progress-metrics.js";

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Prometheus's text exposition format, read back: one sample per line that is not a comment. */
function parseExposition(text: string): Sample[] {
  return text
    .split("\n")
    .filter((l) => l && !l.startsWith("#"))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not an exposition line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, k, v] of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!.replace(/\\(.)/g, "$1");
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

/** The value of the one sample with this name and these labels (among others). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

describe("/metrics", () => {
  it("carries every figure of a query's last progress, named after Spark's fields and labelled by query name, id and run id", () =>
    // No batch without data: the last report is the third batch's, with event times and a row dropped as late.
    withUiSession({ ui: { port: 0 }, conf: { "spark.sql.streaming.noDataMicroBatches.enabled": false } }, async (session) => {
      const { clicks, query } = startClickCounts(session, "scraped");
      clicks.addData({ page: "/a", time: at("10:00", 10) }, { page: "/b", time: at("10:00", 30) });
      await query.processAllAvailable();
      clicks.addData({ page: "/a", time: at("10:03") });
      await query.processAllAvailable();
      clicks.addData({ page: "/b", time: at("10:03", 5) }, { page: "/a", time: at("09:00") });
      await query.processAllAvailable();
      const p = query.lastProgress!;
      const samples = parseExposition(await (await fetch(session.metricsUrl!)).text());
      const q = { query_name: "scraped", query_id: query.id, run_id: query.runId };
      const get = (name: string, labels: Record<string, string> = {}) => valueOf(samples, `sluice_streaming_${name}`, { ...q, ...labels });

      expect(valueOf(samples, "sluice_streaming_queries_active")).toBe(1);
      expect(get("batch_id")).toBe(p.batchId);
      expect(get("num_input_rows")).toBe(p.numInputRows);
      expect(get("input_rows_per_second")).toBe(p.inputRowsPerSecond);
      expect(get("processed_rows_per_second")).toBe(p.processedRowsPerSecond);
      expect(get("batch_duration_ms")).toBe(p.batchDuration);
      for (const [phase, ms] of Object.entries(p.durationMs)) expect(get("duration_ms", { phase })).toBe(ms);
      expect(get("event_time_watermark_seconds")).toBe(Date.parse(p.eventTime.watermark!) / 1000);
      for (const stat of ["min", "max", "avg"] as const) expect(get("event_time_seconds", { stat })).toBe(Date.parse(p.eventTime[stat]!) / 1000);

      const state = p.stateOperators[0]!;
      const op = { operator: state.operatorName, operator_index: "0" };
      expect(get("state_num_rows_total", op)).toBe(state.numRowsTotal);
      expect(get("state_num_rows_updated", op)).toBe(state.numRowsUpdated);
      expect(get("state_num_rows_removed", op)).toBe(state.numRowsRemoved);
      expect(get("state_memory_used_bytes", op)).toBe(state.memoryUsedBytes);
      expect(get("state_num_rows_dropped_by_watermark", op)).toBe(state.numRowsDroppedByWatermark);
      expect(state.numRowsDroppedByWatermark).toBe(1);
      expect(get("state_commit_time_ms", op)).toBe(state.commitTimeMs);
      expect(get("state_num_shuffle_partitions", op)).toBe(state.numShufflePartitions);
      expect(get("state_num_state_store_instances", op)).toBe(state.numStateStoreInstances);
      for (const [metric, v] of Object.entries(state.customMetrics)) expect(get("state_custom_metric", { ...op, metric })).toBe(v);

      const source = p.sources[0]!;
      const src = { source: source.description, source_index: "0" };
      expect(get("source_num_input_rows", src)).toBe(source.numInputRows);
      expect(get("source_input_rows_per_second", src)).toBe(source.inputRowsPerSecond);
      expect(get("source_processed_rows_per_second", src)).toBe(source.processedRowsPerSecond);
      expect(get("sink_num_output_rows", { sink: p.sink.description })).toBe(p.sink.numOutputRows);

      const all = query.recentProgress;
      expect(get("input_rows_total")).toBe(all.reduce((n, r) => n + r.numInputRows, 0));
      expect(get("batches_total")).toBe(all.length);
      // Every series of the run carries its three labels.
      for (const s of samples.filter((s) => s.name !== "sluice_streaming_queries_active")) expect(s.labels).toMatchObject(q);
    }));

  it("drops a run's series when it ends, so scrapes stay as large as the running queries", () =>
    withUiSession({ ui: { port: 0 } }, async (session) => {
      const { clicks, query } = startClickCounts(session, "ending");
      clicks.addData({ page: "/a", time: at("10:00") });
      await query.processAllAvailable();
      await query.stop();
      const samples = parseExposition(await (await fetch(session.metricsUrl!)).text());
      expect(samples).toEqual([{ name: "sluice_streaming_queries_active", labels: {}, value: 0 }]);
    }));
});

describe("offsets behind latest", () => {
  it("is latestOffset minus endOffset per topic and partition, for sources with Kafka's offsets only", () => {
    const p = kafkaProgress({ orders: { "0": 10, "1": 7 } }, { orders: { "0": 12, "1": 7, "2": 4 } });
    expect(offsetsBehindLatest(p.sources[0]!)).toEqual([
      { topic: "orders", partition: "0", behind: 2 },
      { topic: "orders", partition: "1", behind: 0 },
    ]);
    expect(offsetsBehindLatest({ ...p.sources[0]!, endOffset: 4, latestOffset: 6 })).toEqual([]);
  });

  it("becomes one series per partition, beside the source's numeric metrics and the observed metrics", async () => {
    const metrics = new ProgressMetrics();
    metrics.onQueryProgress({ progress: kafkaProgress({ orders: { "0": 10, "1": 7 } }, { orders: { "0": 12, "1": 9 } }) });
    const samples = parseExposition(await metrics.scrape());
    const src = { query_name: "orders", query_id: "q", run_id: "r", source: "KafkaV2[Subscribe[orders]]", source_index: "0" };
    expect(valueOf(samples, "sluice_streaming_source_offsets_behind_latest", { ...src, partition: "0" })).toBe(2);
    expect(valueOf(samples, "sluice_streaming_source_offsets_behind_latest", { ...src, partition: "1" })).toBe(2);
    expect(valueOf(samples, "sluice_streaming_source_metric", { ...src, metric: "avgOffsetsBehindLatest" })).toBe(3);
    expect(valueOf(samples, "sluice_streaming_source_metric", { ...src, metric: "maxOffsetsBehindLatest" })).toBe(4);
    expect(valueOf(samples, "sluice_streaming_source_metric", { ...src, metric: "note" })).toBeUndefined();
    expect(valueOf(samples, "sluice_streaming_observed_metric", { observation: "checks", metric: "rows" })).toBe(5);
    // A phase, partition or metric the next report lacks is gone from the next scrape.
    metrics.onQueryProgress({ progress: kafkaProgress({ orders: { "0": 12 } }, { orders: { "0": 12 } }) });
    const next = parseExposition(await metrics.scrape());
    expect(next.filter((s) => s.name === "sluice_streaming_source_offsets_behind_latest").map((s) => [s.labels.partition, s.value])).toEqual([["0", 0]]);
  });
});
