import { describe, expect, it } from "vitest";
import { col, sum } from "../api/functions.js";
import type { MemoryStream } from "../api/memory-stream.js";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
// The watermark rules of Spark's EventTimeWatermarkSuite, on its own inputs and query.
import { atSeconds as seconds, SuiteValue as Value, suiteWindowedCounts as windowedCounts } from "../testing/watermark-suite.js";
import {
  addData,
    assertWatermark,
  checkAnswer,
  checkNewAnswer,
  execute,
  startStream,
  stopStream,
  testStream,
  type StreamAction,
} from "../testing/stream-test.js";
import type { StreamingQuery } from "./streaming-query.js";

type ValueShape = (typeof Value)["shape"];

function add(stream: MemoryStream<any>, ...values: number[]): StreamAction {
  return addData(stream, ...seconds(...values));
}

const row = (start: number, n: number) => ({ start, count: n });

/** The batch ids the query reported so far, in order. */
const batchIds = (q: StreamingQuery) => q.recentProgress.map((p) => p.batchId);

/** Waits until everything added so far is processed. */
const processAll = (): StreamAction => execute("processAllAvailable", () => undefined);

/** Spark's StartStream(Trigger.Once) followed by awaitTermination(): exactly one trigger. */
const runOnce = (): StreamAction[] => [startStream(), awaitTermination()];
const awaitTermination = (): StreamAction => execute("awaitTermination", (q) => q.awaitTermination());

/** Spark's assertEventStats: the watermark of the last batch that read rows. */
function assertWatermarkOfLastDataBatch(ms: number): StreamAction {
  return execute(`watermark of the last batch with data is ${ms}`, (q) => {
    const withData = q.recentProgress.filter((p) => p.numInputRows > 0).at(-1);
    expect(withData?.eventTime.watermark).toBe(new Date(ms).toISOString());
  });
}

function assertDropped(n: number): StreamAction {
  return execute(`${n} rows dropped by the watermark`, (q) => {
    const withData = q.recentProgress.filter((p) => p.numInputRows > 0).at(-1);
    expect(withData?.stateOperators[0]?.numRowsDroppedByWatermark).toBe(n);
  });
}

