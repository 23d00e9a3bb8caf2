// Watermarks and late data, run embedded and on Spark (parity.ts): rows behind the watermark are dropped by
// stateful operators (and counted in progress), append mode writes a window only once the watermark passes its
// end, and a watermark without a stateful operator drops nothing. 5 s windows over whole-second event times,
// the watermark 10 s behind the largest event time seen.
import { describe, it } from "vitest";
import { z } from "zod";
import { col, count, timestamp_seconds, unix_seconds, window } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { batchFigures, isoSeconds, runBoth } from "../../testing/remote-parity.js";

const Value = z.object({ value: z.int() });
const values = (...vs: number[]) => vs.map((value) => ({ value }));
const row = (start: number, n: number) => ({ start, n });

function timedValues(session: Session, dir: string) {
  return session.readStream
    .schema(Value)
    .option("maxFilesPerTrigger", 1)
    .json(dir)
    .withColumn("eventTime", timestamp_seconds(col("value")))
    .withWatermark("eventTime", "10 seconds");
}

function windowedCounts(session: Session, [dir]: readonly string[]) {
  return timedValues(session, dir!)
    .groupBy(window(col("eventTime"), "5 seconds"))
    .agg(count().alias("n"))
    .select(unix_seconds(col("window.start")).alias("start"), col("n"));
}

describe("watermarks and late data, embedded and on Spark", () => {
  it("append mode: a window is written once the watermark passes its end; a late row is dropped and counted", () =>
    runBoth({
      name: "late_append",
      outputMode: "append",
      query: windowedCounts,
      steps: [
        // Watermark 5 s: no window has ended behind it.
        { add: values(10, 11, 12, 13, 14, 15), table: [] },
        // Watermark 15 s: [10, 15) is final.
        { add: values(25), table: [row(10, 5)] },
        // 10 s is behind the watermark: dropped; nothing new is final.
        { add: values(10), table: [row(10, 5)] },
        // Watermark 21 s: [15, 20) is final; 17 s is still in time.
        { add: values(17, 31), table: [row(10, 5), row(15, 2)] },
      ],
      progress: {
        read: batchFigures,
        expected: [
          { rows: 6, watermark: isoSeconds(0), dropped: 0 },
          { rows: 1, watermark: isoSeconds(5), dropped: 0 },
          { rows: 1, watermark: isoSeconds(15), dropped: 1 },
          { rows: 2, watermark: isoSeconds(15), dropped: 0 },
        ],
      },
    }), 60_000);

  it("update mode: late rows are dropped, in-time rows of the same batch update their windows", () =>
    runBoth({
      name: "late_update",
      outputMode: "update",
      query: windowedCounts,
      steps: [
        { add: values(10, 11, 12, 13, 14, 15), table: [row(10, 5), row(15, 1)] },
        { add: values(25), table: [row(10, 5), row(15, 1), row(25, 1)] },
        // Watermark 15 s: 10 s is dropped, 25 s counts.
        { add: values(10, 25), table: [row(10, 5), row(15, 1), row(25, 1), row(25, 2)] },
        { add: values(10), table: [row(10, 5), row(15, 1), row(25, 1), row(25, 2)] },
      ],
      progress: {
        read: batchFigures,
        expected: [
          { rows: 6, watermark: isoSeconds(0), dropped: 0 },
          { rows: 1, watermark: isoSeconds(5), dropped: 0 },
          { rows: 2, watermark: isoSeconds(15), dropped: 1 },
          { rows: 1, watermark: isoSeconds(15), dropped: 1 },
        ],
      },
    }), 60_000);

  it("a watermark without a stateful operator drops nothing: late rows pass through a filter", () =>
    runBoth({
      name: "late_stateless",
      outputMode: "append",
      query: (session, [dir]) => timedValues(session, dir!).filter(col("value").gt(0)).select(col("value")),
      steps: [
        { add: values(20, 30), table: values(20, 30) },
        // Watermark 20 s: 5 s is behind it, and still written.
        { add: values(5), table: values(5, 20, 30) },
      ],
    }), 60_000);

  it("the state operator's figures per batch: rows kept, written and dropped as late", () =>
    runBoth({
      name: "late_state_figures",
      outputMode: "append",
      query: windowedCounts,
      steps: [
        { add: values(10, 11, 16), table: [] },
        // Watermark 15 s: [10, 15) is written and removed by the batch without data that follows.
        { add: values(25), table: [row(10, 2)] },
        { add: values(10, 26), table: [row(10, 2)] },
      ],
      progress: {
        read: (q) =>
          q.recentProgress
            .filter((p) => p.numInputRows > 0)
            .flatMap((p) => p.stateOperators.map(({ operatorName, numRowsTotal, numRowsUpdated, numRowsDroppedByWatermark }) => ({ operatorName, numRowsTotal, numRowsUpdated, numRowsDroppedByWatermark }))),
        expected: [
          { operatorName: "stateStoreSave", numRowsTotal: 2, numRowsUpdated: 2, numRowsDroppedByWatermark: 0 },
          { operatorName: "stateStoreSave", numRowsTotal: 3, numRowsUpdated: 1, numRowsDroppedByWatermark: 0 },
          { operatorName: "stateStoreSave", numRowsTotal: 2, numRowsUpdated: 1, numRowsDroppedByWatermark: 1 },
        ],
      },
    }), 60_000);
});
