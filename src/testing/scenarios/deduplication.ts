// Spark's StreamingDeduplicationSuite and StreamingDeduplicationWithinWatermarkSuite on their own
// inputs and with their expected answers, as scenario data (see testing/scenario.ts): the scenarios
// that may be stopped and restarted after every step. Event times are whole seconds (Spark's
// `timestamp_seconds`) and are reported in seconds; Spark's tuple columns keep their names `_1` and
// `_2`. `assertNumStateRows(total, updated, dropped)` reads the state operators as Spark's progress
// reports them, the one nearest the sink first. Run by src/operators/deduplication-suite.test.ts (in
// process, with the scenarios that need one uninterrupted run) and deduplication.new-process.test.ts.
import { z } from "zod";
import { col, count, sum, timestamp_seconds, unix_seconds, window } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import type { OutputMode } from "../../config/options.js";
import { scenarioRef, type ScenarioQuery, type StreamScenario } from "../scenario.js";
import { addData, assertNumStateRows, checkAnswer, checkLastBatch, checkNewAnswer } from "../stream-test.js";

const Value = z.object({ value: z.int() });
export const Str = z.object({ value: z.string() });
export const StrInt = z.object({ _1: z.string(), _2: z.int() });
const IntInt = z.object({ _1: z.int(), _2: z.int() });

export const values = <T>(...vs: T[]) => vs.map((value) => ({ value }));
export const pairs = <A, B>(...ps: [A, B][]) => ps.map(([_1, _2]) => ({ _1, _2 }));
/** Spark's `(1 to 5).flatMap(_ => 10 to 15)`: 10..15 five times over. */
export const tenToFifteenFiveTimes = () => Array.from({ length: 5 }, () => [10, 11, 12, 13, 14, 15]).flat();
export const seconds = (...vs: number[]) => vs.map((eventTime) => ({ eventTime }));

// ---- the queries ----

/** Strings, all columns deduplicated. */
export function dedupStrings(session: Session): ScenarioQuery {
  const input = session.memoryStream(Str);
  return { inputs: [input], df: input.toDF().dropDuplicates() };
}

/** Spark's `(String, Int)` input deduplicated on `_1`. */
export function dedupOnFirst(session: Session): ScenarioQuery {
  const input = session.memoryStream(StrInt);
  return { inputs: [input], df: input.toDF().dropDuplicates("_1") };
}

/** Spark's `(String, Int)` input deduplicated on all columns, then on `_1`. */
export function dedupTwice(session: Session): ScenarioQuery {
  const input = session.memoryStream(StrInt);
  return { inputs: [input], df: input.toDF().dropDuplicates().dropDuplicates("_1") };
}

/**
 * Spark's event-time dedup input: `value` as event time, watermark 10 s behind, all columns
 * deduplicated (within the watermark when `within`), the event time reported in seconds.
 */
export function dedupOnEventTime(session: Session, within: boolean): ScenarioQuery {
  const input = session.memoryStream(Value);
  const df = input.toDF().withColumn("eventTime", timestamp_seconds(col("value"))).withWatermark("eventTime", "10 seconds");
  return { inputs: [input], df: (within ? df.dropDuplicatesWithinWatermark() : df.dropDuplicates()).select(unix_seconds(col("eventTime")).alias("eventTime")) };
}

/** `value` seconds as event time (watermark 10 s), deduplicated, then counted per 5 s window: (start, count). */
export function dedupThenWindowCounts(session: Session): ScenarioQuery {
  const input = session.memoryStream(Value);
  const df = input
    .toDF()
    .withColumn("eventTime", timestamp_seconds(col("value")))
    .withWatermark("eventTime", "10 seconds")
    .dropDuplicates()
    .groupBy(window(col("eventTime"), "5 seconds").alias("window"))
    .agg(count().alias("count"))
    .select(unix_seconds(col("window.start")).alias("start"), col("count"));
  return { inputs: [input], df };
}

/** Spark's `(String, Int)` input as (str, num), deduplicated, then `num` summed per `str`. */
export function dedupThenSums(session: Session): ScenarioQuery {
  const input = session.memoryStream(StrInt);
  const df = input
    .toDF()
    .select(col("_1").alias("str"), col("_2").alias("num"))
    .dropDuplicates()
    .groupBy("str")
    .agg(sum(col("num")).alias("sum"));
  return { inputs: [input], df };
}

