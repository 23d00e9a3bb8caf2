import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { col, count, sum, timestamp_seconds, unix_seconds, window, window_time } from "../api/functions.js";
import type { Session } from "../api/session.js";
import { AnalysisError } from "../errors/errors.js";
import { withSession } from "../testing/fixtures.js";
import { addData, checkNewAnswer, testStream } from "../testing/stream-test.js";

/**
 * spark.sql.streaming.statefulOperator.checkCorrectness.enabled: a stateful operator after an
 * aggregation in update or complete mode is refused by default (Spark's global-watermark
 * correctness check); with the setting false the query runs, with a warning, and gives what Spark
 * gives then: here a second aggregation counts each update of the first one's group again.
 */

const KEY = "spark.sql.streaming.statefulOperator.checkCorrectness.enabled";
const Value = z.object({ value: z.int() });
const values = (...vs: number[]) => vs.map((value) => ({ value }));

/** Counts per 5 s window, then the windows and their counts per 10 s window of their window_time. */
function windowsOfWindows(session: Session) {
  const input = session.memoryStream(Value);
  const df = input
    .toDF()
    .withColumn("eventTime", timestamp_seconds(col("value")))
    .withWatermark("eventTime", "0 seconds")
    .groupBy(window(col("eventTime"), "5 seconds"))
    .agg(count().alias("count"))
    .groupBy(window(window_time(col("window")), "10 seconds"))
    .agg(count().alias("windows"), sum(col("count")).alias("events"))
    .select(unix_seconds(col("window.start")).alias("start"), col("windows"), col("events"));
  return { input, df };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe(`${KEY}`, () => {
  it("is true by default: the chain is refused at start(), with Spark's message and the fix", () =>
    withSession(0, async (session) => {
      const { df } = windowsOfWindows(session);
      const start = () => df.writeStream.outputMode("update").format("memory").queryName("checked").start();
      expect(start).toThrow(AnalysisError);
      expect(start).toThrow(
        "Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, " +
          'which are "late rows" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details. ' +
          "If you understand the possible risk of correctness issue and still need to run the query, you can disable this check by setting the config " +
          `\`${KEY}\` to false. ` +
          "To avoid the issue instead, run the query in append mode, or write the aggregation's updates to a sink and run the next stateful operator on them in another query.",
      );
    }));

  describe.each([0, 2])("set to false, %i workers", (workers) => {
    for (const value of [false, "false"] as const) {
      it(`(${JSON.stringify(value)}) lets the query run, with a warning`, () =>
        withSession(workers, async (session) => {
          session.conf.set(KEY, value);
          const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
          const { input, df } = windowsOfWindows(session);
          await testStream(df, "update").run(
            addData(input, ...values(10, 11)),
            checkNewAnswer({ start: 10, windows: 1, events: 2 }),
            addData(input, ...values(12)),
            // The first aggregation's [10, 15) comes again, with 3 rows: the second counts it as
            // another window, and its rows again (one window of 3 events in the input).
            checkNewAnswer({ start: 10, windows: 2, events: 5 }),
          );
          expect(warn).toHaveBeenCalledWith(expect.stringMatching(new RegExp(`^${KEY} is false, so the query runs: Detected pattern of possible 'correctness' issue`)));
        }));
    }
  });
});
