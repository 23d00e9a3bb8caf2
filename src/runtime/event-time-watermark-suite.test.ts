import * as os from "node:os";
import * as path from "node:path";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, expr, timestamp_seconds, unix_seconds, window } from "../api/functions.js";
import type { MemoryStream } from "../api/memory-stream.js";
import { Session } from "../api/session.js";
import { mergeStats } from "../batch/task-metrics.js";
import { MULTIPLE_WATERMARK_POLICY, type WatermarkPolicy } from "../config/sql-conf.js";
import { AnalysisError, OptionError } from "../errors/errors.js";
import { itWithoutRestarts, sessionsPerFile, SUITE_CASES, suiteRunner } from "../testing/fixtures.js";
import { buildScenario } from "../testing/scenario.js";
import { add, eventTimeWatermarkScenarios, row, Value, values, windowedCounts } from "../testing/scenarios/event-time-watermark.js";
import {
  assertWatermark,
  checkAnswer,
  checkLastBatch,
  checkNewAnswer,
  execute,
  expectFailure,
  multiAddData,
  startStream,
  stopStream,
  testStream,
  type StreamAction,
} from "../testing/stream-test.js";

/**
 * The scenarios of Spark's EventTimeWatermarkSuite that src/runtime/watermark-rules.test.ts does
 * not already hold (that file has the watermark of the first batches, Trigger.Once, the no-data
 * flag, complete mode and two watermarked inputs), on Spark's inputs and with its expected
 * answers. Event times are whole seconds since the epoch (Spark's `timestamp_seconds(value)`),
 * windows of 5 seconds, a watermark 10 seconds behind, and window starts reported in seconds.
 * Each scenario runs with 0 and 2 workers. The scenarios of
 * src/testing/scenarios/event-time-watermark.ts also run stopped and restarted before every step
 * that adds data (the restarted query reads its state and watermark back from the checkpoint and
 * must give the same rows), and event-time-watermark.new-process.test.ts runs them with each start
 * in a new process; those written here, with `itOnce`, read one run's progress or stop and restart
 * on their own.
 */

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** Spark's assertEventStats: the event-time figures of the last batch that read rows, in seconds. */
const assertEventStats = (e: { min: number; max: number; avg: number; watermark: number } | "none"): StreamAction =>
  execute(`event time stats ${JSON.stringify(e)}`, (q) => {
    const withData = q.recentProgress.filter((p) => p.numInputRows > 0).at(-1);
    expect(withData?.eventTime).toEqual(e === "none" ? {} : { min: iso(e.min), max: iso(e.max), avg: iso(e.avg), watermark: iso(e.watermark) });
  });

/** Spark's dfWithMultipleWatermarks: two inputs with watermarks 10 and 15 seconds behind, their event times in seconds. */
function dfWithMultipleWatermarks(input1: MemoryStream<any>, input2: MemoryStream<any>) {
  const timed = (input: MemoryStream<any>, delay: string) =>
    input.toDF().withColumn("eventTime", timestamp_seconds(col("value"))).withWatermark("eventTime", delay);
  return timed(input1, "10 seconds")
    .union(timed(input2, "15 seconds"))
    .select(unix_seconds(col("eventTime")).alias("eventTime"));
}

const eventTimes = (...seconds: number[]) => seconds.map((eventTime) => ({ eventTime }));

/** Spark's checkWatermark: one more row for `input`, and the watermark the batch that read it ran with, in seconds. */
const checkWatermark = (input: MemoryStream<any>, seconds: number): StreamAction[] => [add(input, 1), assertWatermark(seconds * 1000)];

/** Spark's withSQLConf for the multiple-watermark policy: `fn` runs with it set, and it is unset afterwards. */
async function withPolicy(session: Session, policy: WatermarkPolicy, fn: () => Promise<void>): Promise<void> {
  session.conf.set(MULTIPLE_WATERMARK_POLICY, policy);
  try {
    await fn();
  } finally {
    session.conf.unset(MULTIPLE_WATERMARK_POLICY);
  }
}

