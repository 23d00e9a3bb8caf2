// Joins of a stream, run embedded and on Spark (parity.ts): a stream with a static DataFrame (inner on a key
// column, left outer on a condition), and two streams (inner with watermarks and an event-time range, left outer
// whose unmatched rows come out once the watermark passes). Event times are whole seconds.
import { describe, it } from "vitest";
import { z } from "zod";
import { col, expr, timestamp_seconds, unix_seconds } from "../../api/functions.js";
import type { Session } from "../../api/session.js";
import { events, runBoth } from "../../testing/remote-parity.js";

const Event = z.object({ key: z.string(), time: z.int() });
const Name = z.object({ code: z.string(), name: z.string() });
const NAMES = [
  { code: "a", name: "Alpha" },
  { code: "b", name: "Beta" },
];

function eventStream(session: Session, dir: string) {
  return session.readStream.schema(Event).option("maxFilesPerTrigger", 1).json(dir);
}

/** One side of a stream-stream join: (<side>Key, <side>Time) with a 10 s watermark on <side>Time. */
function side(session: Session, dir: string, name: "left" | "right") {
  return eventStream(session, dir)
    .select(col("key").alias(`${name}Key`), timestamp_seconds(col("time")).alias(`${name}Time`))
    .withWatermark(`${name}Time`, "10 seconds");
}

/** leftKey = rightKey, the right event at most 5 s after the left one. */
const RANGE = "leftKey = rightKey AND rightTime >= leftTime AND rightTime <= leftTime + interval 5 seconds";

function rangeJoin(session: Session, [leftDir, rightDir]: readonly string[], how: "inner" | "left" | "right" | "full") {
  return side(session, leftDir!, "left")
    .join(side(session, rightDir!, "right"), expr(RANGE) as never, how)
    .select(col("leftKey" as never), unix_seconds(col("leftTime" as never)).alias("leftTime"), unix_seconds(col("rightTime" as never)).alias("rightTime"));
}

const match = (key: string | null, leftTime: number | null, rightTime: number | null) => ({ leftKey: key, leftTime, rightTime });

/**
 * The outer joins' input: a matches twice, b (left) and c (right) never; then x (left) and y (right) at 40 s
 * move the watermark to 30 s, which ends b's and c's chances; then 60 s and 61 s move it to 50 s, which ends
 * x's and y's.
 */
const OUTER_STEPS = [
  { addTo: [events(["a", 10], ["b", 11]), events(["a", 12], ["c", 13], ["a", 14])] },
  { addTo: [events(["x", 40]), events(["y", 40])] },
  { addTo: [events(["x", 60]), events(["z", 61])] },
];
const MATCHES = [match("a", 10, 12), match("a", 10, 14)];

describe("stream-static joins, embedded and on Spark", () => {
  it("inner, on a column both sides have: the key once in the output", () =>
    runBoth({
      name: "static_inner",
      outputMode: "append",
      query: (session, [dir]) => {
        const names = session.createDataFrame(NAMES, Name).withColumnRenamed("code", "key");
        return eventStream(session, dir!).join(names, "key").select(col("key"), col("time"), col("name"));
      },
      steps: [
        { add: events(["a", 1], ["c", 2]), table: [{ key: "a", time: 1, name: "Alpha" }] },
        {
          add: events(["b", 3], ["a", 4]),
          table: [
            { key: "a", time: 1, name: "Alpha" },
            { key: "b", time: 3, name: "Beta" },
            { key: "a", time: 4, name: "Alpha" },
          ],
        },
      ],
    }), 60_000);

  it("left outer, on a condition: stream rows without a match get nulls at once", () =>
    runBoth({
      name: "static_left",
      outputMode: "append",
      query: (session, [dir]) => {
        const names = session.createDataFrame(NAMES, Name);
        return eventStream(session, dir!).join(names, col("key").equalTo(col("code")), "left").select(col("key"), col("time"), col("name"));
      },
      steps: [
        { add: events(["a", 1], ["c", 2]), table: [{ key: "a", time: 1, name: "Alpha" }, { key: "c", time: 2, name: null }] },
        {
          add: events(["b", 3]),
          table: [
            { key: "a", time: 1, name: "Alpha" },
            { key: "c", time: 2, name: null },
            { key: "b", time: 3, name: "Beta" },
          ],
        },
      ],
    }), 60_000);
});