describe.each(WORKER_COUNTS)("watermark rules with %i workers", (workers) => {
  // Spark's WatermarkTracker starts the global watermark at 0 and only moves it forward, so a
  // first batch whose events are within the delay of the epoch leaves it at 0: the batch reports
  // watermark 1970-01-01T00:00:00Z and no batch without data follows it.
  it("the global watermark starts at 0 and never goes below it (no extra batch for a negative watermark)", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      await testStream(counts, "append").run(
        add(input, 4),
        checkNewAnswer(),
        assertWatermark(0),
        execute("only the batch with data ran", (q) => expect(batchIds(q)).toEqual([0])),
        add(input, 3),
        checkNewAnswer(),
        assertWatermark(0),
        execute("still no batch without data", (q) => expect(batchIds(q)).toEqual([0, 1])),
      );
    }));

  // EventTimeWatermarkSuite "event time and watermark metrics": the first batch runs at 0.
  it("reports watermark 0 for the first batch, then max event time - delay (Spark's event time metrics)", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      await testStream(counts, "append").run(
        add(input, 15),
        checkAnswer(),
        assertWatermarkOfLastDataBatch(0),
        add(input, 10, 12, 14),
        checkAnswer(),
        assertWatermarkOfLastDataBatch(5000),
        add(input, 25),
        checkAnswer(row(10, 3)),
        assertWatermarkOfLastDataBatch(5000),
      );
    }));

  // EventTimeWatermarkSuite "event time and watermark metrics with Trigger.Once (SPARK-24699)":
  // one batch per start, no batch without data, so what a watermark makes final comes out one
  // start later.
  it("Trigger.Once runs one batch per start and emits by the watermark of the previous one", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      await testStream(counts, "append", { trigger: { once: true } }).run(
        awaitTermination(),
        add(input, 15),
        ...runOnce(),
        checkNewAnswer(),
        assertWatermarkOfLastDataBatch(0),
        add(input, 10, 12, 14),
        ...runOnce(),
        checkNewAnswer(),
        assertWatermarkOfLastDataBatch(5000),
        add(input, 25),
        ...runOnce(),
        checkNewAnswer(),
        assertWatermarkOfLastDataBatch(5000),
        add(input, 50),
        ...runOnce(),
        checkNewAnswer(row(10, 3)),
        assertWatermarkOfLastDataBatch(15_000),
        add(input, 50),
        ...runOnce(),
        checkNewAnswer(row(15, 1), row(25, 1)),
        assertWatermarkOfLastDataBatch(40_000),
      );
    }));

  // A run that ends between a batch that moved the watermark and the no-data batch that would
  // have followed it (here a Trigger.Once run; a crash or stop can end one there too) leaves
  // windows the new watermark closed in state. Spark's restarted query waits for new data before
  // it emits them; Sluice's restart reads from the commit that the watermark moved and runs that
  // no-data batch first, so where a run ended changes no output.
  it("a restart without new data runs the no-data batch the last committed batch called for", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      await testStream(counts, "append", { trigger: { once: true } }).run(
        awaitTermination(),
        add(input, 10, 11, 12, 26),
        ...runOnce(),
        checkNewAnswer(),
        assertWatermarkOfLastDataBatch(0),
        // Batch 0 committed watermark 16 s: the no-data batch 1 runs with it and emits [10 s, 15 s).
        ...runOnce(),
        checkNewAnswer(row(10, 3)),
        execute("batch 1 read nothing and ran with watermark 16 s", (q) => {
          const last = q.lastProgress!;
          expect([last.batchId, last.numInputRows, last.eventTime.watermark]).toEqual([1, 0, new Date(16_000).toISOString()]);
        }),
        // Batch 1 moved nothing: a further start without data runs no batch.
        ...runOnce(),
        checkNewAnswer(),
        execute("no batch ran", (q) => expect(batchIds(q)).toEqual([])),
      );
    }));

  // Spark 3.4+ (SPARK-40925): a batch judges rows late by the watermark of the batch before it
  // (watermarkForLateEvents) and emits and evicts by its own (watermarkForEviction). Batch 2 runs
  // with watermark 15 s, its predecessor with 5 s: rows of window [10 s, 15 s) are not late by
  // 5 s, so they join state, and the window is final by 15 s, so it is emitted at once. The next
  // batch judges by 15 s and drops a row of that window. Each start is a new run, so the judging
  // watermark comes from the offsets log of the batch before.
  it("judges late rows by the previous batch's watermark and evicts by the current one", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      await testStream(counts, "append", { trigger: { once: true } }).run(
        awaitTermination(),
        add(input, 15),
        ...runOnce(),
        checkNewAnswer(),
        add(input, 25),
        ...runOnce(),
        checkNewAnswer(),
        assertWatermarkOfLastDataBatch(5000),
        add(input, 10, 12),
        ...runOnce(),
        checkNewAnswer(row(10, 2)),
        assertWatermarkOfLastDataBatch(15_000),
        assertDropped(0),
        add(input, 13),
        ...runOnce(),
        checkNewAnswer(),
        assertDropped(1),
        add(input, 40),
        ...runOnce(),
        checkNewAnswer(),
        add(input, 41),
        ...runOnce(),
        checkNewAnswer(row(15, 1), row(25, 1)),
      );
    }));

  // EventTimeWatermarkSuite "test no-data flag": with spark.sql.streaming.noDataMicroBatches.enabled
  // false, the watermark that would make window [10 s, 15 s) final waits for the next batch with data.
  it.each([true, false])("spark.sql.streaming.noDataMicroBatches.enabled = %s", (flag) =>
    withSession(workers, async (session) => {
      session.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", flag ? "true" : "false");
      const { input, counts } = windowedCounts(session);
      await testStream(counts, "append").run(
        add(input, 10, 11, 12, 13, 14, 15),
        checkNewAnswer(),
        add(input, 25),
        flag ? checkNewAnswer(row(10, 5)) : checkNewAnswer(),
        execute("batches without data only when enabled", (q) => expect(batchIds(q)).toEqual(flag ? [0, 1, 2, 3] : [0, 1])),
      );
    }));

  // EventTimeWatermarkSuite "complete mode": nothing is evicted, and no batch runs without data
  // (Spark's StateStoreSaveExec asks for one only in append and update mode).
  it("complete mode runs no batch without data when the watermark moves", () =>
    withSession(workers, async (session) => {
      const { input, counts } = windowedCounts(session);
      await testStream(counts, "complete").run(
        add(input, 10, 11, 12),
        checkAnswer(row(10, 3)),
        add(input, 25),
        checkAnswer(row(10, 3), row(25, 1)),
        add(input, 25),
        checkAnswer(row(10, 3), row(25, 2)),
        add(input, 10),
        checkAnswer(row(10, 4), row(25, 2)),
        add(input, 25),
        checkAnswer(row(10, 4), row(25, 3)),
        execute("one batch per addData", (q) => expect(batchIds(q)).toEqual([0, 1, 2, 3, 4])),
      );
    }));

  // EventTimeWatermarkSuite "watermark with 2 streams": the global watermark is the min of the
  // inputs', 0 until both have data, never decreasing; a restart restores the global watermark
  // only, so an input ahead of it before the restart must get past it again.
  it("two inputs: min of their watermarks, and a restart restores only the global one", () =>
    withSession(workers, async (session) => {
      const first = session.memoryStream(Value);
      const second = session.memoryStream(Value);
      const total = first
        .toDF()
        .withWatermark("eventTime", "10 seconds")
        .select("value")
        .union(second.toDF().withWatermark("eventTime", "5 seconds").select("value"))
        .groupBy()
        .agg(sum(col("value")).alias("total"));
      /** Spark's getWatermarkAfterData: the data, then one more row so a batch runs with the new watermark. */
      const watermarkAfter = (firstData: number[], secondData: number[], ms: number): StreamAction[] => [
        ...(firstData.length ? [add(first, ...firstData)] : []),
        ...(secondData.length ? [add(second, ...secondData)] : []),
        processAll(),
        add(first, 0),
        assertWatermark(ms),
      ];
      await testStream(total, "complete").run(
        ...watermarkAfter([11], [], 0),
        ...watermarkAfter([], [6], 1000),
        ...watermarkAfter([], [8], 1000),
        ...watermarkAfter([21], [], 3000),
        ...watermarkAfter([], [17, 28, 39], 11_000),
        ...watermarkAfter([31], [], 21_000),
        ...watermarkAfter([41], [], 31_000),
        ...watermarkAfter([51], [], 34_000),
        ...watermarkAfter([100], [100], 90_000),
        ...watermarkAfter([120], [110], 105_000),
        ...watermarkAfter([130], [125], 120_000),
        ...watermarkAfter([100], [100], 120_000),
        ...watermarkAfter([140], [100], 120_000),
        ...watermarkAfter([100], [135], 130_000),
        ...watermarkAfter([200], [190], 185_000),
        stopStream(),
        startStream(),
        ...watermarkAfter([], [], 185_000),
        ...watermarkAfter([], [200], 185_000),
        ...watermarkAfter([200], [], 190_000),
      );
    }));
});
