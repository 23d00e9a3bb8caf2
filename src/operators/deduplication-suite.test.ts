import * as os from "node:os";
import * as path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { col, timestamp_seconds, unix_seconds } from "../api/functions.js";
import type { MemoryStream } from "../api/memory-stream.js";
import type { Session } from "../api/session.js";
import { StateSchemaError } from "../errors/errors.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { SchemaOfZod } from "../schema/zod-schema.js";
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
  withinOnFirst,
  withinWatermarkScenarios,
} from "../testing/scenarios/deduplication.js";
import { addData, assertNumStateRows, checkAnswer, checkLastBatch, checkNewAnswer, execute, testStream, type StreamAction } from "../testing/stream-test.js";
import { tempDir } from "../testing/temp-dir.js";

/**
 * Spark's StreamingDeduplicationSuite and StreamingDeduplicationWithinWatermarkSuite on their own
 * inputs and with their expected answers. Event times are whole seconds (Spark's
 * `timestamp_seconds`) and are reported in seconds; Spark's tuple columns keep their names `_1`
 * and `_2`. `assertNumStateRows(total, updated, dropped)` reads the state operators as Spark's
 * progress reports them, the one nearest the sink first. Each scenario runs with 0 and 2 workers.
 * The scenarios of src/testing/scenarios/deduplication.ts also run stopped and restarted after
 * every step that adds data (the restarted query reads its state back from the checkpoint and must
 * give the same rows), and deduplication.new-process.test.ts runs them with each start in a new
 * process; those written here, with `itOnce`, need one uninterrupted run or restart on their own
 * (SPARK-39650: a query restarted on another input).
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

/** Spark's `(String, Int, String)` input of the SPARK-39650 tests: `(String, Int)` with a column `_3` more. */
const StrIntStr = z.object({ _1: z.string(), _2: z.int(), _3: z.string() });
const triples = (...ts: [string, number, string][]) => ts.map(([_1, _2, _3]) => ({ _1, _2, _3 }));

/**
 * SPARK-39650: a deduplication on `_1` runs on a checkpoint, then `restart` starts another query on
 * it, on an input that gained a column `_3`. As in Spark's tests, that input first gets the two
 * blocks of rows the checkpoint's batches read (with `_3` "dummy"), so that its offsets are the
 * checkpoint's; the restarted query reads what is added after.
 */
async function restartOnWiderInput(
  session: Session,
  first: { readonly df: DataFrame<any>; readonly actions: readonly StreamAction[] },
  restart: (input: MemoryStream<SchemaOfZod<typeof StrIntStr>>, checkpointLocation: string) => Promise<void>,
): Promise<void> {
  const checkpoint = tempDir("sluice-spark-39650-");
  try {
    await testStream(first.df, "append", { checkpointLocation: checkpoint.dir }).run(...first.actions);
    const input = session.memoryStream(StrIntStr);
    input.addData(...triples(["a", 1, "dummy"]));
    input.addData(...triples(["a", 2, "dummy"], ["b", 3, "dummy"]));
    await restart(input, checkpoint.dir);
  } finally {
    checkpoint.remove();
  }
}

/** Spark's first query of the SPARK-39650 tests: `(String, Int)` deduplicated on `_1`, two batches. */
function dedupOnFirstTwoBatches(session: Session) {
  const input = session.memoryStream(StrInt);
  const actions = [addData(input, ...pairs(["a", 1])), checkLastBatch(...pairs(["a", 1])), addData(input, ...pairs(["a", 2], ["b", 3])), checkLastBatch(...pairs(["b", 3]))];
  return { df: input.toDF().dropDuplicates("_1"), actions };
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
    })());

  // SPARK-39650: the state is the `_1` keys alone, so the input may gain a column; of the new
  // block's rows only the key the state has not seen comes out.
  itOnce("duplicate with specific keys should allow input to change schema (SPARK-39650)", () =>
    (async () => {
      const session = suiteSession();
      await restartOnWiderInput(session, dedupOnFirstTwoBatches(session), (wider, checkpointLocation) =>
        testStream(wider.toDF().dropDuplicates("_1"), "append", { checkpointLocation }).run(
          addData(wider, ...triples(["a", 5, "a"], ["b", 2, "b"], ["c", 9, "c"])),
          checkLastBatch(...triples(["c", 9, "c"])),
        ),
      );
    })());

  // SPARK-39650 again: deduplicating on (_1, _2) instead changes the state's keys, so the restart is
  // refused. (Spark's test restarts a checkpoint Spark 3.3 or 3.5 wrote; this one Sluice wrote.)
  itOnce("recovery from checkpoint with changes on key schema are not allowed (SPARK-39650)", () =>
    (async () => {
      const session = suiteSession();
      await restartOnWiderInput(session, dedupOnFirstTwoBatches(session), async (wider, checkpointLocation) => {
        const restarted = testStream(wider.toDF().dropDuplicates("_1", "_2"), "append", { checkpointLocation }).run(
          addData(wider, ...triples(["a", 5, "a"], ["b", 2, "b"], ["c", 9, "c"])),
          checkLastBatch(...triples(["a", 5, "a"], ["b", 2, "b"], ["c", 9, "c"])),
        );
        const refused = await restarted.then(
          () => null,
          (e: Error) => e.cause,
        );
        expect(refused).toBeInstanceOf(StateSchemaError);
        expect((refused as Error).message).toContain(
          "stateful operator 0 (dedupe): its key columns were [_1: string] and are [_1: string, _2: int64]: 2 column(s) where the state has 1.",
        );
      });
    })());
});

describe.each(SUITE_CASES)("deduplication within watermark (Spark's StreamingDeduplicationWithinWatermarkSuite), $workers workers, restart after each step: $restart", ({ workers, restart }) => {
  const suiteSession = sessionPerSuite(workers);
  const itOnce = itWithoutRestarts(restart);

  scenarioTests(withinWatermarkScenarios, suiteSession, restart);

  // SPARK-39650: the state is the `_1` keys (and when each may be forgotten), so the input may gain
  // a column, which the restarted query also selects.
  itOnce("duplicate with specific keys should allow input to change schema (SPARK-39650)", () =>
    (async () => {
      const session = suiteSession();
      const { inputs, df } = withinOnFirst(session, "10 seconds");
      const input = inputs[0]!;
      const keyed = (_1: string, eventTime: number) => ({ _1, eventTime });
      const first = { df, actions: [addData(input, ...pairs(["a", 1])), checkNewAnswer(keyed("a", 1)), addData(input, ...pairs(["a", 2], ["b", 3])), checkNewAnswer(keyed("b", 3))] };
      await restartOnWiderInput(session, first, (wider, checkpointLocation) => {
        const restarted = wider
          .toDF()
          .withColumn("eventTime", timestamp_seconds(col("_2")))
          .withWatermark("eventTime", "10 seconds")
          .dropDuplicatesWithinWatermark("_1")
          .select(col("_1"), unix_seconds(col("eventTime")).alias("eventTime"), col("_3"));
        return testStream(restarted, "append", { checkpointLocation }).run(
          addData(wider, ...triples(["a", 5, "a"], ["b", 2, "b"], ["c", 9, "c"])),
          checkNewAnswer({ _1: "c", eventTime: 9, _3: "c" }),
        );
      });
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