/** (`_1` seconds as time, watermark 1 s; `_2` as id) deduplicated on (id, time), the event time second among the keys: the ids. */
export function dedupOnIdAndTime(session: Session): ScenarioQuery {
  const input = session.memoryStream(IntInt);
  const df = input
    .toDF()
    .select(timestamp_seconds(col("_1")).alias("time"), col("_2").alias("id"))
    .withWatermark("time", "1 second")
    .dropDuplicates("id", "time")
    .select(col("id"));
  return { inputs: [input], df };
}

/** (`_1` as id, `_2` seconds as time, watermark 1 s) deduplicated on id alone: (id, time in seconds). */
export function dedupOnIdBesideEventTime(session: Session): ScenarioQuery {
  const input = session.memoryStream(IntInt);
  const df = input
    .toDF()
    .select(col("_1").alias("id"), timestamp_seconds(col("_2")).alias("time"))
    .withWatermark("time", "1 second")
    .dropDuplicates("id")
    .select(col("id"), unix_seconds(col("time")).alias("time"));
  return { inputs: [input], df };
}

/** Spark's `(String, Int)` input with `_2` as event time, deduplicated on `_1` within a watermark of `delay`. */
export function withinOnFirst(session: Session, delay: string): ScenarioQuery {
  const input = session.memoryStream(StrInt);
  const df = input
    .toDF()
    .withColumn("eventTime", timestamp_seconds(col("_2")))
    .withWatermark("eventTime", delay)
    .dropDuplicatesWithinWatermark("_1")
    .select(col("_1"), unix_seconds(col("eventTime")).alias("eventTime"));
  return { inputs: [input], df };
}

/** (`_1` seconds as event time `first`, watermark 10 s) deduplicated on `_2` within the watermark, then only `_2` kept. */
export function withinThenDropEventTime(session: Session): ScenarioQuery {
  const input = session.memoryStream(IntInt);
  const df = input.toDF().withColumn("first", timestamp_seconds(col("_1"))).withWatermark("first", "10 seconds").dropDuplicatesWithinWatermark("_2").select(col("_2"));
  return { inputs: [input], df };
}

// ---- actions and answers ----

const query = (exportName: string, ...args: (string | boolean)[]) => scenarioRef(import.meta.url, exportName, ...args);

/** Spark's "deduplicate with aggregate - update mode" and "- complete mode": the same query and input. */
function dedupWithAggregate(mode: Extract<OutputMode, "update" | "complete">): StreamScenario {
  const row = (str: string, s: number) => ({ str, sum: s });
  const complete = mode === "complete";
  return {
    name: `deduplicate with aggregate - ${mode} mode`,
    query: query("dedupThenSums"),
    outputMode: mode,
    actions: ([input]) => [
      addData(input!, ...pairs(["a", 1])),
      checkLastBatch(row("a", 1)),
      assertNumStateRows([1, 1], [1, 1]),
      // A duplicate: the aggregation sees nothing (complete mode repeats the whole result).
      addData(input!, ...pairs(["a", 1])),
      complete ? checkLastBatch(row("a", 1)) : checkLastBatch(),
      assertNumStateRows([1, 1], [0, 0]),
      addData(input!, ...pairs(["a", 2])),
      checkLastBatch(row("a", 3)),
      assertNumStateRows([1, 2], [1, 1]),
      addData(input!, ...pairs(["b", 1])),
      complete ? checkLastBatch(row("a", 3), row("b", 1)) : checkLastBatch(row("b", 1)),
      assertNumStateRows([2, 3], [1, 1]),
    ],
  };
}

