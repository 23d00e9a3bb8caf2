import { describe, expect, it } from "vitest";
import { at } from "../testing/fixtures.js";
import { CHARTS, chartPoint } from "./chart-points.js";
import { kafkaProgress, startClickCounts, withUiSession } from "./test-support.js";

describe("chart points", () => {
  it("carry Spark's chart figures of a report: rates, rows, durations by phase, the watermark gap and the state summed over operators", () =>
    withUiSession({}, async (session) => {
      const { clicks, query } = startClickCounts(session, "charted");
      clicks.addData({ page: "/a", time: at("10:00", 10) }, { page: "/b", time: at("10:00", 30) });
      await query.processAllAvailable();
      clicks.addData({ page: "/a", time: at("10:01") });
      await query.processAllAvailable();
      const [first, ...rest] = query.recentProgress;
      // The first batch has no watermark yet (the epoch): Spark draws no gap for it.
      expect(chartPoint(first!).values.watermarkGapSeconds).toBeUndefined();
      const p = rest.at(-1)!;
      const s = p.stateOperators[0]!;
      const d = p.durationMs;
      expect(chartPoint(p)).toEqual({
        batchId: p.batchId,
        timestamp: p.timestamp,
        t: Date.parse(p.timestamp) / 1000,
        values: {
          inputRowsPerSecond: p.inputRowsPerSecond,
          processedRowsPerSecond: p.processedRowsPerSecond,
          numInputRows: p.numInputRows,
          batchDuration: p.batchDuration,
          "durationMs latestOffset": d.latestOffset,
          "durationMs walCommit": d.walCommit,
          "durationMs getBatch": d.getBatch,
          "durationMs addBatch": d.addBatch,
          "durationMs commitOffsets": d.commitOffsets,
          watermarkGapSeconds: (Date.parse(p.timestamp) - Date.parse(p.eventTime.watermark!)) / 1000,
          stateRowsTotal: s.numRowsTotal,
          stateRowsUpdated: s.numRowsUpdated,
          stateRowsRemoved: s.numRowsRemoved,
          stateMemoryUsedBytes: s.memoryUsedBytes,
          numRowsDroppedByWatermark: s.numRowsDroppedByWatermark,
        },
      });
    }));

  it("carry one figure per Kafka partition: the offsets its batch ended behind the latest", () => {
    const p = kafkaProgress({ orders: { "0": 10, "1": 7 } }, { orders: { "0": 12, "1": 9 } });
    const { values } = chartPoint(p);
    expect(Object.entries(values).filter(([k]) => k.startsWith(CHARTS.at(-1)!.seriesPrefix!))).toEqual([
      ["offsetsBehindLatest orders-0", 2],
      ["offsetsBehindLatest orders-1", 2],
    ]);
    // Neither state nor watermark: those charts get no value from this point.
    expect(values.stateRowsTotal).toBeUndefined();
    expect(values.watermarkGapSeconds).toBeUndefined();
  });
});
