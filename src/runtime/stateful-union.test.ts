import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { DataFrame } from "../api/data-frame.js";
import { col, count, lit, sum, timestamp_seconds, unix_seconds, window, window_time } from "../api/functions.js";
import type { MemoryStream } from "../api/memory-stream.js";
import type { Session } from "../api/session.js";
import type { OutputMode } from "../config/options.js";
import { AnalysisError } from "../errors/errors.js";
import type { SchemaOfZod } from "../schema/zod-schema.js";
import { withSession } from "../testing/fixtures.js";
import { assertProgress, assertWatermark, addData, checkLastBatchInOrder, checkNewAnswer, multiAddData, stopStream, testStream } from "../testing/stream-test.js";
import { tempDir } from "../testing/temp-dir.js";

/**
 * A union whose inputs include stateful operators' outputs (Spark allows it; SPARK-29438 made
 * sure each stateful operator keeps its state through one): the union runs on the driver, each
 * input's operators keep their own operator id and state, and a stateful operator after the union
 * runs with the lowest of its inputs' output watermarks. Answers are Spark's where the scenario is
 * Spark's (the SPARK-29438 tests of StreamingDeduplicationSuite, StreamingAggregationSuite and
 * StreamingJoinSuite), with 0 and 2 workers.
 */

type Row = Record<string, unknown>;
const Value = z.object({ value: z.int() });
const values = (...vs: number[]) => vs.map((value) => ({ value }));
const seconds = (s: number) => new Date(s * 1000);
type ValueStream = MemoryStream<SchemaOfZod<typeof Value>>;

interface UnionQuery {
  readonly inputs: readonly ValueStream[];
  readonly df: DataFrame<any>;
}

/** Run `data` (one list of values per input) as one batch. */
const batchOf = (q: UnionQuery, data: readonly (readonly number[])[]) => multiAddData(...data.map((vs, i) => [q.inputs[i]!, values(...vs)] as const));

/**
 * Spark's SPARK-29438 tests: a union of a plain stream with a stateful operator's output runs a
 * batch and stops; the same query, built anew with its first input read by more partitions, starts
 * again on the checkpoint with the first batch's data in its new inputs (so it continues after
 * it), and must find each stateful operator's state under the same id. Sluice's memory stream has
 * no partition count, so the second run differs from the first only in being a new query object
 * over new memory streams: a stop and a restart, after which the state is found again.
 */
interface Spark29438 {
  readonly name: string;
  readonly mode: OutputMode;
  readonly build: (session: Session) => UnionQuery;
  readonly first: { readonly data: readonly (readonly number[])[]; readonly answer: readonly Row[] };
  readonly second: { readonly data: readonly (readonly number[])[]; readonly answer: readonly Row[] };
}

const spark29438: readonly Spark29438[] = [
  {
    name: "SPARK-29438: ensure UNION doesn't lead streaming deduplication to use shifted partition IDs",
    mode: "append",
    build: (session) => {
      const input1 = session.memoryStream(Value);
      const input2 = session.memoryStream(Value);
      return { inputs: [input1, input2], df: input1.toDF().select("value").union(input2.toDF().dropDuplicates("value")) };
    },
    first: { data: [[11, 12], [21, 22]], answer: values(11, 12, 21, 22) },
    // 22 is a duplicate of the first run's: the deduplication found its state again.
    second: { data: [[13, 14], [22, 23]], answer: values(13, 14, 23) },
  },
  {
    name: "SPARK-29438: ensure UNION doesn't lead streaming aggregation to use shifted partition IDs",
    mode: "update",
    build: (session) => {
      const input1 = session.memoryStream(Value);
      const input2 = session.memoryStream(Value);
      const plain = input1.toDF().select(col("value"), col("value").plus(1));
      return { inputs: [input1, input2], df: plain.union<any>(input2.toDF().groupBy("value").agg(count())) };
    },
    first: { data: [[11, 12], [21, 22]], answer: [pair(11, 12), pair(12, 13), pair(21, 1), pair(22, 1)] },
    // 22's count goes on from the first run's.
    second: { data: [[13, 14], [22, 23]], answer: [pair(13, 14), pair(14, 15), pair(22, 2), pair(23, 1)] },
  },
  {
    name: "SPARK-29438: ensure UNION doesn't lead stream-stream join to use shifted partition IDs",
    mode: "append",
    build: (session) => {
      const input1 = session.memoryStream(Value);
      const plain = input1.toDF().select(col("value").alias("key"), col("value").alias("leftValue"), col("value").alias("rightValue"));
      const [input2, left] = joinSide(session, "left", 2);
      const [input3, right] = joinSide(session, "right", 3);
      const joined = left
        .join(right, left.col("key").equalTo(right.col("key")).and(col("leftTime").equalTo(col("rightTime"))), "inner")
        .select(col("key"), col("leftValue"), col("rightValue"));
      return { inputs: [input1, input2, input3], df: plain.union<any>(joined) };
    },
    first: {
      data: [[11, 12, 13], [11, 12, 13, 14, 15], [13, 14, 15, 16, 17]],
      answer: [triple(11, 11, 11), triple(12, 12, 12), triple(13, 13, 13), triple(13, 26, 39), triple(14, 28, 42), triple(15, 30, 45)],
    },
    second: {
      data: [[21, 22, 23], [21, 22, 23, 24, 25], [23, 24, 25, 26, 27]],
      answer: [triple(21, 21, 21), triple(22, 22, 22), triple(23, 23, 23), triple(23, 46, 69), triple(24, 48, 72), triple(25, 50, 75)],
    },
  },
];

