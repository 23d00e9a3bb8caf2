import * as os from "node:os";
import * as path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { col, count, sum, timestamp_seconds, unix_seconds, window } from "../api/functions.js";
import type { MemoryStream } from "../api/memory-stream.js";
import { itWithoutRestarts, sessionsPerFile, SUITE_CASES, suiteRunner } from "../testing/fixtures.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import {
  addData,
  assertNumStateRows,
  checkAnswer,
  checkLastBatch,
  checkNewAnswer,
  execute,
  type StreamAction,
} from "../testing/stream-test.js";

/**
 * Spark's StreamingDeduplicationSuite and StreamingDeduplicationWithinWatermarkSuite on their own
 * inputs and with their expected answers. Event times are whole seconds (Spark's
 * `timestamp_seconds`) and are reported in seconds; Spark's tuple columns keep their names `_1`
 * and `_2`. `assertNumStateRows(total, updated, dropped)` reads the state operators as Spark's
 * progress reports them, the one nearest the sink first. Each scenario runs with 0 and 2 workers,
 * and all but those declared with `itOnce` also stopped and restarted after every step that adds
 * data (the restarted query reads its state back from the checkpoint and must give the same rows).
 */

const Value = z.object({ value: z.int() });
const Str = z.object({ value: z.string() });
const StrInt = z.object({ _1: z.string(), _2: z.int() });
const IntInt = z.object({ _1: z.int(), _2: z.int() });

const values = <T>(...vs: T[]) => vs.map((value) => ({ value }));
const pairs = <A, B>(...ps: [A, B][]) => ps.map(([_1, _2]) => ({ _1, _2 }));
/** Spark's `(1 to 5).flatMap(_ => 10 to 15)`: 10..15 five times over. */
const tenToFifteenFiveTimes = () => Array.from({ length: 5 }, () => [10, 11, 12, 13, 14, 15]).flat();
const seconds = (...vs: number[]) => vs.map((eventTime) => ({ eventTime }));

const sessionFor = sessionsPerFile("dedup-suite");
const sessionPerSuite = (workers: number) => () => sessionFor(workers);

/** Spark's event-time dedup input: `value` as event time, watermark 10 s behind, all columns deduplicated. */
function dedupWithWatermark(input: MemoryStream<any>, within = false) {
  const df = input.toDF().withColumn("eventTime", timestamp_seconds(col("value"))).withWatermark("eventTime", "10 seconds");
  return (within ? df.dropDuplicatesWithinWatermark() : df.dropDuplicates()).select(unix_seconds(col("eventTime")).alias("eventTime"));
}

/** Sum of a state-operator figure over this run's batches after `afterBatch`. */
function sumSince(q: StreamingQuery, afterBatch: number, pick: (p: StreamingQuery["recentProgress"][number]) => number): number {
  return q.recentProgress.filter((p) => p.batchId > afterBatch).reduce((n, p) => n + pick(p), 0);
}

/**
 * Spark's `assertNumStateRows(..., removed = ...)` and `assertStateOperatorCustomMetric` read
 * figures summed over the batches since the previous check: `removedSince()` keeps that mark.
 */
function removedTracker() {
  let upTo = -1;
  return (n: number): StreamAction =>
    execute(`${n} state rows removed since the previous check`, (q) => {
      const removed = sumSince(q, upTo, (p) => p.stateOperators[0]?.numRowsRemoved ?? 0);
      upTo = q.recentProgress.at(-1)?.batchId ?? upTo;
      expect(removed).toBe(n);
    });
}

