// Spark's EventTimeWatermarkSuite on its own inputs and with its expected answers, as scenario data
// (see testing/scenario.ts): the scenarios that may be stopped and restarted before every step that
// adds data. Event times are whole seconds since the epoch (Spark's `timestamp_seconds(value)`),
// windows of 5 seconds, a watermark 10 seconds behind, and window starts reported in seconds. Run by
// src/runtime/event-time-watermark-suite.test.ts (in process, with the scenarios that need one
// uninterrupted run) and event-time-watermark.new-process.test.ts.
//
// Spark's suite checks its state figures with helpers of its own that read the query object: the
// state rows after the last batch, and the rows dropped as late by the last batch that read rows
// (not by the batch without data that follows it when the watermark moved). When the query runs in
// another process there is no query object here, so the checks are StreamTest's
// `assertNumStateRows(total, updated, dropped)` (Spark's StateStoreMetricsTest), which reads the
// progress StreamTest keeps across restarts and processes: the state rows after the last batch, and
// the rows the batches since the previous check wrote and dropped as late. `total` is Spark's
// figure; one batch between two checks reads rows, so `dropped` is too; `updated` (the windows
// written) is checked besides.
import { z } from "zod";
import { col, count, timestamp_seconds, unix_seconds, window } from "../../api/functions.js";
import type { MemoryStream } from "../../api/memory-stream.js";
import type { Session } from "../../api/session.js";
import { scenarioRef, type ScenarioQuery, type StreamScenario } from "../scenario.js";
import { addData, assertNumStateRows, checkAnswer, checkNewAnswer, type StreamAction } from "../stream-test.js";

export const Value = z.object({ value: z.int() });

export const values = (...vs: number[]) => vs.map((value) => ({ value }));
/** One step adding rows of `value` seconds to `input`. */
export const add = (input: MemoryStream<any>, ...vs: number[]): StreamAction => addData(input, ...values(...vs));
/** A row of the windowed count: (window start in seconds, count). */
export const row = (start: number, n: number) => ({ start, count: n });

// ---- the queries ----

/** Spark's windowed count: 5-second windows over `value` seconds, the watermark `delay` behind (none when null). */
export function windowedCounts(session: Session, delay: string | null): ScenarioQuery {
  const input = session.memoryStream(Value);
  const timed = input.toDF().withColumn("eventTime", timestamp_seconds(col("value")));
  const df = (delay === null ? timed : timed.withWatermark("eventTime", delay))
    .groupBy(window(col("eventTime"), "5 seconds").alias("window"))
    .agg(count().alias("count"))
    .select(unix_seconds(col("window.start")).alias("start"), col("count"));
  return { inputs: [input], df };
}

/** The windowed count with the window selected under an alias first, then grouped by that alias (SPARK-27340). */
export function aliasedWindowCounts(session: Session): ScenarioQuery {
  const input = session.memoryStream(Value);
  const df = input
    .toDF()
    .withColumn("eventTime", timestamp_seconds(col("value")))
    .withWatermark("eventTime", "10 seconds")
    .select(window(col("eventTime"), "5 seconds").alias("aliasWindow"))
    .groupBy(col("aliasWindow"))
    .agg(count().alias("count"))
    .select(unix_seconds(col("aliasWindow.start")).alias("start"), col("count"));
  return { inputs: [input], df };
}

/** Counts per event time itself (no window), watermark 10 s: (event time in seconds, count). */
export function countsPerEventTime(session: Session): ScenarioQuery {
  const input = session.memoryStream(Value);
  const df = input
    .toDF()
    .withColumn("eventTime", timestamp_seconds(col("value")))
    .withWatermark("eventTime", "10 seconds")
    .groupBy(col("eventTime"))
    .agg(count().alias("count"))
    .select(unix_seconds(col("eventTime")).alias("eventTime"), col("count"));
  return { inputs: [input], df };
}

// ---- actions and answers ----

const query = (exportName: string, ...args: (string | null)[]) => scenarioRef(import.meta.url, exportName, ...args);

/** From EventTimeWatermarkSuite. */
export const eventTimeWatermarkScenarios: readonly StreamScenario[] = [
  {
    name: "append mode",
    query: query("windowedCounts", "10 seconds"),
    outputMode: "append",
    actions: ([input]) => [
      add(input!, 10, 11, 12, 13, 14, 15),
      checkNewAnswer(),
      // Watermark 15 s: [10, 15) is final, emitted and evicted by the batch without data that follows.
      // Written since the start: [10, 15), [15, 20) and [25, 30).
      add(input!, 25),
      checkNewAnswer(row(10, 5)),
      assertNumStateRows(2, 3, 0),
      // Behind the watermark.
      add(input!, 10),
      checkNewAnswer(),
      assertNumStateRows(2, 0, 1),
    ],
  },
  {
    name: "update mode",
    query: query("windowedCounts", "10 seconds"),
    outputMode: "update",
    actions: ([input]) => [
      add(input!, 10, 11, 12, 13, 14, 15),
      checkNewAnswer(row(10, 5), row(15, 1)),
      // Watermark 15 s: [10, 15) is evicted. Written since the start: [10, 15), [15, 20) and [25, 30).
      add(input!, 25),
      checkNewAnswer(row(25, 1)),
      assertNumStateRows(2, 3, 0),
      // 10 is behind the watermark.
      add(input!, 10, 25),
      checkNewAnswer(row(25, 2)),
      assertNumStateRows(2, 1, 1),
      add(input!, 10),
      checkNewAnswer(),
      assertNumStateRows(2, 0, 1),
    ],
  },
  {
    name: "an alias on the window keeps its event time (SPARK-27340)",
    query: query("aliasedWindowCounts"),
    outputMode: "append",
    actions: ([input]) => [
      add(input!, 10, 11, 12, 13, 14, 15),
      checkNewAnswer(),
      // Watermark 15 s. Written since the start: [10, 15), [15, 20) and [25, 30).
      add(input!, 25),
      checkNewAnswer(row(10, 5)),
      assertNumStateRows(2, 3),
      // Behind the watermark.
      add(input!, 10),
      checkNewAnswer(),
      assertNumStateRows(2, 0),
    ],
  },
  {
    name: "group by on raw timestamp",
    query: query("countsPerEventTime"),
    outputMode: "append",
    actions: ([input]) => [
      add(input!, 10),
      checkAnswer(),
      // Watermark 15 s: the group of 10 s is final.
      add(input!, 25),
      checkAnswer({ eventTime: 10, count: 1 }),
    ],
  },
];
