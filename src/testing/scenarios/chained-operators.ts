// Several stateful operators in one query, each with its own watermark (Spark 3.4+'s watermark
// propagation), on the inputs and answers of Spark's MultiStatefulOperatorsSuite, as scenario data
// (see testing/scenario.ts). State rows are listed as Spark lists them: the operator nearest the sink
// first. Run by src/runtime/chained-operators.test.ts (in process) and chained-operators.new-process.test.ts.
import { z } from "zod";
import type { DataFrame } from "../../api/data-frame.js";
import { col, count, expr, sum, timestamp_seconds, unix_seconds, window, window_time } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { scenarioRef, type ScenarioQuery, type StreamScenario } from "../scenario.js";
import { addData, assertNumStateRows, checkAnswer, checkNewAnswer, multiAddData } from "../stream-test.js";

const Value = z.object({ value: z.int() });
const IdTime = z.object({ id: z.string(), timestamp: z.date() });
const seconds = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ value: from + i }));
const values = (...vs: number[]) => vs.map((value) => ({ value }));
const ts = (hms: string) => new Date(`2023-01-01T${hms}Z`);

// ---- the queries ----

/** Counts per 5 s window, then counts and sums of those per 10 s window of their window_time (watermark 0 s). */
export function windowAggOnWindowAgg(session: Session): ScenarioQuery {
  const input = session.memoryStream(Value);
  const df = input
    .toDF()
    .withColumn("eventTime", timestamp_seconds(col("value")))
    .withWatermark("eventTime", "0 seconds")
    .groupBy(window(col("eventTime"), "5 seconds").alias("window"))
    .agg(count().alias("count"))
    .groupBy(window(window_time(col("window")), "10 seconds"))
    .agg(count().alias("count"), sum(col("count")).alias("sum"))
    .select(unix_seconds(col("window.start")).alias("start"), col("count"), col("sum"));
  return { inputs: [input], df };
}

/** dropDuplicates on (value, eventTime) with a 10 s watermark, then counts per 5 s window. */
export function dedupThenWindowAgg(session: Session): ScenarioQuery {
  const input = session.memoryStream(Value);
  const df = input
    .toDF()
    .withColumn("eventTime", timestamp_seconds(col("value")))
    .withWatermark("eventTime", "10 seconds")
    .dropDuplicates("value", "eventTime")
    .groupBy(window(col("eventTime"), "5 seconds").alias("window"))
    .agg(count().alias("count"), sum(col("value")).alias("sum"))
    .select(unix_seconds(col("window.start")).alias("start"), col("count"));
  return { inputs: [input], df };
}

/** An inner join on equal event times (watermarks 0 s), then counts per 5 s window. */
export function joinThenWindowAgg(session: Session): ScenarioQuery {
  const input1 = session.memoryStream(Value);
  const input2 = session.memoryStream(Value);
  const df1 = input1.toDF().withColumnRenamed("value", "value1").withColumn("eventTime1", timestamp_seconds(col("value1"))).withWatermark("eventTime1", "0 seconds");
  const df2 = input2.toDF().withColumnRenamed("value", "value2").withColumn("eventTime2", timestamp_seconds(col("value2"))).withWatermark("eventTime2", "0 seconds");
  const df = df1
    .join(df2, expr("eventTime1 = eventTime2") as never, "inner")
    .groupBy(window(col("eventTime1"), "5 seconds").alias("window"))
    .agg(count().alias("count"))
    .select(unix_seconds(col("window.start")).alias("start"), col("count"));
  return { inputs: [input1, input2], df };
}

/** A left outer join within an hour on id, then counts per 10 minute window (Spark's SPARK-45637 shape). */
export function intervalLeftOuterJoinThenAgg(session: Session): ScenarioQuery {
  const input1 = session.memoryStream(IdTime);
  const input2 = session.memoryStream(IdTime);
  const s1 = input1.toDF().withColumnRenamed("id", "id1").withColumnRenamed("timestamp", "timestamp1").withWatermark("timestamp1", "0 seconds");
  const s2 = input2.toDF().withColumnRenamed("id", "id2").withColumnRenamed("timestamp", "timestamp2").withWatermark("timestamp2", "0 seconds");
  const joined = s1.join(s2, expr("id1 = id2 AND (timestamp1 BETWEEN timestamp2 - INTERVAL 1 hour AND timestamp2 + INTERVAL 1 hour)") as never, "left_outer");
  const df = joined
    .groupBy(window(col("timestamp1"), "10 minutes"))
    .agg(count().alias("cnt"))
    .select(col("window.start").alias("window_start"), col("window.end").alias("window_end"), col("cnt"));
  return { inputs: [input1, input2], df: df as DataFrame<any> };
}