describe.each(SUITE_CASES)("streaming deduplication (Spark's StreamingDeduplicationSuite), $workers workers, restart after each step: $restart", ({ workers, restart }) => {
  const run = suiteRunner(restart);
  const suiteSession = sessionPerSuite(workers);
  /** Scenarios that read one run's progress or need one uninterrupted run run without restarts only. */
  const itOnce = itWithoutRestarts(restart);

  it("deduplicate with all columns", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(Str);
      await run(
        input.toDF().dropDuplicates(),
        "append",
        addData(input, ...values("a")),
        checkLastBatch(...values("a")),
        assertNumStateRows(1, 1),
        addData(input, ...values("a")),
        checkLastBatch(),
        assertNumStateRows(1, 0),
        addData(input, ...values("b")),
        checkLastBatch(...values("b")),
        assertNumStateRows(2, 1),
      );
    })());

  it("deduplicate with some columns", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(StrInt);
      await run(
        input.toDF().dropDuplicates("_1"),
        "append",
        addData(input, ...pairs(["a", 1])),
        checkLastBatch(...pairs(["a", 1])),
        assertNumStateRows(1, 1, 0),
        // Same _1: dropped.
        addData(input, ...pairs(["a", 2])),
        checkLastBatch(),
        assertNumStateRows(1, 0, 0),
        addData(input, ...pairs(["b", 1])),
        checkLastBatch(...pairs(["b", 1])),
        assertNumStateRows(2, 1, 0),
      );
    })());

  it("multiple deduplicates", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(StrInt);
      await run(
        input.toDF().dropDuplicates().dropDuplicates("_1"),
        "append",
        addData(input, ...pairs(["a", 1])),
        checkLastBatch(...pairs(["a", 1])),
        assertNumStateRows([1, 1], [1, 1]),
        // New to the first deduplication (all columns), a duplicate of _1 to the second.
        addData(input, ...pairs(["a", 2])),
        checkLastBatch(),
        assertNumStateRows([1, 2], [0, 1]),
        addData(input, ...pairs(["b", 1])),
        checkLastBatch(...pairs(["b", 1])),
        assertNumStateRows([2, 3], [1, 1]),
      );
    })());

  // SPARK-35896: the figures of the dedupe operator's progress. Spark runs it with two shuffle
  // partitions and also expects numShufflePartitions = numStateStoreInstances = 2; Sluice has no
  // shuffle-partition setting and keeps one state store per operator, so those two are not asserted.
  itOnce("metrics in StateOperatorProgress are output correctly (SPARK-35896)", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(Value);
      const removed = removedTracker();
      await run(
        dedupWithWatermark(input),
        "append",
        addData(input, ...values(...tenToFifteenFiveTimes())),
        checkAnswer(...seconds(10, 11, 12, 13, 14, 15)),
        assertNumStateRows(6, 6, 0),
        removed(0),
        // Watermark 15 s: the batch without data that follows forgets 10..15.
        addData(input, ...values(25)),
        checkNewAnswer(...seconds(25)),
        assertNumStateRows(1, 1, 0),
        removed(6),
        // Behind the watermark.
        addData(input, ...values(10)),
        checkNewAnswer(),
        assertNumStateRows(1, 0, 1),
        removed(0),
        addData(input, ...values(10)),
        checkNewAnswer(),
        execute("the operator reports as dedupe", (q) => expect(q.lastProgress?.stateOperators.map((o) => o.operatorName)).toEqual(["dedupe"])),
      );
    })());

  // A figure of the last batch that read rows: a restart between the rows and the check would read it from another run.
  itOnce("custom metric numDroppedDuplicateRows in state operator progress (SPARK-35880)", () =>
    (async () => {
      const session = suiteSession();
      // As Spark's assertStateOperatorCustomMetric: the last batch that read rows.
      const dropped = (n: number) =>
        execute(`${n} rows dropped as duplicates`, (q) =>
          expect(q.recentProgress.filter((p) => p.numInputRows > 0).at(-1)?.stateOperators[0]?.customMetrics.numDroppedDuplicateRows).toBe(n),
        );
      const plain = session.memoryStream(StrInt);
      await run(
        plain.toDF().dropDuplicates("_1"),
        "append",
        addData(plain, ...pairs(["a", 1], ["a", 2], ["b", 3])),
        checkLastBatch(...pairs(["a", 1], ["b", 3])),
        dropped(1),
        addData(plain, ...pairs(["a", 4], ["b", 5], ["c", 6])),
        checkLastBatch(...pairs(["c", 6])),
        dropped(2),
      );
      const withWatermark = session.memoryStream(StrInt);
      const df = withWatermark
        .toDF()
        .withColumn("eventTime", timestamp_seconds(col("_2")))
        .withWatermark("eventTime", "2 seconds")
        .dropDuplicates("_1")
        .select(col("_1"), unix_seconds(col("eventTime")).alias("eventTime"));
      await run(
        df,
        "append",
        addData(withWatermark, ...pairs(["a", 1], ["a", 2], ["b", 3])),
        // The watermark moves after each batch, and the batch without data that follows is the last one: new rows are checked instead.
        checkNewAnswer({ _1: "a", eventTime: 1 }, { _1: "b", eventTime: 3 }),
        dropped(1),
        addData(withWatermark, ...pairs(["a", 4], ["b", 5], ["c", 6])),
        checkNewAnswer({ _1: "c", eventTime: 6 }),
        dropped(2),
      );
    })());

  it("deduplicate with watermark", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(Value);
      await run(
        dedupWithWatermark(input),
        "append",
        addData(input, ...values(...tenToFifteenFiveTimes())),
        checkAnswer(...seconds(10, 11, 12, 13, 14, 15)),
        assertNumStateRows(6, 6),
        // Watermark 15 s: the batch without data that follows forgets 10..15.
        addData(input, ...values(25)),
        checkNewAnswer(...seconds(25)),
        assertNumStateRows(1, 1),
        addData(input, ...values(10)),
        checkNewAnswer(),
        assertNumStateRows(1, 0, 1),
        // Watermark 35 s: 25 is forgotten.
        addData(input, ...values(45)),
        checkNewAnswer(...seconds(45)),
        assertNumStateRows(1, 1),
      );
    })());

  it("deduplicate with aggregate - append mode", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(Value);
      const counts = input
        .toDF()
        .withColumn("eventTime", timestamp_seconds(col("value")))
        .withWatermark("eventTime", "10 seconds")
        .dropDuplicates()
        .groupBy(window(col("eventTime"), "5 seconds").alias("window"))
        .agg(count().alias("count"))
        .select(unix_seconds(col("window.start")).alias("start"), col("count"));
      const row = (start: number, n: number) => ({ start, count: n });
      await run(
        counts,
        "append",
        addData(input, ...values(...tenToFifteenFiveTimes())),
        checkNewAnswer(),
        // Aggregation: [10, 15) and [15, 20); deduplication: 10..15.
        assertNumStateRows([2, 6], [2, 6]),
        // Watermark 15 s: the batch without data emits [10, 15) (five distinct rows) and evicts it,
        // and the deduplication forgets 10..15.
        addData(input, ...values(25)),
        checkNewAnswer(row(10, 5)),
        assertNumStateRows([2, 1], [1, 1]),
        // Late for the deduplication, which drops it before the aggregation sees it.
        addData(input, ...values(10)),
        checkNewAnswer(),
        assertNumStateRows([2, 1], [0, 0], [0, 1]),
        // Watermark 30 s: [15, 20) and [25, 30) are final.
        addData(input, ...values(40)),
        checkNewAnswer(row(15, 1), row(25, 1)),
        assertNumStateRows([1, 1], [1, 1]),
      );
    })());

  it.each(["update", "complete"] as const)("deduplicate with aggregate - %s mode", (mode) =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(StrInt);
      const sums = input
        .toDF()
        .select(col("_1").alias("str"), col("_2").alias("num"))
        .dropDuplicates()
        .groupBy("str")
        .agg(sum(col("num")).alias("sum"));
      const row = (str: string, s: number) => ({ str, sum: s });
      const complete = mode === "complete";
      await run(
        sums,
        mode,
        addData(input, ...pairs(["a", 1])),
        checkLastBatch(row("a", 1)),
        assertNumStateRows([1, 1], [1, 1]),
        // A duplicate: the aggregation sees nothing (complete mode repeats the whole result).
        addData(input, ...pairs(["a", 1])),
        complete ? checkLastBatch(row("a", 1)) : checkLastBatch(),
        assertNumStateRows([1, 1], [0, 0]),
        addData(input, ...pairs(["a", 2])),
        checkLastBatch(row("a", 3)),
        assertNumStateRows([1, 2], [1, 1]),
        addData(input, ...pairs(["b", 1])),
        complete ? checkLastBatch(row("a", 3), row("b", 1)) : checkLastBatch(row("b", 1)),
        assertNumStateRows([2, 3], [1, 1]),
      );
    })());

  itOnce("deduplicate with file sink", () =>
    (async () => {
      const session = suiteSession();
      const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-dedup-file-sink-"));
      try {
        const input = session.memoryStream(Str);
        const q = input
          .toDF()
          .dropDuplicates()
          .writeStream.format("parquet")
          .outputMode("append")
          .option("path", path.join(dir, "out"))
          .option("checkpointLocation", path.join(dir, "checkpoint"))
          .start();
        const written = async () => (await session.read.schema(Str).parquet(path.join(dir, "out")).collect()).map((r) => r.value).sort();
        try {
          input.addData({ value: "a" });
          await q.processAllAvailable();
          expect(await written()).toEqual(["a"]);
          // Dropped.
          input.addData({ value: "a" });
          await q.processAllAvailable();
          expect(await written()).toEqual(["a"]);
          input.addData({ value: "b" });
          await q.processAllAvailable();
          expect(await written()).toEqual(["a", "b"]);
        } finally {
          await q.stop();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    })());

  // SPARK-19841: the watermark is checked on the event-time key, wherever it is among the keys.
  it("watermarkPredicate should filter based on keys (SPARK-19841)", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(IntInt);
      const ids = input
        .toDF()
        .select(timestamp_seconds(col("_1")).alias("time"), col("_2").alias("id"))
        .withWatermark("time", "1 second")
        .dropDuplicates("id", "time")
        .select(col("id"));
      const id = (...vs: number[]) => vs.map((v) => ({ id: v }));
      await run(
        ids,
        "append",
        addData(input, ...pairs([1, 1], [1, 1], [1, 2])),
        checkAnswer(...id(1, 2)),
        addData(input, ...pairs([1, 1], [2, 3], [2, 4])),
        checkNewAnswer(...id(3, 4)),
        // Watermark 1 s: (1, 0) and (1, 1) are late.
        addData(input, ...pairs([1, 0], [1, 1], [3, 5], [3, 6])),
        checkNewAnswer(...id(5, 6)),
        addData(input, ...pairs([1, 0], [4, 7])),
        checkNewAnswer(...id(7)),
      );
    })());

  // SPARK-21546: with the event time outside the keys, keys are kept regardless of the watermark.
  it("dropDuplicates should ignore watermark when it's not a key (SPARK-21546)", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(IntInt);
      const firsts = input
        .toDF()
        .select(col("_1").alias("id"), timestamp_seconds(col("_2")).alias("time"))
        .withWatermark("time", "1 second")
        .dropDuplicates("id")
        .select(col("id"), unix_seconds(col("time")).alias("time"));
      await run(firsts, "append", addData(input, ...pairs([1, 1], [1, 2], [2, 2])), checkAnswer({ id: 1, time: 1 }, { id: 2, time: 2 }));
    })());

  // With batches without data turned off, the keys behind the watermark are only forgotten by the
  // next batch with data. (Spark also waits for a progress with no output rows; Sluice reports no
  // progress for a trigger that runs no batch, so that part is read from the batch without data.)
  itOnce.each([true, false])("test no-data flag (spark.sql.streaming.noDataMicroBatches.enabled = %s)", (flag) =>
    (async () => {
      const session = suiteSession();
      // The session is shared: the setting is set for this query only.
      session.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", flag);
      try {
        const input = session.memoryStream(Value);
        await run(
          dedupWithWatermark(input),
          "append",
          addData(input, ...values(10, 11, 12, 13, 14, 15)),
          checkAnswer(...seconds(10, 11, 12, 13, 14, 15)),
          assertNumStateRows(6, 6),
          addData(input, ...values(25)),
          checkNewAnswer(...seconds(25)),
          flag ? assertNumStateRows(1, 1) : assertNumStateRows(7, 1),
          execute("batches without data only when enabled", (q) => {
            expect(q.recentProgress.map((p) => p.batchId)).toEqual(flag ? [0, 1, 2, 3] : [0, 1]);
            if (flag) expect(q.lastProgress?.sink.numOutputRows).toBe(0);
          }),
        );
      } finally {
        session.conf.unset("spark.sql.streaming.noDataMicroBatches.enabled");
      }
    })());
});

