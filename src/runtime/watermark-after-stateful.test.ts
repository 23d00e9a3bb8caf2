import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { col, count, timestamp_seconds, unix_seconds, window } from "../api/functions.js";
import type { Session } from "../api/session.js";
import { statefulProcessor } from "../api/stateful-processor.js";
import type { TimeMode } from "../operators/stateful-processor.js";
import { withSession } from "../testing/fixtures.js";
import { addData, assertWatermark, checkNewAnswer, testStream } from "../testing/stream-test.js";

/**
 * A withWatermark after a stateful operator, as Spark 3.5+ and 4 allow and refuse it: each
 * stateful operator passes its input's watermark on (transformWithState in processing-time mode
 * excepted: its rows carry none), and a withWatermark that a watermark already reaches is
 * "Redefining watermark" (Spark's WatermarkPropagator). So it may follow a processing-time
 * transformWithState, or stateful operators whose input had no watermark; it is then one more
 * watermark input of the query, and the global watermark is the minimum over all of them.
 */

const PROCESSORS = new URL(`../operators/testing/chaining-processors${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);
const Event = z.object({ key: z.string(), eventTime: z.date() });
const Value = z.object({ value: z.int() });
const at = (iso: string) => new Date(`${iso}Z`);
const event = (key: string, iso: string) => ({ key, eventTime: at(iso) });

/** Events watermarked 1 minute behind, then Spark's TestStatefulProcessor: per key and batch, the earliest event time and the count. */
function earliestPerKey(session: Session, timeMode: TimeMode) {
  const input = session.memoryStream(Event);
  const outputSchema = z.object({ key: z.string(), outputEventTime: z.date(), count: z.int() });
  const df = input
    .toDF()
    .withWatermark("eventTime", "1 minute")
    .groupByKey("key")
    .transformWithState(statefulProcessor(PROCESSORS, "EarliestEventTime", { outputSchema }), timeMode, "append");
  return { input, df };
}

/** Counts per 1-minute window of `outputEventTime`, as { start, count }. */
function perMinute(df: DataFrame<any>) {
  return df.groupBy(window(col("outputEventTime"), "1 minute")).agg(count().alias("count")).select(col("window.start").alias("start"), col("count"));
}

function startError(df: DataFrame<any>): Error {
  try {
    void df.writeStream.outputMode("append").format("memory").queryName("refused").start();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected start() to refuse the query");
}

describe.each([0, 2])("withWatermark after a stateful operator, %i workers", (workers) => {
  it("after transformWithState in processing-time mode: its rows get a watermark of their own, which holds the global one back", () =>
    withSession(workers, async (session) => {
      const { input, df } = earliestPerKey(session, "processingTime");
      await testStream(perMinute(df.withWatermark("outputEventTime", "1 minute")), "append").run(
        addData(input, event("k1", "2024-01-01T00:00:00"), event("k1", "2024-01-01T00:10:00")),
        checkNewAnswer(),
        // The input's watermark is 00:09, the processor's rows' 2023-12-31 23:59: the minimum rules.
        assertWatermark(at("2023-12-31T23:59:00")),
        addData(input, event("k1", "2024-02-01T00:00:00")),
        checkNewAnswer({ start: at("2024-01-01T00:00:00"), count: 1 }),
        assertWatermark(at("2024-01-31T23:59:00")),
        addData(input, event("k1", "2024-02-02T00:00:00"), event("k2", "2024-02-02T00:00:30")),
        checkNewAnswer({ start: at("2024-02-01T00:00:00"), count: 1 }),
      );
    }));

  it("after a deduplication whose input has no watermark", () =>
    withSession(workers, async (session) => {
      const input = session.memoryStream(Value);
      const df = input
        .toDF()
        .withColumn("eventTime", timestamp_seconds(col("value")))
        .dropDuplicates("value")
        .withWatermark("eventTime", "5 seconds")
        .groupBy(window(col("eventTime"), "10 seconds"))
        .agg(count().alias("count"))
        .select(unix_seconds(col("window.start")).alias("start"), col("count"));
      await testStream(df, "append").run(
        addData(input, ...[1, 2, 2, 12].map((value) => ({ value }))),
        checkNewAnswer(),
        addData(input, { value: 16 }),
        // Watermark 11: [0, 10) is final, with the one 2 the deduplication let through.
        checkNewAnswer({ start: 0, count: 2 }),
      );
    }));

  it("refuses one that a watermark reaches: after transformWithState in event-time mode, after a watermarked deduplication", () =>
    withSession(workers, async (session) => {
      const redefined = (column: string) =>
        `Redefining watermark is disallowed: withWatermark("${column}", ...) is applied to a stream that already has a watermark on "eventTime", which the stateful operators before it pass on; ` +
        "define one watermark per input stream, before its first stateful operator (a withWatermark may follow a stateful operator only where no watermark reaches it: " +
        "after transformWithState in processing-time mode, or after operators whose input has none)";
      const { df: eventTimeMode } = earliestPerKey(session, "eventTime");
      expect(startError(perMinute(eventTimeMode.withWatermark("outputEventTime", "1 minute"))).message).toBe(redefined("outputEventTime"));

      const deduplicated = session
        .memoryStream(Value)
        .toDF()
        .withColumn("eventTime", timestamp_seconds(col("value")))
        .withWatermark("eventTime", "5 seconds")
        .dropDuplicates("value", "eventTime")
        .withWatermark("eventTime", "10 seconds");
      expect(startError(deduplicated).message).toBe(redefined("eventTime"));
    }));
});
