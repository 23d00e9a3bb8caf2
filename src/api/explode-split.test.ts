import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AnalysisError } from "../errors/errors.js";
import { WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, checkAnswer, testStream } from "../testing/stream-test.js";
import { col, count, explode, expr, length, split, upper } from "./functions.js";

const Line = z.object({ id: z.int32(), line: z.string().nullable() });

describe.each(WORKER_COUNTS)("explode(split(...)) with %i workers", (workers) => {
  it("counts words as the Structured Streaming guide's word count, in complete mode", () =>
    withSession(workers, async (session) => {
      const lines = session.memoryStream(Line);
      const words = lines.toDF().select(explode(split(col("line"), " ")).alias("word"));
      const wordCounts = words.groupBy("word").count();
      await testStream(wordCounts, "complete").run(
        addData(lines, { id: 1, line: "apache spark" }, { id: 2, line: "apache hadoop" }),
        checkAnswer({ word: "apache", count: 2 }, { word: "spark", count: 1 }, { word: "hadoop", count: 1 }),
        addData(lines, { id: 3, line: null }, { id: 4, line: "spark" }),
        checkAnswer({ word: "apache", count: 2 }, { word: "spark", count: 2 }, { word: "hadoop", count: 1 }),
      );
    }));

  it("repeats the other columns on each piece, keeps empty pieces and drops null strings, as Spark", () =>
    withSession(workers, async (session) => {
      const df = session.createDataFrame(
        [
          { id: 1, line: "a,,b," },
          { id: 2, line: null },
          { id: 3, line: "" },
          { id: 4, line: "x" },
        ],
        Line,
      );
      expect(await df.select("id", explode(split(col("line"), ",")).alias("piece"), length(col("line")).alias("n")).collect()).toEqual([
        { id: 1, piece: "a", n: 5 },
        { id: 1, piece: "", n: 5 },
        { id: 1, piece: "b", n: 5 },
        { id: 1, piece: "", n: 5 },
        { id: 3, piece: "", n: 0 },
        { id: 4, piece: "x", n: 1 },
      ]);
    }));
});

describe("split semantics", () => {
  const pieces = (line: string, pattern: string, limit?: number) =>
    withSession(0, async (session) => {
      const df = session.createDataFrame([{ id: 1, line }], Line);
      return (await df.select(explode(split(col("line"), pattern, limit))).collect()).map((r) => r.col);
    });

  it("limit > 0 keeps the rest in the last piece; limit <= 0 splits everywhere", async () => {
    expect(await pieces("a b c d", " ", 2)).toEqual(["a", "b c d"]);
    expect(await pieces("a b c d", " ", 1)).toEqual(["a b c d"]);
    expect(await pieces("a b c", " ", 0)).toEqual(["a", "b", "c"]);
    expect(await pieces(" a b ", " ", -1)).toEqual(["", "a", "b", ""]);
  });

  it("treats the pattern as a regex, splits non-ASCII text on byte patterns, and an empty pattern into characters", async () => {
    expect(await pieces("one1two22three", "[0-9]+")).toEqual(["one", "two", "three"]);
    expect(await pieces("a  b\tc", "\\s+")).toEqual(["a", "b", "c"]);
    expect(await pieces("grüße→welt→!", "→")).toEqual(["grüße", "welt", "!"]);
    expect(await pieces("héllo", "")).toEqual(["h", "é", "l", "l", "o"]);
    expect(await pieces("héllo", "", 3)).toEqual(["h", "é", "llo"]);
    expect(await pieces("a.b", ".")).toEqual(["", "", "", ""]);
    expect(await pieces("a.b", "\\.")).toEqual(["a", "b"]);
  });

  it("runs from expr() too", () =>
    withSession(0, async (session) => {
      const df = session.createDataFrame([{ id: 1, line: "to be" }], Line);
      expect(await df.select(upper(col("line")).alias("u"), expr("explode(split(line, ' ')) AS w")).collect()).toEqual([
        { u: "TO BE", w: "to" },
        { u: "TO BE", w: "be" },
      ]);
    }));

  it("refuses split's array outside explode and explode outside select, naming the form that works", () =>
    withSession(0, async (session) => {
      const df = session.createDataFrame([], Line);
      expect(() => df.select(expr("split(line, ' ')"))).toThrow(AnalysisError);
      expect(() => df.select(expr("split(line, ' ')"))).toThrow('split() gives an array, which Sluice has no column type for: use it inside explode() at the top level of select(), e.g. select(explode(split(col("line"), " ")).alias("word"))');
      expect(() => df.filter(expr("length(explode(split(line, ' '))) > 1"))).toThrow("explode() changes the number of rows, so it can only be a top-level column of select()");
      expect(() => df.groupBy(explode(split(col("line"), " "))).agg(count())).toThrow("explode() changes the number of rows");
      expect(() => df.select(explode(split(col("line"), " ")), explode(split(col("line"), ",")).alias("b"))).toThrow("Only one generator allowed per select clause but found 2");
      expect(() => df.select(explode(split(col("id"), " ")))).toThrow("split() needs a string, but id is int32");
    }));
});