/** The settings the checkpoint's offsets log entry `batchId` records. */
function loggedConf(checkpointLocation: string, batchId: number): Record<string, string> | undefined {
  const text = readFileSync(path.join(checkpointLocation, "offsets", String(batchId)), "utf8");
  return JSON.parse(text.slice(text.indexOf("\n") + 1)).conf;
}

/** Rewrites every offsets log entry of the checkpoint with `edit` applied to its JSON. */
function rewriteOffsetsLog(checkpointLocation: string, edit: (entry: Record<string, unknown>) => void): void {
  const dir = path.join(checkpointLocation, "offsets");
  for (const name of readdirSync(dir).filter((f) => /^\d+$/.test(f))) {
    const file = path.join(dir, name);
    const text = readFileSync(file, "utf8");
    const nl = text.indexOf("\n");
    const entry = JSON.parse(text.slice(nl + 1));
    edit(entry);
    writeFileSync(file, `${text.slice(0, nl)}\n${JSON.stringify(entry)}\n`);
  }
}

const tempCheckpoint = () => mkdtempSync(path.join(os.tmpdir(), "sluice-watermark-policy-"));

const sessionFor = sessionsPerFile("watermark-suite");

describe.each(SUITE_CASES)("Spark's EventTimeWatermarkSuite, $workers workers, restart after each step: $restart", ({ workers, restart }) => {
  const run = suiteRunner(restart);
  /** Scenarios that read one run's progress, or restart on their own, run without restarts only. */
  const itOnce = itWithoutRestarts(restart);

  for (const sc of eventTimeWatermarkScenarios) {
    it(sc.name, async () => {
      const { inputs, df } = await buildScenario(sessionFor(workers), sc.query);
      await run(df, sc.outputMode, ...sc.actions(inputs));
    });
  }

  // Without a watermark a batch reports no event-time figures; with one, the min, max and average
  // event time of the batch's rows and the watermark the batch ran with.
  itOnce("event time and watermark metrics", async () => {
    const session = sessionFor(workers);
    const withoutWatermark = windowedCounts(session, null);
    const input1 = withoutWatermark.inputs[0]!;
    await run(
      withoutWatermark.df,
      "complete",
      add(input1, 15),
      checkAnswer(row(15, 1)),
      assertEventStats("none"),
      add(input1, 10, 12, 14),
      checkAnswer(row(10, 3), row(15, 1)),
      assertEventStats("none"),
    );
    const withWatermark = windowedCounts(session, "10 seconds");
    const input2 = withWatermark.inputs[0]!;
    await run(
      withWatermark.df,
      "append",
      add(input2, 15),
      checkAnswer(),
      assertEventStats({ min: 15, max: 15, avg: 15, watermark: 0 }),
      add(input2, 10, 12, 14),
      checkAnswer(),
      assertEventStats({ min: 10, max: 14, avg: 12, watermark: 5 }),
      add(input2, 25),
      checkAnswer(row(10, 3)),
      assertEventStats({ min: 25, max: 25, avg: 25, watermark: 5 }),
    );
  });

  // A delay of "2 years 5 months" is 29 months of 31 days (Spark's getDelayMs): the watermark is
  // 899 days behind the latest event, which the calendar puts 29 or 30 months back. Event times
  // are now, as in Spark's test.
  itOnce("delay in months and years handled correctly", async () => {
    const { inputs, df } = windowedCounts(sessionFor(workers), "2 years 5 months");
    const input = inputs[0]!;
    const nowSeconds = Math.floor(Date.now() / 1000);
    const monthsSinceEpoch = (d: Date) => d.getUTCFullYear() * 12 + d.getUTCMonth();
    await run(
      df,
      "append",
      add(input, nowSeconds),
      checkAnswer(),
      add(input, nowSeconds),
      checkAnswer(),
      execute("the watermark is 29 months of 31 days behind the latest event", (q) => {
        const stats = q.recentProgress.filter((p) => p.numInputRows > 0).at(-1)?.eventTime;
        expect(stats?.max).toBe(iso(nowSeconds));
        const watermark = new Date(stats?.watermark ?? NaN);
        expect(watermark.getTime()).toBe(nowSeconds * 1000 - 29 * 31 * 86_400_000);
        expect([29, 30]).toContain(monthsSinceEpoch(new Date(nowSeconds * 1000)) - monthsSinceEpoch(watermark));
      }),
    );
  });

  // The query restarts on a checkpoint whose older commits were purged, into an empty sink (Spark
  // purges the commits before the last one and clears its memory sink): the last committed batch
  // is not run again, and the watermark carries over.
  itOnce("recovery", async () => {
    const checkpointLocation = mkdtempSync(path.join(os.tmpdir(), "sluice-watermark-recovery-"));
    try {
      const { inputs, df } = windowedCounts(sessionFor(workers), "10 seconds");
      const input = inputs[0]!;
      await testStream(df, "append", { checkpointLocation }).run(
        add(input, 10, 11, 12, 13, 14, 15),
        checkAnswer(),
        // Watermark 15 s.
        add(input, 25),
        checkAnswer(row(10, 5)),
        stopStream(),
      );
      const commits = path.join(checkpointLocation, "commits");
      const committed = readdirSync(commits).filter((f) => /^\d+$/.test(f)).map(Number);
      const latest = Math.max(...committed);
      for (const id of committed.filter((c) => c < latest)) rmSync(path.join(commits, String(id)));
      await testStream(df, "append", { checkpointLocation }).run(
        // Watermark 20 s; 10 is late.
        add(input, 10, 27, 30),
        checkAnswer(row(15, 1)),
        stopStream(),
        startStream(),
        // The watermark is still 20 s: 17 is late.
        add(input, 17),
        checkAnswer(row(15, 1)),
        // Watermark 30 s.
        add(input, 40),
        checkNewAnswer(row(25, 2)),
      );
    } finally {
      rmSync(checkpointLocation, { recursive: true, force: true });
    }
  });

  // With spark.sql.streaming.multipleWatermarkPolicy "max" the global watermark is the largest
  // of the inputs' watermarks, so it moves when any one input moves; a restart keeps the policy.
  itOnce("MultipleWatermarkPolicy: max", async () => {
    const session = sessionFor(workers);
    const input1 = session.memoryStream(Value);
    const input2 = session.memoryStream(Value);
    await withPolicy(session, "max", () =>
      run(
        dfWithMultipleWatermarks(input1, input2),
        "append",
        multiAddData([input1, values(20)], [input2, values(30)]),
        checkLastBatch(...eventTimes(20, 30)),
        ...checkWatermark(input1, 15), // max(20 - 10, 30 - 15)
        stopStream(),
        startStream(),
        ...checkWatermark(input1, 15), // the watermark is restored
        multiAddData([input1, values(120)], [input2, values(130)]),
        checkLastBatch(...eventTimes(120, 130)),
        ...checkWatermark(input1, 115), // max(120 - 10, 130 - 15): the policy is restored
        add(input1, 150),
        checkLastBatch(...eventTimes(150)),
        ...checkWatermark(input1, 140), // moves with one input's data alone
      ),
    );
  });

  itOnce("MultipleWatermarkPolicy: min", async () => {
    const session = sessionFor(workers);
    const input1 = session.memoryStream(Value);
    const input2 = session.memoryStream(Value);
    await withPolicy(session, "min", () =>
      run(
        dfWithMultipleWatermarks(input1, input2),
        "append",
        multiAddData([input1, values(20)], [input2, values(30)]),
        checkLastBatch(...eventTimes(20, 30)),
        ...checkWatermark(input1, 10), // min(20 - 10, 30 - 15)
        stopStream(),
        startStream(),
        ...checkWatermark(input1, 10), // the watermark is restored
        multiAddData([input1, values(120)], [input2, values(130)]),
        checkLastBatch(...eventTimes(120, 130)),
        ...checkWatermark(input2, 110), // min(120 - 10, 130 - 15): the policy is restored
        add(input2, 150),
        checkLastBatch(...eventTimes(150)),
        ...checkWatermark(input2, 110), // does not move with one input's data alone
      ),
    );
  });

  // The policy a query started with is in its offsets log (Spark's offset metadata conf); a
  // restart on that checkpoint keeps it, whatever the session says now.
  itOnce("MultipleWatermarkPolicy: recovery from checkpoints ignores session conf", async () => {
    const session = sessionFor(workers);
    const input1 = session.memoryStream(Value);
    const input2 = session.memoryStream(Value);
    const checkpointLocation = tempCheckpoint();
    try {
      await withPolicy(session, "max", () =>
        testStream(dfWithMultipleWatermarks(input1, input2), "append", { checkpointLocation }).run(
          multiAddData([input1, values(20)], [input2, values(30)]),
          checkLastBatch(...eventTimes(20, 30)),
          ...checkWatermark(input1, 15), // max(20 - 10, 30 - 15)
        ),
      );
      expect(loggedConf(checkpointLocation, 0)).toEqual({ [MULTIPLE_WATERMARK_POLICY]: "max" });
      await withPolicy(session, "min", () =>
        testStream(dfWithMultipleWatermarks(input1, input2), "append", { checkpointLocation }).run(
          ...checkWatermark(input1, 15), // the watermark is restored
          multiAddData([input1, values(120)], [input2, values(130)]),
          checkLastBatch(...eventTimes(120, 130)),
          ...checkWatermark(input1, 115), // max(120 - 10, 130 - 15): the checkpoint's policy
          add(input1, 150),
          checkLastBatch(...eventTimes(150)),
          ...checkWatermark(input1, 140), // moves with one input's data alone
        ),
      );
      const entries = readdirSync(path.join(checkpointLocation, "offsets")).filter((f) => /^\d+$/.test(f));
      for (const id of entries) expect(loggedConf(checkpointLocation, Number(id))).toEqual({ [MULTIPLE_WATERMARK_POLICY]: "max" });
    } finally {
      rmSync(checkpointLocation, { recursive: true, force: true });
    }
  });

  // Spark's test restarts a Spark 2.3.1 checkpoint, written before the policy was logged. Sluice's
  // counterpart: an offsets log that records no policy (written before Sluice had the setting,
  // when the watermark was always the minimum) restarts with "min" even under a session's "max".
  itOnce("MultipleWatermarkPolicy: recovery from checkpoints that record no policy ensures min policy", async () => {
    const session = sessionFor(workers);
    const input1 = session.memoryStream(Value);
    const input2 = session.memoryStream(Value);
    const checkpointLocation = tempCheckpoint();
    try {
      await testStream(dfWithMultipleWatermarks(input1, input2), "append", { checkpointLocation }).run(
        multiAddData([input1, values(20)], [input2, values(30)]),
        checkLastBatch(...eventTimes(20, 30)),
        add(input1, 10),
        checkLastBatch(...eventTimes(10)),
      );
      rewriteOffsetsLog(checkpointLocation, (entry) => delete entry.conf);
      await withPolicy(session, "max", () =>
        testStream(dfWithMultipleWatermarks(input1, input2), "append", { checkpointLocation }).run(
          multiAddData([input1, values(120)], [input2, values(130)]),
          checkLastBatch(...eventTimes(120, 130)),
          ...checkWatermark(input2, 110), // min(120 - 10, 130 - 15), although the session says max
          add(input2, 150),
          checkLastBatch(...eventTimes(150)),
          ...checkWatermark(input2, 110),
        ),
      );
    } finally {
      rmSync(checkpointLocation, { recursive: true, force: true });
    }
  });

  itOnce("MultipleWatermarkPolicy: a checkpoint recording a policy that is not one stops the query, naming the file", async () => {
    const session = sessionFor(workers);
    const input1 = session.memoryStream(Value);
    const input2 = session.memoryStream(Value);
    const checkpointLocation = tempCheckpoint();
    try {
      const df = dfWithMultipleWatermarks(input1, input2);
      await testStream(df, "append", { checkpointLocation }).run(add(input1, 20), checkLastBatch(...eventTimes(20)));
      rewriteOffsetsLog(checkpointLocation, (entry) => {
        entry.conf = { [MULTIPLE_WATERMARK_POLICY]: "median" };
      });
      await testStream(df, "append", { checkpointLocation }).run(
        expectFailure(
          `checkpoint file ${path.join(checkpointLocation, "offsets", "0")} is corrupt: it records ${MULTIPLE_WATERMARK_POLICY} "median", but valid values are 'min' and 'max'`,
        ),
      );
    } finally {
      rmSync(checkpointLocation, { recursive: true, force: true });
    }
  });

  // SPARK-21565: a watermark on a column of a file source, grouped by it in append mode. The
  // watermark (100 ms - 2 s, so 0) passes no group, so nothing is emitted.
  itOnce("watermark operator accepts attributes from a file source (SPARK-21565)", async () => {
    const session = sessionFor(workers);
    const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-watermark-json-"));
    try {
      mkdirSync(path.join(dir, "in"));
      writeFileSync(path.join(dir, "in", "part-0.json"), `${JSON.stringify({ symbol: "a", price: 100.0, eventTime: new Date(100).toISOString() })}\n`);
      const Tick = z.object({ symbol: z.string(), price: z.number(), eventTime: z.date() });
      const events = session.readStream
        .schema(Tick)
        .json(path.join(dir, "in"))
        .withWatermark("eventTime", "2 seconds")
        .groupBy("symbol", "eventTime")
        .agg(count(col("price")).alias("count"))
        .select(col("symbol"), col("eventTime"), col("count"));
      await testStream(events, "append").run(checkAnswer());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Spark's EventTimeWatermarkSuite: checks when the query is defined or started", () => {
  const session = () => sessionFor(0);
  const eventTimes = () =>
    session()
      .memoryStream(Value)
      .toDF()
      .withColumn("eventTime", timestamp_seconds(col("value")));

  it("error on bad column", () => {
    expect(() => session().memoryStream(Value).toDF().withWatermark("badColumn" as never, "1 minute")).toThrow(/badColumn/);
  });

  it("error on wrong type", () => {
    expect(() => session().memoryStream(Value).toDF().withWatermark("value" as never, "1 minute")).toThrow(/"value".*int/);
  });

  it("delay threshold should not be negative", () => {
    for (const delay of ["-1 year", "1 year -13 months", "1 month -40 days", "-10 seconds"]) {
      expect(() => eventTimes().withWatermark("eventTime", delay)).toThrow(OptionError);
      expect(() => eventTimes().withWatermark("eventTime", delay)).toThrow("should not be negative");
    }
  });

  // SPARK-35815: the delay is an interval in any of Spark's forms: a unit list with or without the
  // INTERVAL keyword, quoted values, and the ANSI unit-to-unit forms; a month counts 31 days and a
  // year 12 months. Spark runs this with spark.sql.legacy.interval.enabled true and false, which
  // give the same delays; Sluice has no such setting.
  const MS_PER_DAY = 86_400_000;
  const DAYS_PER_MONTH = 31;
  it.each([
    [["3 days", "Interval 3 day", "inTerval '3' day"], 3 * MS_PER_DAY],
    [[" 5 hours", "INTERVAL 5 hour", "interval '5' hour"], 5 * 3_600_000],
    [["\t8 minutes", "interval 8 minute", "interval '8' minute"], 8 * 60_000],
    [["10 seconds", "interval 10 second", "interval '10' second"], 10_000],
    [["1 years", "interval 1 year", "interval '1' year"], 12 * DAYS_PER_MONTH * MS_PER_DAY],
    [["1 months", "interval 1 month", "interval '1' month"], DAYS_PER_MONTH * MS_PER_DAY],
    [
      ["1 day 2 hours 3 minutes 4 seconds", " interval 1 day 2 hours 3 minutes 4 seconds", "\tinterval '1' day '2' hours '3' minutes '4' seconds", "interval '1 2:3:4' day to second"],
      MS_PER_DAY + 2 * 3_600_000 + 3 * 60_000 + 4000,
    ],
    [[" 1 year 2 months", "interval 1 year 2 month", "interval '1' year '2' month", "\tinterval '1-2' year to month"], (12 + 2) * DAYS_PER_MONTH * MS_PER_DAY],
  ] as const)("SPARK-35815: Support ANSI intervals for delay threshold: %j are %i ms", (variants, ms) => {
    for (const delay of variants) {
      const plan = eventTimes().withWatermark("eventTime", delay).plan;
      expect(plan).toMatchObject({ kind: "watermark", column: "eventTime", delayMs: ms });
    }
  });

  it.each(["1 foo", "interva 2 day", "intrval '3' day", "interval 4 foo", "interval '5' foo", "interval '1 2:3:4' day to hour", "interval '1 2' year to month"])(
    "SPARK-35815: invalid delay threshold %j is refused",
    (delay) => {
      expect(() => eventTimes().withWatermark("eventTime", delay)).toThrow(AnalysisError);
      expect(() => eventTimes().withWatermark("eventTime", delay)).toThrow(`withWatermark("eventTime", ${JSON.stringify(delay)}): cannot parse`);
    },
  );

  // Sluice has no spark.sql.streaming.statefulOperator.allowMultiple (it always gives each
  // stateful operator its own watermark), so its refusal names no setting to turn it off.
  it("overriding watermark should not be allowed", () => {
    const input = session().memoryStream(z.object({ _1: z.int(), _2: z.int() }));
    const start = () =>
      input
        .toDF()
        .withColumn("first", timestamp_seconds(col("_1")))
        .withColumn("second", timestamp_seconds(col("_2")))
        .withWatermark("first", "1 minute")
        .withWatermark("second", "2 minutes")
        .groupBy(window(col("second"), "1 minute"))
        .count()
        .writeStream.format("console")
        .start();
    expect(start).toThrow(/Redefining watermark is disallowed/);
  });

  // A stream-stream join's output carries the event time of both of its sides, so a stateful
  // operator after it could evict by either watermark. Spark fails the query in its first batch;
  // Sluice refuses it at start(). (Spark's compatibility mode, which takes the first such column,
  // needs spark.sql.streaming.statefulOperator.allowMultiple=false, which Sluice does not have.)
  it("multiple event time columns in an input DataFrame for stateful operator is not allowed", () => {
    const Pair = z.object({ _1: z.string(), _2: z.int() });
    const input1 = session().memoryStream(Pair);
    const input2 = session().memoryStream(Pair);
    const df1 = input1
      .toDF()
      .select(col("_1").alias("id1"), timestamp_seconds(col("_2")).alias("ts1"))
      .withWatermark("ts1", "1 minute");
    const df2 = input2
      .toDF()
      .select(col("_1").alias("id2"), timestamp_seconds(col("_2")).alias("ts2"))
      .withWatermark("ts2", "2 minutes");
    const joined = df1.join(df2, expr("id1 = id2 AND ts1 = ts2 + INTERVAL 10 SECONDS") as never, "inner").select("id1", "ts1", "ts2");
    const dedup = joined.dropDuplicates().select(col("id1"), unix_seconds(col("ts1")).alias("ts1"), unix_seconds(col("ts2")).alias("ts2"));
    const start = () => dedup.writeStream.format("console").start();
    expect(start).toThrow(AnalysisError);
    expect(start).toThrow(
      'More than one event time columns are available for the deduplication: "ts1", "ts2". Please ensure there is at most one event time column per stream',
    );
    // With one of them cast, one event time is left: the query starts.
    const oneTime = joined.select(col("id1"), col("ts1"), unix_seconds(col("ts2")).alias("ts2")).dropDuplicates();
    return oneTime.writeStream.format("console").start().stop();
  });

  it("MultipleWatermarkPolicy: fail on incorrect conf values", () => {
    for (const value of ["", "random"]) {
      const expected = `option "${MULTIPLE_WATERMARK_POLICY}": invalid value for ${MULTIPLE_WATERMARK_POLICY}: valid values are 'min' and 'max'`;
      expect(() => session().conf.set(MULTIPLE_WATERMARK_POLICY, value)).toThrow(OptionError);
      expect(() => session().conf.set(MULTIPLE_WATERMARK_POLICY, value)).toThrow(`conf.set: ${expected}`);
      expect(() => new Session({ workers: 0, conf: { [MULTIPLE_WATERMARK_POLICY]: value } })).toThrow(`Session: option "conf.${MULTIPLE_WATERMARK_POLICY}": invalid value`);
    }
    expect(session().conf.get(MULTIPLE_WATERMARK_POLICY)).toBe("min");
    // Spark lower-cases the value first.
    session().conf.set(MULTIPLE_WATERMARK_POLICY, "MAX");
    expect(session().conf.get(MULTIPLE_WATERMARK_POLICY)).toBe("max");
    session().conf.unset(MULTIPLE_WATERMARK_POLICY);
  });

  it("EventTime watermark should be ignored in batch query", async () => {
    const keys = Array.from({ length: 100 }, (_, i) => ({ key: i + 1 }));
    const df = session()
      .createDataFrame(keys, z.object({ key: z.int() }))
      .withColumn("eventTime", timestamp_seconds(col("key")))
      .withWatermark("eventTime", "1 minute")
      .select(unix_seconds(col("eventTime")).alias("eventTime"));
    expect((await df.collect()).map((r) => r.eventTime)).toEqual(keys.map((k) => k.key));
  });
});

/**
 * Spark's EventTimeStats tests, on Sluice's figures: min, max, sum and count, merged by
 * `mergeStats` (null: no rows), the average being sum / count. One added event time is a merge
 * of the statistics of one row.
 */
describe("event-time statistics (Spark's EventTimeStats)", () => {
  const EPSILON = 10e-6;
  const stats = (max: number, min: number, avg: number, count: number) => ({ max, min, sum: avg * count, count });
  const avg = (s: { sum: number; count: number } | null) => s!.sum / s!.count;

  it("EventTimeStats", () => {
    let s = mergeStats(stats(100, 10, 20, 5), stats(80, 80, 80, 1));
    expect(s).toMatchObject({ max: 100, min: 10, count: 6 });
    expect(avg(s)).toBeCloseTo(30, 5);
    s = mergeStats(s, stats(80, 5, 15, 4));
    expect(s).toMatchObject({ max: 100, min: 5, count: 10 });
    expect(avg(s)).toBeCloseTo(24, 5);
  });

  it("EventTimeStats: avg on large values", () => {
    const large = 10_000_000_000;
    let s = mergeStats(stats(large, large, large, large - 1), stats(large, large, large, 1));
    expect(Math.abs(avg(s) - large)).toBeLessThan(EPSILON);
    s = mergeStats(s, stats(large + 1, large, large + 1, large));
    expect(Math.abs(avg(s) - (large + 0.5))).toBeLessThan(EPSILON);
  });

  it("EventTimeStats: zero merge zero", () => {
    expect(mergeStats(null, null)).toBeNull();
  });

  it("EventTimeStats: non-zero merge zero, and zero merge non-zero", () => {
    const s = stats(10, 1, 5, 3);
    for (const merged of [mergeStats(s, null), mergeStats(null, s)]) {
      expect(merged).toMatchObject({ max: 10, min: 1, count: 3 });
      expect(avg(merged)).toBeCloseTo(5, 5);
    }
  });
});
