import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AnalysisError } from "../errors/errors.js";
import { at, WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, checkLastBatch, testStream } from "../testing/stream-test.js";
import { col, sum } from "./functions.js";

const Narrow = z.object({ id: z.int32(), score: z.int32(), label: z.string() });
const Wide = z.object({ key: z.int(), points: z.number().nullable(), tag: z.int32() });
const Timed = z.object({ when: z.date(), n: z.int32() });

describe.each(WORKER_COUNTS)("union widens column types as Spark does (%i workers)", (workers) => {
  it("int32 with int64 gives int64, int32 with double gives double, a number with a string gives a string; the first input's names", () =>
    withSession(workers, async (session) => {
      const narrow = session.createDataFrame([{ id: 1, score: 7, label: "a" }], Narrow);
      const wide = session.createDataFrame(
        [
          { key: 2 ** 40, points: 2.5, tag: 9 },
          { key: -3, points: null, tag: -1 },
        ],
        Wide,
      );
      // Columns meet by position; the type follows same-named columns only, hence union<any> here.
      const df = narrow.union<any>(wide);
      expect(df.schema).toEqual([
        { name: "id", type: "int64", nullable: false },
        { name: "score", type: "float64", nullable: true },
        { name: "label", type: "string", nullable: false },
      ]);
      expect(await df.collect()).toEqual([
        { id: 1, score: 7, label: "a" },
        { id: 2 ** 40, score: 2.5, label: "9" },
        { id: -3, score: null, label: "-1" },
      ]);
      // The other way round: the wider side first, names from it.
      expect(await wide.union<any>(narrow).filter(col("points").gt(5)).collect()).toEqual([{ key: 1, points: 7, tag: "a" }]);
    }));

  it("a timestamp with a string gives the timestamp's Spark text", () =>
    withSession(workers, async (session) => {
      const timed = session.createDataFrame([{ when: at("09:15", 30), n: 1 }], Timed);
      const Text = z.object({ when: z.string(), n: z.int() });
      const text = session.createDataFrame([{ when: "later", n: 2 }], Text);
      const out = await text.union<any>(timed).collect();
      expect(out).toEqual([
        { when: "later", n: 2 },
        { when: `${at("09:15", 30).toISOString().slice(0, 10)} 09:15:30`, n: 1 },
      ]);
    }));

  it("widens a stream's columns before the filter and the aggregation above the union", () =>
    withSession(workers, async (session) => {
      const a = session.memoryStream(z.object({ k: z.string(), v: z.int32() }));
      const b = session.memoryStream(z.object({ k: z.string(), v: z.number() }));
      const q = a
        .toDF()
        .union(b.toDF())
        .filter(col("v").gt(1))
        .groupBy("k")
        .agg(sum(col("v")).alias("total"));
      await testStream(q, "update").run(
        addData(a, { k: "x", v: 2 }, { k: "y", v: 1 }),
        addData(b, { k: "x", v: 0.5 }, { k: "x", v: 1.5 }),
        checkLastBatch({ k: "x", total: 3.5 }),
      );
    }));
});

describe("union refuses columns with no common type, as Spark's INCOMPATIBLE_COLUMN_TYPE", () => {
  it("names the column, the input and both types", () =>
    withSession(0, async (session) => {
      const ints = session.createDataFrame([{ when: at("09:00"), n: 1 }], Timed);
      const Flags = z.object({ when: z.date(), n: z.boolean() });
      const flags = session.createDataFrame([{ when: at("09:00"), n: true }], Flags);
      expect(() => ints.union<any>(flags)).toThrow(AnalysisError);
      expect(() => ints.union<any>(flags)).toThrow(
        'UNION can only be performed on inputs with compatible column types: the second column ("n") of the second input is boolean, which is not compatible with int32 at the same column of the first input; cast one side first',
      );
      const Numbers = z.object({ when: z.int(), n: z.int32() });
      expect(() => ints.union<any>(session.createDataFrame([], Numbers))).toThrow("the first column (\"when\") of the second input is int64, which is not compatible with timestamp");
    }));

  it("needs the same number of columns", () =>
    withSession(0, async (session) => {
      const One = z.object({ when: z.date() });
      expect(() => session.createDataFrame([], Timed).union<any>(session.createDataFrame([], One))).toThrow(
        "UNION can only be performed on inputs with the same number of columns, but the first input has 2 columns and the second input has 1 columns",
      );
    }));
});