describe("stream-stream joins, embedded and on Spark", () => {
  it("inner, with watermarks on both sides and an event-time range", () =>
    runBoth({
      name: "stream_inner",
      inputs: 2,
      outputMode: "append",
      query: (session, inputs) => rangeJoin(session, inputs, "inner"),
      steps: [
        { addTo: [events(["a", 10], ["b", 12]), events(["a", 12])], table: [match("a", 10, 12)] },
        // b at 20 s is more than 5 s after b at 12 s; a at 14 s matches a at 10 s again.
        { addTo: [undefined, events(["b", 20], ["a", 14])], table: [match("a", 10, 12), match("a", 10, 14)] },
        // A left row arriving after its right match.
        { addTo: [events(["b", 17])], table: [match("a", 10, 12), match("a", 10, 14), match("b", 17, 20)] },
      ],
    }), 60_000);

  it("left outer: a left row without a match comes out with nulls once the watermark passes its range", () =>
    runBoth({
      name: "stream_left",
      inputs: 2,
      outputMode: "append",
      query: (session, inputs) => rangeJoin(session, inputs, "left"),
      steps: [
        // The match comes out at once; b waits for a right row up to 16 s.
        { addTo: [events(["a", 10], ["b", 11]), events(["a", 12])], table: [match("a", 10, 12)] },
        // Watermark min(40, 40) - 10 = 30 s: b can no longer match.
        { addTo: [events(["c", 40]), events(["d", 40])], table: [match("a", 10, 12), match("b", 11, null)] },
        // Watermark 50 s: c has had no match either.
        { addTo: [events(["e", 60]), events(["e", 61])], table: [match("a", 10, 12), match("b", 11, null), match("c", 40, null), match("e", 60, 61)] },
      ],
    }), 60_000);

  it("right outer: the right rows without a match come out once the watermark passes their range", () =>
    runBoth({
      name: "stream_right",
      inputs: 2,
      outputMode: "append",
      query: (session, inputs) => rangeJoin(session, inputs, "right"),
      steps: [
        { ...OUTER_STEPS[0]!, table: MATCHES },
        { ...OUTER_STEPS[1]!, table: [...MATCHES, match(null, null, 13)] },
        { ...OUTER_STEPS[2]!, table: [...MATCHES, match(null, null, 13), match(null, null, 40)] },
      ],
    }), 60_000);

  it("full outer: the rows of either side without a match", () =>
    runBoth({
      name: "stream_full",
      inputs: 2,
      outputMode: "append",
      query: (session, inputs) => rangeJoin(session, inputs, "full"),
      steps: [
        { ...OUTER_STEPS[0]!, table: MATCHES },
        { ...OUTER_STEPS[1]!, table: [...MATCHES, match("b", 11, null), match(null, null, 13)] },
        { ...OUTER_STEPS[2]!, table: [...MATCHES, match("b", 11, null), match(null, null, 13), match("x", 40, null), match(null, null, 40)] },
      ],
    }), 60_000);

  it("left semi: a left row comes out once, at its first match", () =>
    runBoth({
      name: "stream_semi",
      inputs: 2,
      outputMode: "append",
      query: (session, [leftDir, rightDir]) =>
        side(session, leftDir!, "left")
          .join(side(session, rightDir!, "right"), expr(RANGE) as never, "left_semi")
          .select(col("leftKey"), unix_seconds(col("leftTime")).alias("leftTime")),
      steps: OUTER_STEPS.map((step) => ({ ...step, table: [{ leftKey: "a", leftTime: 10 }] })),
    }), 60_000);
});