describe.each(SUITE_CASES)("deduplication within watermark (Spark's StreamingDeduplicationWithinWatermarkSuite), $workers workers, restart after each step: $restart", ({ workers, restart }) => {
  const run = suiteRunner(restart);
  const suiteSession = sessionPerSuite(workers);

  /** Spark's `(String, Int)` input with `_2` as event time, deduplicated on `_1` within a watermark of `delay`. */
  function withinOnFirst(input: MemoryStream<any>, delay: string) {
    return input
      .toDF()
      .withColumn("eventTime", timestamp_seconds(col("_2")))
      .withWatermark("eventTime", delay)
      .dropDuplicatesWithinWatermark("_1")
      .select(col("_1"), unix_seconds(col("eventTime")).alias("eventTime"));
  }
  const keyed = (...ps: [string, number][]) => ps.map(([_1, eventTime]) => ({ _1, eventTime }));

  it("deduplicate with all columns with event time column in DataFrame", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(Value);
      await run(
        dedupWithWatermark(input, true),
        "append",
        // Watermark 5 s; the batch without data forgets nothing (each key expires at its time + 10 s).
        addData(input, ...values(...tenToFifteenFiveTimes())),
        checkAnswer(...seconds(10, 11, 12, 13, 14, 15)),
        assertNumStateRows(6, 6),
        // Watermark 7 s; 13..15 are duplicates.
        addData(input, ...values(13, 14, 15, 16, 17)),
        checkNewAnswer(...seconds(16, 17)),
        assertNumStateRows(8, 2),
        addData(input, ...values(5)),
        checkNewAnswer(),
        assertNumStateRows(8, 0, 1),
        // Watermark 25 s: the keys that expire at or before 25 s (10..15) are forgotten.
        addData(input, ...values(35)),
        checkNewAnswer(...seconds(35)),
        assertNumStateRows(3, 1),
        // Watermark 45 s: 16, 17 and 35 are forgotten.
        addData(input, ...values(55)),
        checkNewAnswer(...seconds(55)),
        assertNumStateRows(1, 1),
      );
    })());

  it("deduplicate with subset of columns which event time column is not in subset", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(StrInt);
      await run(
        withinOnFirst(input, "2 seconds"),
        "append",
        // Watermark 15 s; "a" expires at 19 s.
        addData(input, ...pairs(["a", 17])),
        checkNewAnswer(...keyed(["a", 17])),
        assertNumStateRows(1, 1),
        addData(input, ...pairs(["a", 16])),
        checkNewAnswer(),
        assertNumStateRows(1, 0),
        // Behind the watermark.
        addData(input, ...pairs(["a", 13])),
        checkNewAnswer(),
        assertNumStateRows(1, 0, 1),
        // Watermark 20 s: the batch without data forgets "a"; "b" and "c" expire at 24 s and 23 s.
        addData(input, ...pairs(["b", 22], ["c", 21])),
        checkNewAnswer(...keyed(["b", 22], ["c", 21])),
        assertNumStateRows(2, 2),
        // "a" is new again; it expires at 23 s.
        addData(input, ...pairs(["a", 21])),
        checkNewAnswer(...keyed(["a", 21])),
        assertNumStateRows(3, 1),
        // Watermark 23 s: "a" and "c" are forgotten.
        addData(input, ...pairs(["d", 25])),
        checkNewAnswer(...keyed(["d", 25])),
        assertNumStateRows(2, 1),
      );
    })());

  // SPARK-50492: the event-time column may be dropped right after the deduplication.
  it("drop event time column after dropDuplicatesWithinWatermark (SPARK-50492)", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(IntInt);
      const df = input.toDF().withColumn("first", timestamp_seconds(col("_1"))).withWatermark("first", "10 seconds").dropDuplicatesWithinWatermark("_2").select(col("_2"));
      await run(df, "append", addData(input, ...pairs([1, 2])), checkAnswer({ _2: 2 }));
    })());
});