/** From StreamingDeduplicationSuite. */
export const deduplicationScenarios: readonly StreamScenario[] = [
  {
    name: "deduplicate with all columns",
    query: query("dedupStrings"),
    outputMode: "append",
    actions: ([input]) => [
      addData(input!, ...values("a")),
      checkLastBatch(...values("a")),
      assertNumStateRows(1, 1),
      addData(input!, ...values("a")),
      checkLastBatch(),
      assertNumStateRows(1, 0),
      addData(input!, ...values("b")),
      checkLastBatch(...values("b")),
      assertNumStateRows(2, 1),
    ],
  },
  {
    name: "deduplicate with some columns",
    query: query("dedupOnFirst"),
    outputMode: "append",
    actions: ([input]) => [
      addData(input!, ...pairs(["a", 1])),
      checkLastBatch(...pairs(["a", 1])),
      assertNumStateRows(1, 1, 0),
      // Same _1: dropped.
      addData(input!, ...pairs(["a", 2])),
      checkLastBatch(),
      assertNumStateRows(1, 0, 0),
      addData(input!, ...pairs(["b", 1])),
      checkLastBatch(...pairs(["b", 1])),
      assertNumStateRows(2, 1, 0),
    ],
  },
  {
    name: "multiple deduplicates",
    query: query("dedupTwice"),
    outputMode: "append",
    actions: ([input]) => [
      addData(input!, ...pairs(["a", 1])),
      checkLastBatch(...pairs(["a", 1])),
      assertNumStateRows([1, 1], [1, 1]),
      // New to the first deduplication (all columns), a duplicate of _1 to the second.
      addData(input!, ...pairs(["a", 2])),
      checkLastBatch(),
      assertNumStateRows([1, 2], [0, 1]),
      addData(input!, ...pairs(["b", 1])),
      checkLastBatch(...pairs(["b", 1])),
      assertNumStateRows([2, 3], [1, 1]),
    ],
  },
  {
    name: "deduplicate with watermark",
    query: query("dedupOnEventTime", false),
    outputMode: "append",
    actions: ([input]) => [
      addData(input!, ...values(...tenToFifteenFiveTimes())),
      checkAnswer(...seconds(10, 11, 12, 13, 14, 15)),
      assertNumStateRows(6, 6),
      // Watermark 15 s: the batch without data that follows forgets 10..15.
      addData(input!, ...values(25)),
      checkNewAnswer(...seconds(25)),
      assertNumStateRows(1, 1),
      addData(input!, ...values(10)),
      checkNewAnswer(),
      assertNumStateRows(1, 0, 1),
      // Watermark 35 s: 25 is forgotten.
      addData(input!, ...values(45)),
      checkNewAnswer(...seconds(45)),
      assertNumStateRows(1, 1),
    ],
  },
  {
    name: "deduplicate with aggregate - append mode",
    query: query("dedupThenWindowCounts"),
    outputMode: "append",
    actions: ([input]) => {
      const row = (start: number, n: number) => ({ start, count: n });
      return [
        addData(input!, ...values(...tenToFifteenFiveTimes())),
        checkNewAnswer(),
        // Aggregation: [10, 15) and [15, 20); deduplication: 10..15.
        assertNumStateRows([2, 6], [2, 6]),
        // Watermark 15 s: the batch without data emits [10, 15) (five distinct rows) and evicts it,
        // and the deduplication forgets 10..15.
        addData(input!, ...values(25)),
        checkNewAnswer(row(10, 5)),
        assertNumStateRows([2, 1], [1, 1]),
        // Late for the deduplication, which drops it before the aggregation sees it.
        addData(input!, ...values(10)),
        checkNewAnswer(),
        assertNumStateRows([2, 1], [0, 0], [0, 1]),
        // Watermark 30 s: [15, 20) and [25, 30) are final.
        addData(input!, ...values(40)),
        checkNewAnswer(row(15, 1), row(25, 1)),
        assertNumStateRows([1, 1], [1, 1]),
      ];
    },
  },
  dedupWithAggregate("update"),
  dedupWithAggregate("complete"),
  // SPARK-19841: the watermark is checked on the event-time key, wherever it is among the keys.
  {
    name: "watermarkPredicate should filter based on keys (SPARK-19841)",
    query: query("dedupOnIdAndTime"),
    outputMode: "append",
    actions: ([input]) => {
      const id = (...vs: number[]) => vs.map((v) => ({ id: v }));
      return [
        addData(input!, ...pairs([1, 1], [1, 1], [1, 2])),
        checkAnswer(...id(1, 2)),
        addData(input!, ...pairs([1, 1], [2, 3], [2, 4])),
        checkNewAnswer(...id(3, 4)),
        // Watermark 1 s: (1, 0) and (1, 1) are late.
        addData(input!, ...pairs([1, 0], [1, 1], [3, 5], [3, 6])),
        checkNewAnswer(...id(5, 6)),
        addData(input!, ...pairs([1, 0], [4, 7])),
        checkNewAnswer(...id(7)),
      ];
    },
  },
  // SPARK-21546: with the event time outside the keys, keys are kept regardless of the watermark.
  {
    name: "dropDuplicates should ignore watermark when it's not a key (SPARK-21546)",
    query: query("dedupOnIdBesideEventTime"),
    outputMode: "append",
    actions: ([input]) => [addData(input!, ...pairs([1, 1], [1, 2], [2, 2])), checkAnswer({ id: 1, time: 1 }, { id: 2, time: 2 })],
  },
];

