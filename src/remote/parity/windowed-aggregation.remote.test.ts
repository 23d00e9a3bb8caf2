// Windowed aggregations over a watermarked stream, run embedded and on Spark (parity.ts): tumbling and sliding
// windows and session windows, in each output mode. Event times are whole seconds (timestamp_seconds), windows
// are reported by their start in seconds; the watermark is 10 seconds behind the largest event time seen. Also
// aggregations without windows: a union of two streams, and a word count's top two.
import { describe, it } from "vitest";
import { z } from "zod";
import { avg, col, count, explode, lower, max, min, session_window, split, sum, timestamp_seconds, unix_seconds, window, window_time } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { events, type OutputMode, runBoth, type Step } from "../../testing/remote-parity.js";

const Event = z.object({ key: z.string(), time: z.int() });

/** The input folder's events, with their event time and a 10 s watermark. */
export function timedEvents(session: Session, dir: string) {
  return session.readStream
    .schema(Event)
    .option("maxFilesPerTrigger", 1)
    .json(dir)
    .withColumn("eventTime", timestamp_seconds(col("time")))
    .withWatermark("eventTime", "10 seconds");
}

/** Counts per 10 s window and key: (start, key, n). */
function tumblingCounts(session: Session, [dir]: readonly string[]) {
  return timedEvents(session, dir!)
    .groupBy(window(col("eventTime"), "10 seconds"), col("key"))
    .agg(count().alias("n"))
    .select(unix_seconds(col("window.start")).alias("start"), col("key"), col("n"));
}

const w = (start: number, key: string, n: number) => ({ start, key, n });

const Measure = z.object({ time: z.int(), value: z.int().nullable() });
const measure = (time: number, value: number | null) => ({ time, value });

// Watermark after each step: 2, 15, 20. The event at 4 s in the last step is behind the watermark (15 s).
const STEP1 = events(["a", 1], ["a", 5], ["b", 12]);
const STEP2 = events(["a", 25], ["b", 3]);
const STEP3 = events(["a", 4], ["b", 30]);

const tumbling: Record<OutputMode, Step[]> = {
  // A window is written once, when the watermark passes its end.
  append: [
    { add: STEP1, table: [] },
    { add: STEP2, table: [w(0, "a", 2), w(0, "b", 1)] },
    { add: STEP3, table: [w(0, "a", 2), w(0, "b", 1), w(10, "b", 1)] },
  ],
  // Each batch writes the windows it changed; the sink keeps every write.
  update: [
    { add: STEP1, table: [w(0, "a", 2), w(10, "b", 1)] },
    { add: STEP2, table: [w(0, "a", 2), w(10, "b", 1), w(20, "a", 1), w(0, "b", 1)] },
    { add: STEP3, table: [w(0, "a", 2), w(10, "b", 1), w(20, "a", 1), w(0, "b", 1), w(30, "b", 1)] },
  ],
  // Every window, every batch: complete mode keeps all state and drops no late rows, whatever the watermark
  // (the event at 4 s still counts in [0, 10)).
  complete: [
    { add: STEP1, table: [w(0, "a", 2), w(10, "b", 1)] },
    { add: STEP2, table: [w(0, "a", 2), w(0, "b", 1), w(10, "b", 1), w(20, "a", 1)] },
    { add: STEP3, table: [w(0, "a", 3), w(0, "b", 1), w(10, "b", 1), w(20, "a", 1), w(30, "b", 1)] },
  ],
};

/** Events per key and session window (5 s gap), with the session's bounds in seconds. */
function sessionCounts(session: Session, dir: string) {
  return timedEvents(session, dir)
    .groupBy(session_window(col("eventTime"), "5 seconds"), col("key"))
    .agg(count().alias("n"))
    .select(col("key"), unix_seconds(col("session_window.start")).alias("start"), unix_seconds(col("session_window.end")).alias("end"), col("n"));
}

