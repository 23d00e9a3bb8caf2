import { describe, expect, it } from "vitest";
import { progressFromSpark } from "./remote-progress.js";

// A progress report as a Spark 4.2 Connect server's listener bus sends it: no query-wide input figures
// (only per source), a rate Spark could not compute left out, and a sink that does not count its rows (-1).
const spark = {
  id: "5b0b0b6e-0d4b-4f39-a3c2-1f1f0c6c9a01",
  runId: "a4b1d8f2-57a0-4b7f-8c1f-d2c0d0b6e7a2",
  name: "counts",
  timestamp: "2026-12-02T11:11:23.942Z",
  batchId: 3,
  batchDuration: 412,
  durationMs: { addBatch: 301, commitOffsets: 20, getBatch: 0, latestOffset: 1, queryPlanning: 35, triggerExecution: 412, walCommit: 25 },
  eventTime: { avg: "2026-12-02T11:11:23.467Z", max: "2026-12-02T11:11:23.942Z", min: "2026-12-02T11:11:22.992Z", watermark: "2026-12-02T11:11:21.942Z" },
  stateOperators: [
    {
      operatorName: "stateStoreSave",
      numRowsTotal: 4,
      numRowsUpdated: 2,
      allUpdatesTimeMs: 12,
      numRowsRemoved: 1,
      allRemovalsTimeMs: 3,
      commitTimeMs: 40,
      memoryUsedBytes: 91_200,
      numRowsDroppedByWatermark: 5,
      numShufflePartitions: 2,
      numStateStoreInstances: 2,
      customMetrics: { loadedMapCacheHitCount: 4, stateOnCurrentVersionSizeBytes: 1_000 },
    },
  ],
  sources: [
    { description: "RateStreamV2[rowsPerSecond=10, rampUpTimeSeconds=0, numPartitions=default", startOffset: 2, endOffset: 3, latestOffset: 3, numInputRows: 10, inputRowsPerSecond: 9.5, processedRowsPerSecond: 24.2, metrics: {} },
    { description: "KafkaV2[Subscribe[events]]", startOffset: { events: { "0": 7 } }, endOffset: { events: { "0": 9 } }, latestOffset: { events: { "0": 9 } }, numInputRows: 2, inputRowsPerSecond: 0.5, metrics: { avgOffsetsBehindLatest: "0.0" } },
  ],
  sink: { description: "MemorySink", numOutputRows: -1, metrics: {} },
  observedMetrics: {},
};

describe("progress of a query on a Spark Connect server", () => {
  it("has the embedded engine's fields: query-wide input figures summed over the sources, missing rates as 0", () => {
    expect(progressFromSpark(spark)).toEqual({
      id: spark.id,
      runId: spark.runId,
      name: "counts",
      timestamp: "2026-12-02T11:11:23.942Z",
      batchId: 3,
      batchDuration: 412,
      numInputRows: 12,
      inputRowsPerSecond: 10,
      processedRowsPerSecond: 24.2,
      durationMs: spark.durationMs,
      eventTime: spark.eventTime,
      stateOperators: spark.stateOperators,
      sources: [
        spark.sources[0],
        { ...spark.sources[1], processedRowsPerSecond: 0 },
      ],
      sink: { description: "MemorySink", numOutputRows: -1, metrics: {} },
      observedMetrics: {},
    });
  });

  it("keeps query-wide figures the server does send, and a query without a name", () => {
    const p = progressFromSpark({ ...spark, name: null, numInputRows: 99, inputRowsPerSecond: 1.5, processedRowsPerSecond: 2.5 });
    expect([p.name, p.numInputRows, p.inputRowsPerSecond, p.processedRowsPerSecond]).toEqual([null, 99, 1.5, 2.5]);
  });
});
