import { describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count, window } from "../api/functions.js";
import type { Session } from "../api/session.js";
import { at, win, WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, assertProgress, assertWatermark, checkAnswer, checkAnswerInOrder, checkNewAnswer, testStream } from "../testing/stream-test.js";

/**
 * SQL over streams: a memory stream registered as a view gives streaming DataFrames, which run
 * with the same operators, watermarks and output modes as the DataFrame API's.
 */
const Word = z.object({ word: z.string(), time: z.date() });
const Shop = z.object({ word: z.string(), owner: z.string() });

/** The programming guide's late-data example, as SQL over a view with a watermark. */
const WINDOWED_COUNTS = `
  SELECT window, word, count(*) AS count
    FROM words
   GROUP BY window(time, '10 minutes', '5 minutes'), word`;

function wordsView(session: Session) {
  const words = session.memoryStream(Word);
  words.toDF().withWatermark("time", "10 minutes").createOrReplaceTempView("words");
  return words;
}

describe.each(WORKER_COUNTS)("SQL over streams with %i workers", (workers) => {
  it("a windowed count with a watermark in append mode emits each window once and drops late rows", () =>
    withSession(workers, async (session) => {
      const words = wordsView(session);
      const counts = session.sql(WINDOWED_COUNTS);
      expect(counts.isStreaming).toBe(true);
      await testStream(counts, "append").run(
        addData(words, { word: "dog", time: at("12:07") }, { word: "owl", time: at("12:08") }),
        checkNewAnswer(),
        addData(words, { word: "dog", time: at("12:14") }, { word: "cat", time: at("12:09") }),
        checkNewAnswer(),
        addData(words, { word: "cat", time: at("12:15") }, { word: "dog", time: at("12:08") }, { word: "owl", time: at("12:13") }, { word: "owl", time: at("12:21") }),
        checkNewAnswer(
          { window: win("12:00", "12:10"), word: "cat", count: 1 },
          { window: win("12:00", "12:10"), word: "dog", count: 2 },
          { window: win("12:00", "12:10"), word: "owl", count: 1 },
        ),
        assertWatermark(at("12:11")),
        // 12:04 is behind the watermark: both its windows ended before 12:11.
        addData(words, { word: "owl", time: at("12:17") }, { word: "donkey", time: at("12:04") }),
        checkNewAnswer(),
        assertProgress((p) => expect(p.stateOperators[0]!.numRowsDroppedByWatermark).toBe(2)),
        addData(words, { word: "cat", time: at("12:31") }),
        checkNewAnswer(
          { window: win("12:05", "12:15"), word: "cat", count: 1 },
          { window: win("12:05", "12:15"), word: "dog", count: 3 },
          { window: win("12:05", "12:15"), word: "owl", count: 2 },
          { window: win("12:10", "12:20"), word: "cat", count: 1 },
          { window: win("12:10", "12:20"), word: "dog", count: 1 },
          { window: win("12:10", "12:20"), word: "owl", count: 2 },
        ),
      );
    }));

  it("the same query in update mode emits the windows each batch changed", () =>
    withSession(workers, async (session) => {
      const words = wordsView(session);
      await testStream(session.sql(`${WINDOWED_COUNTS} HAVING count(*) > 1`), "update").run(
        addData(words, { word: "dog", time: at("12:07") }, { word: "dog", time: at("12:08") }, { word: "owl", time: at("12:08") }),
        checkNewAnswer({ window: win("12:00", "12:10"), word: "dog", count: 2 }, { window: win("12:05", "12:15"), word: "dog", count: 2 }),
        addData(words, { word: "owl", time: at("12:11") }, { word: "dog", time: at("12:21") }),
        checkNewAnswer({ window: win("12:05", "12:15"), word: "owl", count: 2 }),
        assertWatermark(at("12:11")),
        // 12:09 is late for [12:00, 12:10), which the watermark closed, but not for [12:05, 12:15).
        addData(words, { word: "owl", time: at("12:09") }),
        checkNewAnswer({ window: win("12:05", "12:15"), word: "owl", count: 3 }),
      );
    }));

  it("complete mode sorts the whole result by an aggregate, with HAVING on a select alias", () =>
    withSession(workers, async (session) => {
      const words = wordsView(session);
      const top = session.sql("SELECT word, count(*) AS n FROM words GROUP BY word HAVING n > 1 ORDER BY n DESC, word");
      await testStream(top, "complete").run(
        addData(words, { word: "dog", time: at("12:01") }, { word: "owl", time: at("12:02") }, { word: "dog", time: at("12:03") }),
        checkAnswerInOrder({ word: "dog", n: 2 }),
        addData(words, { word: "owl", time: at("12:04") }, { word: "cat", time: at("12:05") }, { word: "owl", time: at("12:06") }),
        checkAnswerInOrder({ word: "owl", n: 3 }, { word: "dog", n: 2 }),
      );
    }));

  it("window.start in the select list, and the DataFrame API after session.sql", () =>
    withSession(workers, async (session) => {
      const words = wordsView(session);
      const perWindow = session
        .sql("SELECT upper(word) AS word, time FROM words WHERE word <> 'cat'")
        .groupBy(window(col("time"), "10 minutes"))
        .agg(count().alias("n"));
      await testStream(perWindow, "append").run(
        addData(words, { word: "dog", time: at("12:01") }, { word: "cat", time: at("12:02") }, { word: "owl", time: at("12:03") }),
        checkNewAnswer(),
        addData(words, { word: "dog", time: at("12:25") }),
        checkNewAnswer({ window: win("12:00", "12:10"), n: 2 }),
      );
    }));

  it("a view made from session.sql, queried again with SQL", () =>
    withSession(workers, async (session) => {
      const words = wordsView(session);
      session.sql("SELECT word, time FROM words WHERE length(word) = 3").createOrReplaceTempView("short_words");
      const starts = session.sql("SELECT window.start AS start, count(*) AS n FROM short_words GROUP BY window(time, '10 minutes')");
      await testStream(starts, "append").run(
        addData(words, { word: "dog", time: at("12:01") }, { word: "donkey", time: at("12:02") }),
        addData(words, { word: "owl", time: at("12:30") }),
        checkAnswer({ start: at("12:00"), n: 1 }),
      );
    }));

  it("a stream joined with a static view", () =>
    withSession(workers, async (session) => {
      const words = wordsView(session);
      session.createDataFrame([{ word: "dog", owner: "ann" }, { word: "owl", owner: "bob" }], Shop).createOrReplaceTempView("owners");
      const joined = session.sql("SELECT w.word, o.owner FROM words w LEFT JOIN owners o ON w.word = o.word");
      await testStream(joined, "append").run(
        addData(words, { word: "dog", time: at("12:01") }, { word: "cat", time: at("12:02") }),
        checkNewAnswer({ word: "dog", owner: "ann" }, { word: "cat", owner: null }),
        addData(words, { word: "owl", time: at("12:03") }),
        checkNewAnswer({ word: "owl", owner: "bob" }),
      );
    }));

  it("a DISTINCT aggregate on a stream is refused with Spark's reason", () =>
    withSession(workers, async (session) => {
      wordsView(session);
      expect(() => session.sql("SELECT count(DISTINCT word) FROM words")).toThrow(
        "[UNSUPPORTED_FEATURE] Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead. SQLSTATE: 0A000; line 1 pos 7",
      );
    }));

  it("ORDER BY on a stream without an aggregation is refused at start, as Spark does", () =>
    withSession(workers, async (session) => {
      wordsView(session);
      const sorted = session.sql("SELECT word FROM words ORDER BY word");
      expect(() => sorted.writeStream.format("memory").queryName("sorted_words").start()).toThrow(
        "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode",
      );
    }));
});
