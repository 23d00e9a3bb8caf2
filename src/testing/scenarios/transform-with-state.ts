// Spark's TransformWithStateSuite scenarios on its own processors (src/operators/testing/processors.ts,
// modules the engine imports by URL and export name) and answers, as scenario data (see
// testing/scenario.ts). Run by src/operators/transform-with-state.test.ts (in process, 0 and 2
// workers) and transform-with-state.new-process.test.ts (a new process after every step). The
// processing-time scenarios stay in the in-process file: their manual clock lives in the test's process.
import { z } from "zod";
import { col, timestamp_seconds } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { statefulProcessor } from "../../api/stateful-processor.js";
import { udf, vectorUdf } from "../../api/udf.js";
import { scenarioRef, type ScenarioQuery, type StreamScenario } from "../scenario.js";
import { addData, assertNumStateRows, checkNewAnswer } from "../stream-test.js";

/**
 * The test modules beside this one's source: `.ts` under tsx, `.js` where a child process runs the
 * compiled tree (testing/compiled-sources.ts).
 */
const sibling = (path: string) => new URL(`${path}${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);
export const PROCESSORS = sibling("../../operators/testing/processors");
export const UDFS = sibling("../../api/testing/test-udfs");

const Word = z.object({ value: z.string() });
const KeyCount = z.object({ key: z.string(), count: z.string() });
const words = (...vs: string[]) => vs.map((value) => ({ value }));
const counts = (...kc: [string, string][]) => kc.map(([key, count]) => ({ key, count }));
const maxTimes = (...kv: [string, number][]) => kv.map(([key, maxEventTimeSec]) => ({ key, maxEventTimeSec }));

// ---- the queries ----

/** Spark's RunningCountStatefulProcessor over words, in update mode. */
export function runningCount(session: Session): ScenarioQuery {
  const input = session.memoryStream(Word);
  const df = input.toDF().groupByKey("value").transformWithState(statefulProcessor(PROCESSORS, "RunningCount", { outputSchema: KeyCount }), "none", "update");
  return { inputs: [input], df };
}

/** Spark's MaxEventTimeStatefulProcessor: event-time timers, a 10 s watermark on `time` seconds. */
export function maxEventTime(session: Session): ScenarioQuery {
  const input = session.memoryStream(z.object({ key: z.string(), time: z.int() }));
  const df = input
    .toDF()
    .select(col("key"), timestamp_seconds(col("time")).alias("eventTime"))
    .withWatermark("eventTime", "10 seconds")
    .groupByKey("key")
    .transformWithState(
      statefulProcessor(PROCESSORS, "MaxEventTime", { outputSchema: z.object({ key: z.string(), maxEventTimeSec: z.number() }) }),
      "eventTime",
      "update",
    );
  return { inputs: [input], df };
}

/** List and map state: each user's words and word counts. */
export function wordHistory(session: Session): ScenarioQuery {
  const input = session.memoryStream(z.object({ user: z.string(), word: z.string() }));
  const summary = z.object({ user: z.string(), words: z.string(), distinct: z.int(), top: z.string() });
  const df = input.toDF().groupByKey("user").transformWithState(statefulProcessor(PROCESSORS, "WordHistory", { outputSchema: summary }), "none", "update");
  return { inputs: [input], df };
}

/** Counts seeded from a static initial state (a: 10, b: 20). */
export function seededCount(session: Session): ScenarioQuery {
  const input = session.memoryStream(Word);
  const initial = session.createDataFrame(
    [
      { value: "a", count: 10 },
      { value: "b", count: 20 },
    ],
    z.object({ value: z.string(), count: z.int() }),
  );
  const df = input
    .toDF()
    .groupByKey("value")
    .transformWithState(statefulProcessor(PROCESSORS, "SeededCount", { outputSchema: z.object({ key: z.string(), count: z.int() }) }), "none", "update", {
      initialState: initial.groupByKey("value"),
    });
  return { inputs: [input], df };
}

/** A processor that calls a row-wise and a vector UDF it was handed, keeping a running sum. */
export function scoresWithUdfs(session: Session): ScenarioQuery {
  const input = session.memoryStream(z.object({ value: z.string(), n: z.number() }));
  const scored = statefulProcessor(PROCESSORS, "ScoresWithUdfs", {
    outputSchema: z.object({ key: z.string(), labels: z.string(), sum: z.number(), scaled: z.string() }),
    udfs: { label: udf(UDFS, "label", "string", { args: { prefix: "#" } }), scaleAndAdd: vectorUdf(UDFS, "scaleAndAdd", "float64", { args: { factor: 10 } }) },
  });
  return { inputs: [input], df: input.toDF().groupByKey("value").transformWithState(scored, "none", "update") };
}

const query = (exportName: string) => scenarioRef(import.meta.url, exportName);

export const transformWithStateScenarios: readonly StreamScenario[] = [
  {
    name: "transformWithState - streaming should succeed (RunningCount)",
    query: query("runningCount"),
    outputMode: "update",
    actions: ([input]) => [
      addData(input!, ...words("a")),
      checkNewAnswer(...counts(["a", "1"])),
      addData(input!, ...words("a", "b")),
      checkNewAnswer(...counts(["a", "2"], ["b", "1"])),
      // The third batch of "a" clears its state and emits nothing.
      addData(input!, ...words("a", "b")),
      checkNewAnswer(...counts(["b", "2"])),
      addData(input!, ...words("a", "c")),
      checkNewAnswer(...counts(["a", "1"], ["c", "1"])),
    ],
  },
  {
    name: "transformWithState - streaming with event time timers (MaxEventTime): late rows dropped, timers fire on the watermark",
    query: query("maxEventTime"),
    outputMode: "update",
    actions: ([input]) => [
      // Max event time 15 s: the timer of "a" is at 20 s; the watermark becomes 5 s.
      addData(input!, { key: "a", time: 11 }, { key: "a", time: 13 }, { key: "a", time: 15 }),
      checkNewAnswer(...maxTimes(["a", 15])),
      // 4 s is at or before the watermark: dropped as late.
      addData(input!, { key: "a", time: 4 }),
      checkNewAnswer(),
      addData(input!, { key: "a", time: 10 }),
      checkNewAnswer(...maxTimes(["a", 15])),
      // The watermark moves to 21 s: the timer of "a" (20 s) fires in the batch without data that follows.
      addData(input!, { key: "b", time: 31 }),
      checkNewAnswer(...maxTimes(["a", -1], ["b", 31])),
      // The timer of "b" (36 s) is still in state and fires when the watermark passes it.
      addData(input!, { key: "c", time: 50 }),
      checkNewAnswer(...maxTimes(["b", -1], ["c", 50])),
      // Left: the two values and the timers row of "c"; each key wrote its three rows twice or once (a: 2, b, c),
      // and the row of 4 s was dropped as late.
      assertNumStateRows(3, 12, 1),
    ],
  },
  {
    name: "list and map state per key (WordHistory)",
    query: query("wordHistory"),
    outputMode: "update",
    actions: ([input]) => [
      addData(input!, { user: "u1", word: "to" }, { user: "u1", word: "be" }, { user: "u2", word: "or" }, { user: "u1", word: "to" }),
      checkNewAnswer({ user: "u1", words: "to be to", distinct: 2, top: "to" }, { user: "u2", words: "or", distinct: 1, top: "or" }),
      addData(input!, { user: "u1", word: "-to" }, { user: "u2", word: "not" }, { user: "u2", word: "not" }),
      checkNewAnswer({ user: "u1", words: "be", distinct: 1, top: "be" }, { user: "u2", words: "or not not", distinct: 2, top: "not" }),
      addData(input!, { user: "u2", word: "reset" }, { user: "u2", word: "be" }),
      checkNewAnswer({ user: "u2", words: "be", distinct: 1, top: "be" }),
    ],
  },
  {
    name: "an initial state from a static DataFrame seeds the first batch only (SeededCount)",
    query: query("seededCount"),
    outputMode: "update",
    actions: ([input]) => [
      addData(input!, ...words("a", "c", "a")),
      checkNewAnswer({ key: "a", count: 12 }, { key: "c", count: 1 }),
      addData(input!, ...words("b", "a")),
      checkNewAnswer({ key: "a", count: 13 }, { key: "b", count: 21 }),
    ],
  },
  {
    name: "UDFs handed to the processor are called on values, row-wise and vector (statefulProcessor's udfs)",
    query: query("scoresWithUdfs"),
    outputMode: "update",
    actions: ([input]) => [
      addData(input!, { value: "a", n: 1 }, { value: "a", n: 2 }, { value: "b", n: 3 }),
      checkNewAnswer({ key: "a", labels: "#a:1,#a:2", sum: 3, scaled: "11,22" }, { key: "b", labels: "#b:3", sum: 3, scaled: "33" }),
      addData(input!, { value: "a", n: 4 }),
      checkNewAnswer({ key: "a", labels: "#a:4", sum: 7, scaled: "44" }),
    ],
  },
];