/** From StreamingDeduplicationWithinWatermarkSuite. */
export const withinWatermarkScenarios: readonly StreamScenario[] = [
  {
    name: "deduplicate with all columns with event time column in DataFrame",
    query: query("dedupOnEventTime", true),
    outputMode: "append",
    actions: ([input]) => [
      // Watermark 5 s; the batch without data forgets nothing (each key expires at its time + 10 s).
      addData(input!, ...values(...tenToFifteenFiveTimes())),
      checkAnswer(...seconds(10, 11, 12, 13, 14, 15)),
      assertNumStateRows(6, 6),
      // Watermark 7 s; 13..15 are duplicates.
      addData(input!, ...values(13, 14, 15, 16, 17)),
      checkNewAnswer(...seconds(16, 17)),
      assertNumStateRows(8, 2),
      addData(input!, ...values(5)),
      checkNewAnswer(),
      assertNumStateRows(8, 0, 1),
      // Watermark 25 s: the keys that expire at or before 25 s (10..15) are forgotten.
      addData(input!, ...values(35)),
      checkNewAnswer(...seconds(35)),
      assertNumStateRows(3, 1),
      // Watermark 45 s: 16, 17 and 35 are forgotten.
      addData(input!, ...values(55)),
      checkNewAnswer(...seconds(55)),
      assertNumStateRows(1, 1),
    ],
  },
  {
    name: "deduplicate with subset of columns which event time column is not in subset",
    query: query("withinOnFirst", "2 seconds"),
    outputMode: "append",
    actions: ([input]) => {
      const keyed = (...ps: [string, number][]) => ps.map(([_1, eventTime]) => ({ _1, eventTime }));
      return [
        // Watermark 15 s; "a" expires at 19 s.
        addData(input!, ...pairs(["a", 17])),
        checkNewAnswer(...keyed(["a", 17])),
        assertNumStateRows(1, 1),
        addData(input!, ...pairs(["a", 16])),
        checkNewAnswer(),
        assertNumStateRows(1, 0),
        // Behind the watermark.
        addData(input!, ...pairs(["a", 13])),
        checkNewAnswer(),
        assertNumStateRows(1, 0, 1),
        // Watermark 20 s: the batch without data forgets "a"; "b" and "c" expire at 24 s and 23 s.
        addData(input!, ...pairs(["b", 22], ["c", 21])),
        checkNewAnswer(...keyed(["b", 22], ["c", 21])),
        assertNumStateRows(2, 2),
        // "a" is new again; it expires at 23 s.
        addData(input!, ...pairs(["a", 21])),
        checkNewAnswer(...keyed(["a", 21])),
        assertNumStateRows(3, 1),
        // Watermark 23 s: "a" and "c" are forgotten.
        addData(input!, ...pairs(["d", 25])),
        checkNewAnswer(...keyed(["d", 25])),
        assertNumStateRows(2, 1),
      ];
    },
  },
  // SPARK-50492: the event-time column may be dropped right after the deduplication.
  {
    name: "drop event time column after dropDuplicatesWithinWatermark (SPARK-50492)",
    query: query("withinThenDropEventTime"),
    outputMode: "append",
    actions: ([input]) => [addData(input!, ...pairs([1, 2])), checkAnswer({ _2: 2 })],
  },
];
