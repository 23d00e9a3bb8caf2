import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AnalysisError, OptionError } from "../errors/errors.js";
import { Session } from "./session.js";
import { col, count, session_window, window } from "./functions.js";

const Event = z.object({ user: z.string(), page: z.string(), time: z.date() });
const Score = z.object({ user: z.string(), score: z.number() });
const session = new Session({ workers: 0 });
afterAll(() => session.stop());

function stream() {
  return session.memoryStream(Event).toDF();
}

function startError(run: () => unknown): Error {
  try {
    run();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected start() to throw");
}

const REDEFINED_WATERMARK =
  'Redefining watermark is disallowed: withWatermark("time", ...) is applied to a stream that already has a watermark on "time"; ' +
  "define one watermark per input stream";

const CORRECTNESS_ISSUE =
  "Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, " +
  'which are "late rows" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details. ' +
  "If you understand the possible risk of correctness issue and still need to run the query, you can disable this check by setting the config " +
  "`spark.sql.streaming.statefulOperator.checkCorrectness.enabled` to false. " +
  "To avoid the issue instead, run the query in append mode, or write the aggregation's updates to a sink and run the next stateful operator on them in another query.";

describe("start() rejects what Spark rejects, with Spark's reasons", () => {
  const cases: [string, () => unknown, string][] = [
    [
      "an aggregation in append mode without a watermark",
      () => stream().groupBy("page").count().writeStream.outputMode("append").format("memory").queryName("q1").start(),
      "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark",
    ],
    [
      "a windowed aggregation in append mode whose window is not on the watermarked column",
      () => stream().groupBy(window(col("time"), "1 minute")).count().writeStream.outputMode("append").format("memory").queryName("q2").start(),
      "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark",
    ],
    [
      "a session window in append mode without a watermark",
      () => stream().groupBy(session_window(col("time"), "5 minutes")).count().writeStream.outputMode("append").format("memory").queryName("q3").start(),
      "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark",
    ],
    [
      "complete mode without an aggregation",
      () => stream().select("user").writeStream.outputMode("complete").format("memory").queryName("q4").start(),
      "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets",
    ],
    [
      "sorting a stream that is not aggregated",
      () => stream().orderBy("user").writeStream.outputMode("append").format("memory").queryName("q5").start(),
      "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode",
    ],
    [
      "sorting an aggregation in update mode",
      () => stream().groupBy("page").count().orderBy("count").writeStream.outputMode("update").format("memory").queryName("q6").start(),
      "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode",
    ],
    [
      "a limit in update mode",
      () => stream().groupBy("page").count().limit(3).writeStream.outputMode("update").format("memory").queryName("q7").start(),
      "Limits are not supported on streaming DataFrames/Datasets in Update output mode",
    ],
    [
      "an aggregation after an aggregation in complete mode",
      () => stream().groupBy("page", "user").count().groupBy("page").agg(count().alias("users")).writeStream.outputMode("complete").format("memory").queryName("q8").start(),
      CORRECTNESS_ISSUE,
    ],
    [
      "dropDuplicatesWithinWatermark without a watermark",
      () => stream().dropDuplicatesWithinWatermark("user").writeStream.outputMode("append").format("memory").queryName("q9").start(),
      "dropDuplicatesWithinWatermark is not supported in streaming DataFrames/DataSets without watermark",
    ],
    [
      "a join of two streams in update mode",
      () => stream().join(session.memoryStream(Score).toDF(), "user").writeStream.outputMode("update").format("memory").queryName("q10").start(),
      "Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode",
    ],
    [
      "a left outer join of two streams without a watermark",
      () => stream().join(session.memoryStream(Score).toDF(), "user", "left").writeStream.outputMode("append").format("memory").queryName("q10b").start(),
      "Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition",
    ],
    [
      "a left outer join with the stream on the right",
      () => session.createDataFrame([], Score).join(stream(), "user", "left").writeStream.outputMode("append").format("memory").queryName("q11").start(),
      "LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported: " +
        'put the stream on the left, stream.join(static, on, "left"), to keep the stream\'s rows',
    ],
    [
      "a union of a stream and static data",
      () => stream().union(session.createDataFrame([], Event)).writeStream.outputMode("append").format("memory").queryName("q12").start(),
      "Union between streaming and batch DataFrames/Datasets is not supported",
    ],
    [
      "a session window in update mode",
      () =>
        stream()
          .withWatermark("time", "10 minutes")
          .groupBy(session_window(col("time"), "5 minutes"), "user")
          .count()
          .writeStream.outputMode("update")
          .format("memory")
          .queryName("q13")
          .start(),
      "Update output mode not supported for session window on streaming DataFrames/DataSets",
    ],
    [
      // Spark checks the output mode when the query starts, before it plans the session window.
      "a session window as the only key in update mode",
      () => stream().groupBy(session_window(col("time"), "5 minutes")).count().writeStream.outputMode("update").format("memory").queryName("q14").start(),
      "Update output mode not supported for session window on streaming DataFrames/DataSets",
    ],
    [
      "a session window as the only grouping key in append mode",
      () =>
        stream()
          .withWatermark("time", "10 minutes")
          .groupBy(session_window(col("time"), "5 minutes"))
          .count()
          .writeStream.outputMode("append")
          .format("memory")
          .queryName("q15")
          .start(),
      "Global aggregation with session window in streaming query is not supported.",
    ],
    [
      "a session window as the only grouping key in complete mode",
      () => stream().groupBy(session_window(col("time"), "5 minutes")).count().writeStream.outputMode("complete").format("memory").queryName("q16").start(),
      "Global aggregation with session window in streaming query is not supported.",
    ],
    [
      "a watermark on a stream that already has one",
      () =>
        stream()
          .withWatermark("time", "1 minute")
          .filter(col("user").isNotNull())
          .withWatermark("time", "2 minutes")
          .groupBy(window(col("time"), "1 minute"))
          .count()
          .writeStream.outputMode("append")
          .format("memory")
          .queryName("q17")
          .start(),
      REDEFINED_WATERMARK,
    ],
    [
      "a watermark over a union whose branch already has one",
      () =>
        stream()
          .withWatermark("time", "1 minute")
          .union(stream())
          .withWatermark("time", "2 minutes")
          .writeStream.outputMode("append")
          .format("memory")
          .queryName("q18")
          .start(),
      REDEFINED_WATERMARK,
    ],
  ];

  it.each(cases)("rejects %s", (_name, run, message) => {
    const e = startError(run);
    expect(e).toBeInstanceOf(AnalysisError);
    expect(e.message).toBe(message);
  });

  const accepted: [string, () => { stop(): Promise<void> }][] = [
    [
      "a session window with another grouping key in complete mode",
      () => stream().groupBy(session_window(col("time"), "5 minutes"), "user").count().writeStream.outputMode("complete").format("memory").queryName("ok1").start(),
    ],
    [
      "a watermark on each branch of a union",
      () =>
        stream()
          .withWatermark("time", "1 minute")
          .union(stream().withWatermark("time", "2 minutes"))
          .groupBy(window(col("time"), "1 minute"))
          .count()
          .writeStream.outputMode("append")
          .format("memory")
          .queryName("ok2")
          .start(),
    ],
  ];

  it.each(accepted)("accepts %s", async (_name, run) => {
    await run().stop();
  });

  it("rejects collect() on a stream", async () => {
    await expect(stream().collect()).rejects.toThrow("Queries with streaming sources must be executed with writeStream.start()");
  });

  it("rejects writeStream on static data", () => {
    expect(() => session.createDataFrame([], Event).writeStream).toThrow(AnalysisError);
  });

  it("rejects a second active query with the same name", async () => {
    const q = stream().writeStream.format("memory").queryName("dup").start();
    try {
      expect(() => stream().writeStream.format("memory").queryName("dup").start()).toThrow(
        "Cannot start query with name dup as a query with that name is already active in this session",
      );
    } finally {
      await q.stop();
    }
  });
});

describe("options are validated where they are given", () => {
  it("names a bad output mode and what it accepts", () => {
    expect(() => stream().writeStream.outputMode("sideways" as "append").start()).toThrow(
      'writeStream.outputMode: option "(options)": outputMode must be append, update or complete (got "sideways")',
    );
  });

  it("names a bad trigger", () => {
    expect(() => stream().writeStream.trigger({ processingTime: "soon" }).start()).toThrow(OptionError);
    expect(() => stream().writeStream.trigger({ processingTime: "soon" }).start()).toThrow(
      'writeStream.trigger: option "processingTime": cannot parse "soon" as a duration; use a number and a unit such as "10 seconds", "5 minutes" or "1 hour" (got "soon")',
    );
    expect(() => stream().writeStream.trigger({ continuous: "1 second" } as never).start()).toThrow(
      'trigger must be { processingTime: "1 second" }, { availableNow: true }, { once: true }, { latencyTarget: "200 ms" } or { realTime: "5 minutes" } (realTime: true for the default checkpoint interval)',
    );
  });

  it("requires a query name for the memory sink", () => {
    expect(() => stream().writeStream.format("memory").start()).toThrow(/memory sink needs a query name/);
  });

  it("names unknown console options", () => {
    expect(() => stream().writeStream.format("console").option("numRowz", 5).start()).toThrow(/console sink: .*numRowz/);
  });

  it("validates rate source options", () => {
    expect(() => session.readStream.format("rate").option("rowsPerSecond", -3).load()).toThrow(
      'rate source: option "rowsPerSecond": rowsPerSecond must be greater than 0 (got -3)',
    );
    expect(() => session.readStream.format("rate").option("rowsPerSec", 3).load()).toThrow(/rowsPerSec/);
  });

  it("validates json reader options and needs a schema", () => {
    expect(() => session.readStream.json("/tmp/x")).toThrow(/declare the record schema first with \.schema/);
    expect(() => session.readStream.schema(Event).option("mode", "LENIENT").json("/tmp/x")).toThrow(
      /mode must be one of PERMISSIVE, DROPMALFORMED, FAILFAST/,
    );
    expect(() => session.readStream.schema(Event).option("maxFilesPerTrigger", 0).json("/tmp/x")).toThrow(
      'readStream.json("/tmp/x"): option "maxFilesPerTrigger": maxFilesPerTrigger must be greater than 0 (got 0)',
    );
  });

  it("validates session options", () => {
    expect(() => new Session({ workers: -1 })).toThrow('Session: option "workers": workers must be 0 (inline) or more (got -1)');
  });

  it("rejects an unknown column with the columns that exist", () => {
    expect(() => stream().select(col("usr") as never)).toThrow('cannot resolve column "usr": the input has "user", "page", "time"');
  });

  it("rejects a watermark on a column that is not a timestamp", () => {
    expect(() => stream().withWatermark("user" as never, "1 minute")).toThrow(/withWatermark\("user"\) needs a timestamp column/);
  });

  it("rejects a window slide longer than the window", () => {
    expect(() => window(col("time"), "1 minute", "2 minutes")).toThrow(/slideDuration .* must be less than or equal to windowDuration/);
  });
});