function pair(value: number, second: number): Row {
  return { value, "(value + 1)": second };
}

function triple(key: number, leftValue: number, rightValue: number): Row {
  return { key, leftValue, rightValue };
}

/** Spark's StreamingJoinSuite.setupStream: key, `<prefix>Time` (the value in seconds, 10 s watermark), `<prefix>Value`. */
function joinSide(session: Session, prefix: "left" | "right", multiplier: number) {
  const input = session.memoryStream(Value);
  const df = input
    .toDF()
    .select(col("value").alias("key"), timestamp_seconds(col("value")).alias(`${prefix}Time`), col("value").multiply(multiplier).alias(`${prefix}Value`))
    .withWatermark(`${prefix}Time`, "10 seconds");
  return [input, df] as const;
}

/** Counts per `size`-second window of `value` seconds, the watermark `delay` behind: { window, count }. */
function windowCounts(input: ValueStream, size: number, delay: string) {
  return input
    .toDF()
    .withColumn("eventTime", timestamp_seconds(col("value")))
    .withWatermark("eventTime", delay)
    .groupBy(window(col("eventTime"), `${size} seconds`))
    .agg(count().alias("count"));
}

describe.each([0, 2])("a union of stateful operators' outputs, %i workers", (workers) => {
  for (const c of spark29438) {
    it(c.name, () =>
      withSession(workers, async (session) => {
        const checkpoint = tempDir("sluice-union-restart-");
        try {
          const first = c.build(session);
          await testStream(first.df, c.mode, { checkpointLocation: checkpoint.dir }).run(batchOf(first, c.first.data), checkNewAnswer(...c.first.answer), stopStream());
          const second = c.build(session);
          c.first.data.forEach((vs, i) => second.inputs[i]!.addData(...values(...vs)));
          await testStream(second.df, c.mode, { checkpointLocation: checkpoint.dir }).run(batchOf(second, c.second.data), checkNewAnswer(...c.second.answer));
        } finally {
          checkpoint.remove();
        }
      }));
  }

  it("two window aggregations' outputs in append mode: each emits a window once the global watermark passes its end, and counts its own late rows", () =>
    withSession(workers, async (session) => {
      const input1 = session.memoryStream(Value);
      const input2 = session.memoryStream(Value);
      const sized = (size: number) => (df: DataFrame<any>) => df.select(lit(size).alias("size"), unix_seconds(col("window.start")).alias("start"), col("count"));
      const tens = sized(10)(windowCounts(input1, 10, "5 seconds"));
      const fives = sized(5)(windowCounts(input2, 5, "5 seconds"));
      await testStream(tens.union<any>(fives), "append").run(
        multiAddData([input1, values(1, 2, 3, 12)], [input2, values(1, 6, 7)]),
        // The inputs' watermarks are 7 and 2; the global one, their minimum, closes nothing.
        checkNewAnswer(),
        assertWatermark(seconds(2)),
        addData(input2, ...values(20)),
        // Global watermark 7: the 5-second window [0, 5) is final, the 10-second [0, 10) is not.
        checkNewAnswer({ size: 5, start: 0, count: 1 }),
        addData(input1, ...values(30)),
        // Global watermark 15 (input 2's): [0, 10) of the first input and [5, 10) of the second.
        checkNewAnswer({ size: 10, start: 0, count: 3 }, { size: 5, start: 5, count: 2 }),
        assertWatermark(seconds(15)),
        addData(input2, ...values(3)),
        // Late for the second aggregation, whose partial half in the workers drops it: it counts
        // there, not for the first (state rows and rows dropped, the operator nearest the sink first).
        checkNewAnswer(),
        assertProgress((p) => expect(p.stateOperators.map((o) => [o.numRowsTotal, o.numRowsDroppedByWatermark])).toEqual([[1, 1], [2, 0]])),
      );
    }));

  it("a window aggregation of two window aggregations' windows (window_time), in append mode, by the watermark they pass on", () =>
    withSession(workers, async (session) => {
      const input1 = session.memoryStream(Value);
      const input2 = session.memoryStream(Value);
      const fives = windowCounts(input1, 5, "0 seconds");
      const tens = windowCounts(input2, 10, "0 seconds");
      const df = fives
        .union(tens)
        .groupBy(window(window_time(col("window")), "10 seconds"))
        .agg(count().alias("windows"), sum(col("count")).alias("events"))
        .select(unix_seconds(col("window.start")).alias("start"), col("windows"), col("events"));
      await testStream(df, "append").run(
        multiAddData([input1, values(1, 2, 6)], [input2, values(3, 12)]),
        // Global watermark 6: the first aggregation closes [0, 5), which waits in the third's [0, 10).
        checkNewAnswer(),
        multiAddData([input1, values(11)], [input2, values(14)]),
        // Global watermark 11: [5, 10) and the second's [0, 10) close, and so does the third's [0, 10).
        checkNewAnswer({ start: 0, windows: 3, events: 4 }),
        multiAddData([input1, values(25)], [input2, values(30)]),
        checkNewAnswer({ start: 10, windows: 2, events: 3 }),
      );
    }));

  it("two aggregations' outputs in complete mode, sorted: each gives its whole result in every batch", () =>
    withSession(workers, async (session) => {
      const input1 = session.memoryStream(Value);
      const input2 = session.memoryStream(Value);
      const counts = (input: ValueStream) => input.toDF().groupBy("value").agg(count().alias("n"));
      const pairs = (...ps: [number, number][]) => ps.map(([value, n]) => ({ value, n }));
      await testStream(counts(input1).union(counts(input2)).orderBy("value", "n"), "complete").run(
        multiAddData([input1, values(1, 1, 2)], [input2, values(2, 3)]),
        checkLastBatchInOrder(...pairs([1, 2], [2, 1], [2, 1], [3, 1])),
        addData(input1, ...values(3)),
        // The second aggregation read nothing, and still gives its groups again.
        checkLastBatchInOrder(...pairs([1, 2], [2, 1], [2, 1], [3, 1], [3, 1])),
      );
    }));

  it("refuses what Spark refuses, with Spark's reasons", () =>
    withSession(workers, async (session) => {
      const stream = () => session.memoryStream(Value);
      const start = (df: DataFrame<any>, mode: OutputMode) => () => df.writeStream.outputMode(mode).format("memory").queryName(`union_${mode}`).start();
      const watermarked = windowCounts(stream(), 10, "5 seconds");
      const unwatermarked = stream().toDF().groupBy(window(timestamp_seconds(col("value")), "10 seconds")).agg(count().alias("count"));

      // An aggregation without a watermark in append mode, in either input (Spark's checker sees
      // the first input's; it fails its first batch on the second's).
      for (const df of [watermarked.union(unwatermarked), unwatermarked.union(watermarked)]) {
        expect(start(df, "append")).toThrow(
          new AnalysisError("Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark"),
        );
      }
      // A stateful operator after a union of aggregations in update or complete mode.
      const twice = unwatermarked.union(stream().toDF().groupBy(window(timestamp_seconds(col("value")), "10 seconds")).agg(count().alias("count")));
      for (const mode of ["update", "complete"] as const) {
        expect(start(twice.groupBy("count").agg(count().alias("windows")), mode)).toThrow(/^Detected pattern of possible 'correctness' issue due to global watermark/);
      }
      // A join of two streams in another mode than append, under a union too.
      const [, left] = joinSide(session, "left", 2);
      const [, right] = joinSide(session, "right", 3);
      const joined = left.join(right, "key").select("key", "leftValue", "rightValue");
      const plain = stream().toDF().select(col("value").alias("key"), col("value").alias("leftValue"), col("value").alias("rightValue"));
      expect(start(plain.union<any>(joined), "update")).toThrow(
        "Join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode",
      );
      // Static data in a union with a stream, beside a stateful operator as anywhere else.
      const deduplicated = stream().toDF().dropDuplicates("value");
      expect(start(deduplicated.union(session.createDataFrame(values(1), Value)), "append")).toThrow(
        "Union between streaming and batch DataFrames/Datasets is not supported",
      );
    }));

  it("runs a union of static aggregations", () =>
    withSession(workers, async (session) => {
      const evens = session.createDataFrame(values(2, 4, 4), Value).groupBy("value").agg(count().alias("n"));
      const odds = session.createDataFrame(values(1, 1, 3), Value).groupBy("value").agg(count().alias("n"));
      const rows = await evens.union(odds).collect();
      expect(rows.sort((a, b) => a.value - b.value)).toEqual([
        { value: 1, n: 2 },
        { value: 2, n: 1 },
        { value: 3, n: 1 },
        { value: 4, n: 2 },
      ]);
    }));
});

describe("explain() of a union of stateful operators' outputs", () => {
  it("shows each input's operators under the union, as Spark's tree string does", () =>
    withSession(0, async (session) => {
      const plain = session.memoryStream(Value).toDF().select("value");
      const deduplicated = session.memoryStream(Value).toDF().dropDuplicates("value");
      expect(await plain.union(deduplicated).explain()).toBe(
        [
          "Union",
          ":- Project [value]",
          ":  +- StreamingRelation MemoryStream[value]",
          "+- Deduplicate [value]",
          "   +- StreamingRelation MemoryStream[value]",
        ].join("\n"),
      );
    }));
});