// ---- actions and answers ----

const query = (exportName: string) => scenarioRef(import.meta.url, exportName);

export const chainedOperatorScenarios: readonly StreamScenario[] = [
  {
    name: "window agg -> window agg on window_time, append mode",
    query: query("windowAggOnWindowAgg"),
    outputMode: "append",
    actions: ([input]) => [
      addData(input!, ...seconds(10, 21)),
      // The first aggregation emits [10, 15) and [15, 20) at watermark 21; the second, whose input
      // watermark is the first one's output, closes [10, 20) in the same batch.
      checkNewAnswer({ start: 10, count: 2, sum: 10 }),
      assertNumStateRows([0, 1], [1, 3], [0, 0]),
      addData(input!, ...seconds(10, 29)),
      // For the first aggregation [10, 15) and [15, 20) are late now: Sluice counts their 10 input
      // rows (Spark counts the 2 partial aggregates). The batch without data that follows moves
      // [20, 25) on to the second aggregation.
      checkNewAnswer(),
      assertNumStateRows([1, 1], [1, 2], [0, 10]),
      addData(input!, ...values(30, 31)),
      checkNewAnswer({ start: 20, count: 2, sum: 12 }),
      assertNumStateRows([0, 1], [1, 1], [0, 0]),
    ],
  },
  {
    name: "stream deduplication -> window aggregation, append mode",
    query: query("dedupThenWindowAgg"),
    outputMode: "append",
    actions: ([input]) => [
      addData(input!, ...seconds(1, 15)),
      // Watermark 5: deduplication keeps 6..15, the aggregation emits [0, 5).
      checkNewAnswer({ start: 0, count: 4 }),
      assertNumStateRows([3, 10], [4, 15], [0, 0]),
      addData(input!, ...seconds(1, 15)),
      // All late for the deduplication now (by its watermark, the previous batch's 5) or duplicates.
      checkNewAnswer(),
      addData(input!, ...values(26)),
      checkNewAnswer({ start: 5, count: 5 }, { start: 10, count: 5 }),
    ],
  },
  {
    name: "stream-stream join on event time -> window aggregation, append mode",
    query: query("joinThenWindowAgg"),
    outputMode: "append",
    actions: ([input1, input2]) => [
      multiAddData([input1!, values(1, 2, 3, 4)], [input2!, values(1, 2, 3, 4)]),
      checkNewAnswer(),
      assertNumStateRows([1, 0], [1, 8], [0, 0]),
      multiAddData([input1!, values(5)], [input2!, values(5)]),
      checkNewAnswer({ start: 0, count: 4 }),
      assertNumStateRows([1, 0], [1, 2], [0, 0]),
    ],
  },
  {
    name: "stream-stream time interval left outer join -> aggregation, append mode (the join lowers the watermark by its range)",
    query: query("intervalLeftOuterJoinThenAgg"),
    outputMode: "append",
    actions: ([input1, input2]) => [
      multiAddData([input1!, [{ id: "1", timestamp: ts("01:00:10") }, { id: "2", timestamp: ts("01:00:30") }]], [input2!, [{ id: "1", timestamp: ts("01:00:20") }]]),
      checkAnswer(),
      multiAddData([input1!, [{ id: "5", timestamp: ts("01:15:00") }]], [input2!, [{ id: "6", timestamp: ts("01:15:00") }]]),
      checkAnswer(),
      // The join's output watermark is its input's minus the hour of the range (and 1 ms): the
      // aggregation closes [01:00, 01:10) only now, with the matched row and the NULL row of "2".
      multiAddData([input1!, [{ id: "5", timestamp: ts("02:16:00") }]], [input2!, [{ id: "6", timestamp: ts("02:16:00") }]]),
      checkAnswer({ window_start: ts("01:00:00"), window_end: ts("01:10:00"), cnt: 2 }),
    ],
  },
];
