import { describe, it } from "vitest";
import { z } from "zod";
import { at, win, WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, assertProgress, assertWatermark, checkAnswer, checkNewAnswer, testStream } from "../testing/stream-test.js";
import { col, count, window } from "./functions.js";
import type { Session } from "./session.js";
import { expect } from "vitest";

const Word = z.object({ word: z.string(), time: z.date() });

/** The input of the programming guide's late-data example, one trigger's worth per constant. */
const GUIDE_BATCH_1 = [
  { word: "dog", time: at("12:07") },
  { word: "owl", time: at("12:08") },
];
const GUIDE_BATCH_2 = [
  { word: "dog", time: at("12:14") },
  { word: "cat", time: at("12:09") },
];
const GUIDE_BATCH_3 = [
  { word: "cat", time: at("12:15") },
  { word: "dog", time: at("12:08") },
  { word: "owl", time: at("12:13") },
  { word: "owl", time: at("12:21") },
];
/** 12:04 falls in [11:55, 12:05) and [12:00, 12:10): both end before the watermark of 12:11. */
const GUIDE_BATCH_4 = [
  { word: "owl", time: at("12:17") },
  { word: "donkey", time: at("12:04") },
];

/** The programming guide's late-data example: 10-minute windows sliding every 5, watermark 10 minutes. */
function guideQuery(session: Session) {
  const words = session.memoryStream(Word);
  const counts = words
    .toDF()
    .withWatermark("time", "10 minutes")
    .groupBy(window(col("time"), "10 minutes", "5 minutes"), "word")
    .count();
  return { words, counts };
}