describe("windowed aggregations, embedded and on Spark", () => {
  it.each(["append", "update", "complete"] as const)("tumbling 10 s windows, %s mode", (mode) =>
    runBoth({ name: `tumbling_${mode}`, query: tumblingCounts, outputMode: mode, steps: tumbling[mode] }), 60_000);

  it("sliding windows (10 s every 5 s), update mode: an event counts in two windows", () =>
    runBoth({
      name: "sliding_update",
      outputMode: "update",
      query: (session, [dir]) =>
        timedEvents(session, dir!)
          .groupBy(window(col("eventTime"), "10 seconds", "5 seconds"))
          .agg(count().alias("n"), sum(col("time")).alias("total"))
          .select(unix_seconds(col("window.start")).alias("start"), unix_seconds(col("window.end")).alias("end"), col("n"), col("total")),
      steps: [
        {
          add: events(["a", 3], ["a", 7]),
          table: [
            { start: -5, end: 5, n: 1, total: 3 },
            { start: 0, end: 10, n: 2, total: 10 },
            { start: 5, end: 15, n: 1, total: 7 },
          ],
        },
        // Watermark 2 s after the first step: 12 s is new, and 8 s still counts.
        {
          add: events(["a", 12], ["b", 8]),
          table: [
            { start: -5, end: 5, n: 1, total: 3 },
            { start: 0, end: 10, n: 2, total: 10 },
            { start: 5, end: 15, n: 1, total: 7 },
            { start: 0, end: 10, n: 3, total: 18 },
            { start: 5, end: 15, n: 3, total: 27 },
            { start: 10, end: 20, n: 1, total: 12 },
          ],
        },
      ],
    }), 60_000);

  it("session windows (5 s gap), append mode: a session is written once the watermark passes its end", () =>
    runBoth({
      name: "sessions_append",
      outputMode: "append",
      query: (session, [dir]) => sessionCounts(session, dir!),
      steps: [
        // a: one session [1, 9) of three events; b: [2, 7). Watermark 0.
        { add: events(["a", 1], ["a", 3], ["a", 4], ["b", 2]), table: [] },
        // a at 20 starts a new session; watermark 10: a's [1, 9) and b's [2, 7) are closed.
        { add: events(["a", 20]), table: [{ key: "a", start: 1, end: 9, n: 3 }, { key: "b", start: 2, end: 7, n: 1 }] },
        // a at 22 extends [20, 25) to [20, 27); watermark 30 closes it.
        {
          add: events(["a", 22], ["b", 40]),
          table: [
            { key: "a", start: 1, end: 9, n: 3 },
            { key: "b", start: 2, end: 7, n: 1 },
            { key: "a", start: 20, end: 27, n: 2 },
          ],
        },
      ],
    }), 60_000);

  it("session windows (5 s gap) per key, complete mode: sessions merge across batches", () =>
    runBoth({
      name: "sessions_complete",
      outputMode: "complete",
      query: (session, [dir]) => sessionCounts(session, dir!),
      steps: [
        { add: events(["a", 1], ["a", 8], ["b", 1]), table: [{ key: "a", start: 1, end: 6, n: 1 }, { key: "a", start: 8, end: 13, n: 1 }, { key: "b", start: 1, end: 6, n: 1 }] },
        // a at 5 s ([5, 10)) overlaps both of a's sessions: one session [1, 13).
        { add: events(["a", 5]), table: [{ key: "a", start: 1, end: 13, n: 3 }, { key: "b", start: 1, end: 6, n: 1 }] },
      ],
    }), 60_000);

  it("aggregate functions over null values, 10 s windows starting at 3 s, complete mode", () =>
    runBoth({
      name: "nulls_offset_complete",
      outputMode: "complete",
      query: (session, [dir]) =>
        session.readStream
          .schema(Measure)
          .option("maxFilesPerTrigger", 1)
          .json(dir!)
          .withColumn("eventTime", timestamp_seconds(col("time")))
          .withWatermark("eventTime", "10 seconds")
          .groupBy(window(col("eventTime"), "10 seconds", "10 seconds", "3 seconds"))
          .agg(count().alias("n"), count(col("value")).alias("values"), sum(col("value")).alias("total"), avg(col("value")).alias("mean"), min(col("value")).alias("lo"), max(col("value")).alias("hi"))
          .select(unix_seconds(col("window.start")).alias("start"), col("n"), col("values"), col("total"), col("mean"), col("lo"), col("hi")),
      steps: [
        {
          add: [measure(1, 5), measure(4, null), measure(12, 2), measure(14, 7)],
          table: [
            { start: -7, n: 1, values: 1, total: 5, mean: 5, lo: 5, hi: 5 },
            { start: 3, n: 2, values: 1, total: 2, mean: 2, lo: 2, hi: 2 },
            { start: 13, n: 1, values: 1, total: 7, mean: 7, lo: 7, hi: 7 },
          ],
        },
        {
          // A window of null values only: count 0, the other aggregates null.
          add: [measure(5, null), measure(20, 1), measure(30, null)],
          table: [
            { start: -7, n: 1, values: 1, total: 5, mean: 5, lo: 5, hi: 5 },
            { start: 3, n: 3, values: 1, total: 2, mean: 2, lo: 2, hi: 2 },
            { start: 13, n: 2, values: 2, total: 8, mean: 4, lo: 1, hi: 7 },
            { start: 23, n: 1, values: 0, total: null, mean: null, lo: null, hi: null },
          ],
        },
      ],
    }), 60_000);

  it("two streams unioned, then counted per key, update mode", () =>
    runBoth({
      name: "union_update",
      inputs: 2,
      outputMode: "update",
      query: (session, [left, right]) =>
        timedEvents(session, left!)
          .union(timedEvents(session, right!))
          .groupBy(col("key"))
          .agg(count().alias("n")),
      steps: [
        { addTo: [events(["a", 1]), events(["a", 2], ["b", 3])], table: [{ key: "a", n: 2 }, { key: "b", n: 1 }] },
        { addTo: [undefined, events(["b", 4])], table: [{ key: "a", n: 2 }, { key: "b", n: 1 }, { key: "b", n: 2 }] },
      ],
    }), 60_000);

  it("a windowed aggregation of a windowed aggregation (window_time), append mode, watermark 0 s", () =>
    runBoth({
      name: "chained_append",
      outputMode: "append",
      query: (session, [dir]) =>
        session.readStream
          .schema(Event)
          .option("maxFilesPerTrigger", 1)
          .json(dir!)
          .withColumn("eventTime", timestamp_seconds(col("time")))
          .withWatermark("eventTime", "0 seconds")
          .groupBy(window(col("eventTime"), "5 seconds").alias("window"))
          .agg(count().alias("n"))
          .groupBy(window(window_time(col("window")), "10 seconds"))
          .agg(count().alias("windows"), sum(col("n")).alias("n"))
          .select(unix_seconds(col("window.start")).alias("start"), col("windows"), col("n")),
      steps: [
        // 5 s windows [0, 5) (2 events) and [5, 10) (1); watermark 6 s: [0, 5) goes on to [0, 10), not final yet.
        { add: events(["a", 1], ["a", 2], ["a", 6]), table: [] },
        // Watermark 11 s: [5, 10) goes on, and [0, 10) is final.
        { add: events(["a", 11]), table: [{ start: 0, windows: 2, n: 3 }] },
        { add: events(["a", 21]), table: [{ start: 0, windows: 2, n: 3 }, { start: 10, windows: 1, n: 1 }] },
      ],
    }), 60_000);

  it("a word count's top two (explode(split(...)), orderBy and limit), complete mode", () =>
    runBoth({
      name: "top_words_complete",
      outputMode: "complete",
      query: (session, [dir]) =>
        session.readStream
          .schema(z.object({ line: z.string() }))
          .option("maxFilesPerTrigger", 1)
          .json(dir!)
          .select(explode(split(lower(col("line")), " +")).alias("word"))
          .groupBy(col("word"))
          .agg(count().alias("n"))
          .orderBy(col("n").desc(), col("word"))
          .limit(2),
      steps: [
        // cat, the: 2 each; dog, a: 1 each.
        { add: [{ line: "The cat  the dog" }, { line: "a Cat" }], table: [{ word: "cat", n: 2 }, { word: "the", n: 2 }] },
        { add: [{ line: "dog dog" }], table: [{ word: "dog", n: 3 }, { word: "cat", n: 2 }] },
      ],
    }), 60_000);
});
