import { existsSync, mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AnalysisError, OptionError, UdfError } from "../errors/errors.js";
import { at, WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, checkAnswer, checkLastBatch, expectFailure, testStream } from "../testing/stream-test.js";
import { col, count, lit, sum } from "./functions.js";
import { Session } from "./session.js";
import { udf, vectorUdf } from "./udf.js";

const UDFS = new URL("./testing/test-udfs.ts", import.meta.url);

const addOne = udf(UDFS, "addOne", "float64");
const label = udf(UDFS, "label", "string", { args: { prefix: "#" } });
const isEven = udf(UDFS, "isEven", "boolean", { nullable: false });
const scaleAndAdd = vectorUdf(UDFS, "scaleAndAdd", "float64", { args: { factor: 10 } });
const nameLengths = vectorUdf(UDFS, "nameLengths", z.int32().nullable());
const upperAll = vectorUdf(UDFS, "upperAll", "string");

const Reading = z.object({ id: z.int32(), name: z.string().nullable(), x: z.number(), y: z.number() });

describe.each(WORKER_COUNTS)("UDFs with %i workers", (workers) => {
  it("run row-wise and vector UDFs in select, filter and withColumn on a stream", () =>
    withSession(workers, async (session) => {
      const readings = session.memoryStream(Reading);
      const df = readings
        .toDF()
        .filter(isEven(col("id")))
        .withColumn("z", scaleAndAdd(col("x"), col("y")))
        .select(col("id"), addOne(col("x")).alias("x1"), col("z"), label(col("name"), col("id")), nameLengths(col("name")).alias("len"), upperAll(col("name")).alias("u"));
      await testStream(df, "append").run(
        addData(readings, { id: 1, name: "a", x: 1, y: 2 }, { id: 2, name: "bb", x: 2, y: 0.5 }, { id: 4, name: null, x: 0.25, y: 1 }),
        checkLastBatch(
          { id: 2, x1: 3, z: 20.5, "label(name, id)": "#bb:2", len: 2, u: "BB" },
          { id: 4, x1: 1.25, z: 3.5, "label(name, id)": "#?:4", len: null, u: null },
        ),
        addData(readings, { id: 6, name: "cccc", x: -1, y: 0 }, { id: 7, name: "d", x: 0, y: 0 }),
        checkAnswer(
          { id: 2, x1: 3, z: 20.5, "label(name, id)": "#bb:2", len: 2, u: "BB" },
          { id: 4, x1: 1.25, z: 3.5, "label(name, id)": "#?:4", len: null, u: null },
          { id: 6, x1: 0, z: -10, "label(name, id)": "#cccc:6", len: 4, u: "CCCC" },
        ),
      );
    }));

  it("run on the driver after an aggregation, imported when the query starts", () =>
    withSession(workers, async (session) => {
      const readings = session.memoryStream(Reading);
      const totals = readings
        .toDF()
        .groupBy("name")
        .agg(count().alias("n"), sum(col("x")).alias("sx"))
        .select(col("name"), label(col("name"), col("n")).alias("l"), scaleAndAdd(col("sx"), col("sx")).alias("s"));
      await testStream(totals, "complete").run(
        addData(readings, { id: 1, name: "a", x: 1, y: 0 }, { id: 2, name: "a", x: 2, y: 0 }, { id: 3, name: "b", x: 5, y: 0 }),
        checkAnswer({ name: "a", l: "#a:2", s: 33 }, { name: "b", l: "#b:1", s: 55 }),
      );
    }));

  it("pass timestamps as Date and literals as values, on static DataFrames", () =>
    withSession(workers, async (session) => {
      const dayOf = udf(UDFS, "dayOf", "string");
      const df = session.createDataFrame([{ t: at("12:07"), n: 5 }], z.object({ t: z.date(), n: z.int32() }));
      expect(await df.select(dayOf(col("t")).alias("day"), label(lit("const"), col("n")).alias("l")).collect()).toEqual([{ day: "2026-01-01", l: "#const:5" }]);
    }));

  it("fail the query with an error naming the UDF, the row and its arguments", () =>
    withSession(workers, async (session) => {
      const readings = session.memoryStream(Reading);
      const failOnThree = udf(UDFS, "failOnThree", "int32");
      const df = readings.toDF().select(failOnThree(col("id")).alias("v"));
      await testStream(df, "append").run(
        addData(readings, { id: 1, name: "a", x: 0, y: 0 }, { id: 3, name: "c", x: 0, y: 0 }),
        expectFailure(`udf "failOnThree" (export of ${UDFS.href}) failed on row 1 of a batch of 2 rows, arguments (3): RangeError: three is not allowed`),
      );
    }));

  it("retry a task whose UDF failed, as any task error, and succeed on the next attempt", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-udf-"));
    const session = new Session({ workers, taskRetryBackoff: 0 });
    try {
      const failOnce = udf(UDFS, "failOnce", "int32", { args: { marker: path.join(dir, "failed") } });
      const df = session.createDataFrame([{ id: 1 }, { id: 2 }], z.object({ id: z.int32() }));
      expect(await df.select(failOnce(col("id")).alias("v")).collect()).toEqual([{ v: 10 }, { v: 20 }]);
      expect(existsSync(path.join(dir, "failed"))).toBe(true); // the first attempt did fail
    } finally {
      await session.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("UDF errors", () => {
  const Ids = z.object({ id: z.int32() });
  const withIds = <T>(fn: (df: import("./data-frame.js").DataFrame<{ readonly id: { readonly type: "int32"; readonly nullable: false } }>, session: Session) => Promise<T>, workers = 0) =>
    withSession(workers, (session) => fn(session.createDataFrame([{ id: 1 }, { id: 2 }, { id: 3 }], Ids), session));
  const failure = async (p: Promise<unknown>): Promise<Error> => {
    try {
      await p;
    } catch (e) {
      return e as Error;
    }
    throw new Error("expected a failure");
  };

  it("stop after the task's attempts with the first attempt's UdfError", async () => {
    const session = new Session({ workers: 2, maxTaskAttempts: 2 });
    try {
      const df = session.createDataFrame([{ id: 1 }, { id: 3 }], Ids);
      const e = await failure(df.select(udf(UDFS, "failOnThree", "int32")(col("id"))).collect());
      expect(e).toBeInstanceOf(UdfError);
      expect((e as UdfError).udf).toBe("failOnThree");
      expect((e as UdfError).row).toBe(1);
      expect((e as Error & { attempts?: number }).attempts).toBe(2);
      expect(e.message).toContain("failed on row 1 of a batch of 2 rows, arguments (3): RangeError: three is not allowed");
    } finally {
      await session.stop();
    }
  });

  it("name the UDF when its module, export or function is wrong", () =>
    withIds(async (df) => {
      const missing = new URL("./testing/no-such-module.ts", import.meta.url);
      const cases: [ReturnType<typeof udf<string, "int32">>, string][] = [
        [udf(missing, "f", "int32"), `udf "f" (export of ${missing.href}): the module cannot be imported`],
        [udf(UDFS, "nope", "int32"), `udf "nope" (export of ${UDFS.href}): the module has no export named "nope"; its function exports are "addOne"`],
        [udf(UDFS, "notAFunction", "int32"), `udf "notAFunction" (export of ${UDFS.href}): export "notAFunction" is number, not a function`],
        [udf("sluice-no-such-package", "f", "int32"), 'udf "f" (export of sluice-no-such-package): the module cannot be imported'],
      ];
      for (const [fn, message] of cases) {
        const e = await failure(df.select(fn(col("id"))).collect());
        expect(e).toBeInstanceOf(AnalysisError);
        expect(e.message).toContain(message);
      }
    }));

  it("refuse results the declared type cannot hold", () =>
    withIds(async (df) => {
      const cases: [ReturnType<typeof udf<string, any>>, string][] = [
        [udf(UDFS, "returnsText", "int32"), `udf "returnsText" (export of ${UDFS.href}) returned a value its type cannot hold: expected an integer in the int32 range (int32), got "not a number", on row 0 of a batch of 3 rows, arguments (1)`],
        [udf(UDFS, "returnsPromise", "int32"), 'udf "returnsPromise" (export of ' + UDFS.href + ") returned a Promise: UDFs run synchronously"],
        [udf(UDFS, "addOne", "float64", { name: "plusOne" }), ""],
        [vectorUdf(UDFS, "tooShort", "float64"), `vectorUdf "tooShort" (export of ${UDFS.href}) returned 2 values for a batch of 3 rows: a vector UDF returns one value per row`],
        [vectorUdf(UDFS, "wrongVectorType", "float64"), `vectorUdf "wrongVectorType" (export of ${UDFS.href}) returned a Vector of Utf8 for its float64 result, on a batch of 3 rows; it returns a Float64 Vector or a Float64Array (or narrower numbers) of the batch's length`],
        [vectorUdf(UDFS, "throwsOnBatch", "float64"), `vectorUdf "throwsOnBatch" (export of ${UDFS.href}) failed on a batch of 3 rows: Error: the model is not loaded`],
        [vectorUdf(UDFS, "nameLengths", "int32", { nullable: false }), ""],
      ];
      for (const [fn, message] of cases) {
        if (message === "") continue;
        const e = await failure(df.select(fn(col("id").cast("float64"))).collect());
        expect(e).toBeInstanceOf(UdfError);
        expect(e.message).toContain(message);
      }
      // A non-nullable result that comes back null.
      const names = df.select(lit(null).cast("string").alias("name"));
      const e = await failure(names.select(vectorUdf(UDFS, "nameLengths", "int32", { nullable: false })(col("name"))).collect());
      expect(e.message).toContain(`vectorUdf "nameLengths" (export of ${UDFS.href}) returned 3 null(s) for its result, which is not nullable, on a batch of 3 rows`);
      const e2 = await failure(names.select(udf(UDFS, "addOne", "float64", { nullable: false, name: "plusOne" })(col("name").cast("float64"))).collect());
      expect(e2.message).toContain(`udf "plusOne" (export "addOne" of ${UDFS.href}) returned a value its type cannot hold: expected a number (float64) (the column is not nullable), got null, on row 0 of a batch of 3 rows, arguments (null)`);
    }));

  it("validate the options where the UDF is made, naming the option and the fix", () => {
    expect(() => udf("./udfs.js", "f", "int32")).toThrow(OptionError);
    expect(() => udf("./udfs.js", "f", "int32")).toThrow('udf(): module "./udfs.js" is relative, and workers would resolve it from Sluice\'s own folder; resolve it first, e.g. new URL("./udfs.js", import.meta.url)');
    expect(() => udf(UDFS, "f", "window" as never)).toThrow('udf(): returnType must be one of string, float64, int32, int64, boolean, timestamp, binary or a zod schema such as z.number().nullable(), got "window"');
    expect(() => vectorUdf(UDFS, "f", "float64", { args: { weights: new Float64Array(2) } as never })).toThrow(
      'vectorUdf() options: option "args": args must be JSON data (strings, finite numbers, booleans, null, arrays and plain objects): it travels to every worker as data; a typed array becomes one with Array.from(values)',
    );
    expect(() => udf(UDFS, "f", "int32", { args: () => 1 } as never)).toThrow('option "args": args must be JSON data');
    expect(() => udf(UDFS, "f", "int32", { nullabel: true } as never)).toThrow('udf() options: option "(options)": Unrecognized key: "nullabel"');
    expect(() => udf(UDFS, "f", z.number(), { nullable: true })).toThrow('udf(): option "nullable" is for a type name; a zod schema says it itself (.nullable())');
    expect(() => udf(UDFS, "", "int32")).toThrow('udf(): exportName must be the name of the module\'s export, e.g. "score"');
    expect(() => (udf(UDFS, "addOne", "float64") as any)("x")).toThrow('addOne(): argument 1 is "x", not a Column; pass col("name"), or lit(value) for a constant');
  });

  it("check arguments and need a column for a vector UDF when the query is built", () =>
    withIds(async (df) => {
      expect(() => df.select(addOne(col("nope" as "id")))).toThrow('cannot resolve column "nope"');
      expect(() => df.select(vectorUdf(UDFS, "tooShort", "float64")())).toThrow('vectorUdf "tooShort" needs at least one column argument');
    }));

  it("keep the UDF as plain data that survives JSON", () => {
    const ref = scaleAndAdd.ref;
    expect(JSON.parse(JSON.stringify(ref))).toEqual({
      kind: "udfRef",
      name: "scaleAndAdd",
      module: UDFS.href,
      exportName: "scaleAndAdd",
      form: "vector",
      returnType: { type: "float64", nullable: true },
      args: { factor: 10 },
    });
    expect(Object.isFrozen(ref.args)).toBe(true);
    expect(udf(path.join(os.tmpdir(), "m.js"), "f", "int32").ref.module).toBe(`file://${path.join(os.tmpdir(), "m.js")}`);
  });
});