describe("dropDuplicatesWithinWatermark is refused where Spark refuses it", () => {
  const suiteSession = sessionPerSuite(0);
  it("deduplicate in batch DataFrame", () =>
    (async () => {
      const session = suiteSession();
      const ids = session.createDataFrame(
        Array.from({ length: 10 }, (_, id) => ({ id })),
        z.object({ id: z.int() }),
      );
      const refused = "dropDuplicatesWithinWatermark is not supported with batch DataFrames/DataSets";
      await expect(ids.dropDuplicatesWithinWatermark().collect()).rejects.toThrow(refused);
      await expect(ids.withColumn("newcol", col("id")).dropDuplicatesWithinWatermark("newcol").collect()).rejects.toThrow(refused);
    })());

  it("deduplicate without event time column should result in error", () =>
    (async () => {
      const session = suiteSession();
      const input = session.memoryStream(Str);
      const start = (df: DataFrame<any>) => () => df.writeStream.format("console").start();
      const refused = /dropDuplicatesWithinWatermark is not supported in streaming DataFrames\/DataSets without watermark/;
      expect(start(input.toDF().dropDuplicatesWithinWatermark())).toThrow(refused);
      expect(start(input.toDF().withColumn("newcol", col("value")).dropDuplicatesWithinWatermark("newcol"))).toThrow(refused);
      // Only the other side of the join has a watermark.
      const other = session.memoryStream(StrInt);
      const otherSide = other.toDF().select(col("_1").alias("key"), timestamp_seconds(col("_2")).alias("time")).withWatermark("time", "10 seconds");
      const joined = input.toDF().select(col("value").alias("key")).dropDuplicatesWithinWatermark().join(otherSide, "key");
      expect(start(joined)).toThrow(refused);
    })());
});
