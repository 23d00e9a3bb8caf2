import { z } from "zod";
import { col, count, unix_seconds, window } from "../api/functions.js";
import type { Session } from "../api/session.js";

/**
 * The query and inputs of Spark's EventTimeWatermarkSuite: event times are whole seconds since the
 * epoch (Spark's `timestamp_seconds(value)`), windows of 5 seconds, a watermark 10 seconds behind,
 * and window starts reported in seconds.
 */
export const SuiteValue = z.object({ value: z.int(), eventTime: z.date() });

/** Rows of `SuiteValue` at these whole seconds. */
export const atSeconds = (...values: number[]) => values.map((value) => ({ value, eventTime: new Date(value * 1000) }));

/** The suite's windowed count: `(window start in seconds, count)`. */
export function suiteWindowedCounts(session: Session) {
  const input = session.memoryStream(SuiteValue);
  const counts = input
    .toDF()
    .withWatermark("eventTime", "10 seconds")
    .groupBy(window(col("eventTime"), "5 seconds"))
    .agg(count().alias("count"))
    .select(unix_seconds(col("window.start")).alias("start"), col("count"));
  return { input, counts };
}
