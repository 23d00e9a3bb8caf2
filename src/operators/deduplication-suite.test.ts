import * as os from "node:os";
import * as path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { col, timestamp_seconds, unix_seconds } from "../api/functions.js";
import type { Session } from "../api/session.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import { itWithoutRestarts, sessionsPerFile, SUITE_CASES, suiteRunner } from "../testing/fixtures.js";
import { buildScenario, type StreamScenario } from "../testing/scenario.js";
import {
  dedupOnEventTime,
  deduplicationScenarios,
  pairs,
  seconds,
  Str,
  StrInt,
  tenToFifteenFiveTimes,
  values,
  withinWatermarkScenarios,
} from "../testing/scenarios/deduplication.js";
import { addData, assertNumStateRows, checkAnswer, checkLastBatch, checkNewAnswer, execute, type StreamAction } from "../testing/stream-test.js";

/**
 * Spark's StreamingDeduplicationSuite and StreamingDeduplicationWithinWatermarkSuite on their own
 * inputs and with their expected answers. Event times are whole seconds (Spark's
 * `timestamp_seconds`) and are reported in seconds; Spark's tuple columns keep their names `_1`
 * and `_2`. `assertNumStateRows(total, updated, dropped)` reads the state operators as Spark's
 * progress reports them, the one nearest the sink first. Each scenario runs with 0 and 2 workers.
 * The scenarios of src/testing/scenarios/deduplication.ts also run stopped and restarted after
 * every step that adds data (the restarted query reads its state back from the checkpoint and must
 * give the same rows), and deduplication.new-process.test.ts runs them with each start in a new
 * process; those written here, with `itOnce`, need one uninterrupted run.
 */

const sessionFor = sessionsPerFile("dedup-suite");
const sessionPerSuite = (workers: number) => () => sessionFor(workers);

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

/** Registers each scenario as a test: built in the suite's session, run straight through or restarted after every step. */
function scenarioTests(scenarios: readonly StreamScenario[], suiteSession: () => Session, restart: boolean): void {
  const run = suiteRunner(restart);
  for (const s of scenarios) {
    it(s.name, async () => {
      const { inputs, df } = await buildScenario(suiteSession(), s.query);
      await run(df, s.outputMode, ...s.actions(inputs));
    });
  }
}

/** Spark's event-time dedup query (see `dedupOnEventTime`) on a new input. */
function dedupWithWatermark(session: Session) {
  const { inputs, df } = dedupOnEventTime(session, false);
  return { input: inputs[0]!, df };
}

describe.each(SUITE_CASES)("streaming deduplication (Spark's StreamingDeduplicationSuite), $workers workers, restart after each step: $restart", ({ workers, restart }) => {
  const run = suiteRunner(restart);
  const suiteSession = sessionPerSuite(workers);
  /** Scenarios that read one run's progress or need one uninterrupted run run without restarts only. */
  const itOnce = itWithoutRestarts(restart);

  scenarioTests(deduplicationScenarios, suiteSession, restart);

  // SPARK-35896: the figures of the dedupe operator's progress. Spark runs it with two shuffle
  // partitions and also expects numShufflePartitions = numStateStoreInstances = 2; Sluice has no
  // shuffle-partition setting and keeps one state store per operator, so those two are not asserted.
  itOnce("metrics in StateOperatorProgress are output correctly (SPARK-35896)", () =>
    (async () => {
      const { input, df } = dedupWithWatermark(suiteSession());
      const removed = removedTracker();
      await run(
        df,
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

  // With batches without data turned off, the keys behind the watermark are only forgotten by the
  // next batch with data. (Spark also waits for a progress with no output rows; Sluice reports no
  // progress for a trigger that runs no batch, so that part is read from the batch without data.)
  itOnce.each([true, false])("test no-data flag (spark.sql.streaming.noDataMicroBatches.enabled = %s)", (flag) =>
    (async () => {
      const session = suiteSession();
      // The session is shared: the setting is set for this query only.
      session.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", flag);
      try {
        const { input, df } = dedupWithWatermark(session);
        await run(
          df,
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
    })());});

describe.each(SUITE_CASES)("deduplication within watermark (Spark's StreamingDeduplicationWithinWatermarkSuite), $workers workers, restart after each step: $restart", ({ workers, restart }) => {
  const suiteSession = sessionPerSuite(workers);
  scenarioTests(withinWatermarkScenarios, suiteSession, restart);
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