describe.each(WORKER_COUNTS)("windowed aggregation with %i workers", (workers) => {
  it("update mode emits the changed windows of each batch and drops rows behind the watermark", () =>
    withSession(workers, async (session) => {
      const { words, counts } = guideQuery(session);
      await testStream(counts, "update").run(
        addData(words, ...GUIDE_BATCH_1),
        checkNewAnswer(
          { window: win("12:00", "12:10"), word: "dog", count: 1 },
          { window: win("12:00", "12:10"), word: "owl", count: 1 },
          { window: win("12:05", "12:15"), word: "dog", count: 1 },
          { window: win("12:05", "12:15"), word: "owl", count: 1 },
        ),
        assertWatermark(at("11:58")),
        addData(words, ...GUIDE_BATCH_2),
        checkNewAnswer(
          { window: win("12:00", "12:10"), word: "cat", count: 1 },
          { window: win("12:05", "12:15"), word: "cat", count: 1 },
          { window: win("12:05", "12:15"), word: "dog", count: 2 },
          { window: win("12:10", "12:20"), word: "dog", count: 1 },
        ),
        assertWatermark(at("12:04")),
        addData(words, ...GUIDE_BATCH_3),
        checkNewAnswer(
          { window: win("12:00", "12:10"), word: "dog", count: 2 },
          { window: win("12:05", "12:15"), word: "dog", count: 3 },
          { window: win("12:05", "12:15"), word: "owl", count: 2 },
          { window: win("12:10", "12:20"), word: "cat", count: 1 },
          { window: win("12:10", "12:20"), word: "owl", count: 1 },
          { window: win("12:15", "12:25"), word: "cat", count: 1 },
          { window: win("12:15", "12:25"), word: "owl", count: 1 },
          { window: win("12:20", "12:30"), word: "owl", count: 1 },
        ),
        assertWatermark(at("12:11")),
        addData(words, ...GUIDE_BATCH_4),
        checkNewAnswer(
          { window: win("12:10", "12:20"), word: "owl", count: 2 },
          { window: win("12:15", "12:25"), word: "owl", count: 2 },
        ),
        assertProgress((p) => {
          expect(p.stateOperators[0]!.numRowsDroppedByWatermark).toBe(2);
          expect(p.numInputRows).toBe(2);
        }),
      );
    }));

  it("append mode emits each window once, when the watermark passes its end", () =>
    withSession(workers, async (session) => {
      const { words, counts } = guideQuery(session);
      await testStream(counts, "append").run(
        addData(words, ...GUIDE_BATCH_1),
        checkNewAnswer(),
        addData(words, ...GUIDE_BATCH_2),
        checkNewAnswer(),
        addData(words, ...GUIDE_BATCH_3),
        // The watermark moved to 12:11: a batch without data emits [12:00, 12:10).
        checkNewAnswer(
          { window: win("12:00", "12:10"), word: "cat", count: 1 },
          { window: win("12:00", "12:10"), word: "dog", count: 2 },
          { window: win("12:00", "12:10"), word: "owl", count: 1 },
        ),
        addData(words, ...GUIDE_BATCH_4),
        checkNewAnswer(),
        addData(words, { word: "cat", time: at("12:31") }),
        checkNewAnswer(
          { window: win("12:05", "12:15"), word: "cat", count: 1 },
          { window: win("12:05", "12:15"), word: "dog", count: 3 },
          { window: win("12:05", "12:15"), word: "owl", count: 2 },
          { window: win("12:10", "12:20"), word: "cat", count: 1 },
          { window: win("12:10", "12:20"), word: "dog", count: 1 },
          { window: win("12:10", "12:20"), word: "owl", count: 2 },
        ),
        checkAnswer(
          { window: win("12:00", "12:10"), word: "cat", count: 1 },
          { window: win("12:00", "12:10"), word: "dog", count: 2 },
          { window: win("12:00", "12:10"), word: "owl", count: 1 },
          { window: win("12:05", "12:15"), word: "cat", count: 1 },
          { window: win("12:05", "12:15"), word: "dog", count: 3 },
          { window: win("12:05", "12:15"), word: "owl", count: 2 },
          { window: win("12:10", "12:20"), word: "cat", count: 1 },
          { window: win("12:10", "12:20"), word: "dog", count: 1 },
          { window: win("12:10", "12:20"), word: "owl", count: 2 },
        ),
      );
    }));

  const Reading = z.object({ sensor: z.string(), time: z.date(), value: z.number() });

  it("tumbling windows in append mode", () =>
    withSession(workers, async (session) => {
      const readings = session.memoryStream(Reading);
      const perMinute = readings
        .toDF()
        .withWatermark("time", "1 minute")
        .groupBy(window(col("time"), "1 minute"))
        .agg(count().alias("n"));
      await testStream(perMinute, "append").run(
        addData(readings, { sensor: "a", time: at("10:00", 10), value: 1 }, { sensor: "b", time: at("10:00", 50), value: 2 }),
        checkNewAnswer(),
        addData(readings, { sensor: "a", time: at("10:02", 5), value: 3 }),
        checkNewAnswer({ window: win("10:00", "10:01"), n: 2 }),
        addData(readings, { sensor: "a", time: at("10:00", 30), value: 9 }, { sensor: "a", time: at("10:05"), value: 4 }),
        checkNewAnswer({ window: win("10:02", "10:03"), n: 1 }),
      );
    }));

  it("tumbling windows in update mode", () =>
    withSession(workers, async (session) => {
      const readings = session.memoryStream(Reading);
      const perMinute = readings
        .toDF()
        .withWatermark("time", "1 minute")
        .groupBy(window(col("time"), "1 minute"), "sensor")
        .agg(count().alias("n"));
      await testStream(perMinute, "update").run(
        addData(readings, { sensor: "a", time: at("10:00", 10), value: 1 }, { sensor: "a", time: at("10:00", 50), value: 2 }),
        checkNewAnswer({ window: win("10:00", "10:01"), sensor: "a", n: 2 }),
        addData(readings, { sensor: "b", time: at("10:00", 20), value: 3 }, { sensor: "a", time: at("10:01", 1), value: 1 }),
        checkNewAnswer({ window: win("10:00", "10:01"), sensor: "b", n: 1 }, { window: win("10:01", "10:02"), sensor: "a", n: 1 }),
      );
    }));

  it("tumbling windows in complete mode keep and emit every window", () =>
    withSession(workers, async (session) => {
      const readings = session.memoryStream(Reading);
      const perMinute = readings
        .toDF()
        .withWatermark("time", "1 minute")
        .groupBy(window(col("time"), "1 minute"))
        .agg(count().alias("n"));
      await testStream(perMinute, "complete").run(
        addData(readings, { sensor: "a", time: at("10:00", 10), value: 1 }),
        checkAnswer({ window: win("10:00", "10:01"), n: 1 }),
        addData(readings, { sensor: "a", time: at("10:05"), value: 1 }, { sensor: "a", time: at("10:00", 11), value: 1 }),
        checkAnswer({ window: win("10:00", "10:01"), n: 2 }, { window: win("10:05", "10:06"), n: 1 }),
      );
    }));
});
