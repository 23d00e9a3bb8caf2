// The queries of Spark's StreamingJoinSuite (inputs: [left, right]), named by export so that a child process
// builds them too (testing/scenario.ts); the scenario lists beside this file hold the actions and answers.
// Event times are whole seconds (Spark's `timestamp_seconds`), window ends are reported in seconds.
import { z } from "zod";
import type { DataFrame } from "../../../api/data-frame.js";
import { col, expr, timestamp_seconds, unix_seconds, window } from "../../../api/functions.js";
import type { MemoryStream } from "../../../api/memory-stream.js";
import type { Session } from "../../../api/session.js";
import { scenarioRef, type ScenarioQuery, type ScenarioRef } from "../../scenario.js";

type JoinType = "inner" | "left" | "right" | "full" | "left_semi";

const Value = z.object({ value: z.int() });
const KeyTime = z.object({ key: z.int(), time: z.int() });

/** Spark's setupStream: (key, <prefix>Time = key seconds, <prefix>Value = key * multiplier), 10 s watermark. */
function setupStream(session: Session, prefix: string, multiplier: number): { input: MemoryStream<any>; df: DataFrame<any> } {
  const input = session.memoryStream(Value);
  const df = input
    .toDF()
    .select(col("value").alias("key"), timestamp_seconds(col("value")).alias(`${prefix}Time`), col("value").multiply(multiplier).alias(`${prefix}Value`))
    .withWatermark(`${prefix}Time`, "10 seconds");
  return { input, df };
}

/** The two inputs of Spark's range-condition tests: (key, time) rows as (<side>Key, <side>Time, <side>Value = key * 2 or 3). */
function rangeSides(session: Session, leftWatermark: string, rightWatermark: string) {
  const leftInput = session.memoryStream(KeyTime);
  const rightInput = session.memoryStream(KeyTime);
  const df1 = leftInput
    .toDF()
    .select(col("key").alias("leftKey"), timestamp_seconds(col("time")).alias("leftTime"), col("key").multiply(2).alias("leftValue"))
    .withWatermark("leftTime", leftWatermark);
  const df2 = rightInput
    .toDF()
    .select(col("key").alias("rightKey"), timestamp_seconds(col("time")).alias("rightTime"), col("key").multiply(3).alias("rightValue"))
    .withWatermark("rightTime", rightWatermark);
  return { leftInput, rightInput, df1, df2 };
}

/** (key, leftValue = key * 2) joined with (key, rightValue = key * 3) on key, no event time. */
export function innerJoinOnKey(session: Session): ScenarioQuery {
  const input1 = session.memoryStream(Value);
  const input2 = session.memoryStream(Value);
  const df1 = input1.toDF().select(col("value").alias("key"), col("value").multiply(2).alias("leftValue"));
  const df2 = input2.toDF().select(col("value").alias("key"), col("value").multiply(3).alias("rightValue"));
  return { inputs: [input1, input2], df: df1.join(df2, "key") };
}

/** Both sides windowed by 10 s on `value` seconds and joined on (key, window); a 10 s watermark on the left when `leftWatermark`. */
export function innerJoinOnWindows(session: Session, leftWatermark: boolean): ScenarioQuery {
  const input1 = session.memoryStream(Value);
  const input2 = session.memoryStream(Value);
  const left = input1.toDF().select(col("value").alias("key"), timestamp_seconds(col("value")).alias("timestamp"), col("value").multiply(2).alias("leftValue"));
  const df1 = (leftWatermark ? left.withWatermark("timestamp", "10 seconds") : left).select(col("key"), window(col("timestamp"), "10 seconds"), col("leftValue"));
  const df2 = input2
    .toDF()
    .select(col("value").alias("key"), timestamp_seconds(col("value")).alias("timestamp"), col("value").multiply(3).alias("rightValue"))
    .select(col("key"), window(col("timestamp"), "10 seconds"), col("rightValue"));
  const joined = df1.join(df2, ["key", "window"]).select(col("key"), unix_seconds(col("window.end")).alias("end"), col("leftValue"), col("rightValue"));
  return { inputs: [input1, input2], df: joined };
}

/** An inner join of `rangeSides` on `condition`, as (leftKey, leftTime, rightTime) in seconds. */
export function innerRangeJoin(session: Session, leftWatermark: string, rightWatermark: string, condition: string): ScenarioQuery {
  const { leftInput, rightInput, df1, df2 } = rangeSides(session, leftWatermark, rightWatermark);
  const out = df1
    .join(df2, expr(condition) as never)
    .select(col("leftKey"), unix_seconds(col("leftTime")).alias("leftTime"), unix_seconds(col("rightTime" as never)).alias("rightTime"));
  return { inputs: [leftInput, rightInput], df: out as DataFrame<any> };
}

/** Spark's setupWindowedJoin: both sides windowed by 10 s, joined on (key, window). */
export function windowedJoin(session: Session, how: JoinType): ScenarioQuery {
  const left = setupStream(session, "left", 2);
  const right = setupStream(session, "right", 3);
  const w1 = left.df.select(col("key"), window(col("leftTime"), "10 seconds"), col("leftValue"));
  const w2 = right.df.select(col("key"), window(col("rightTime"), "10 seconds"), col("rightValue"));
  const joined = w1.join(w2, ["key", "window"], how);
  const out =
    how === "left_semi"
      ? joined.select(col("key"), unix_seconds(col("window.end")).alias("end"), col("leftValue"))
      : joined.select(col("key"), unix_seconds(col("window.end")).alias("end"), col("leftValue"), col("rightValue" as never));
  return { inputs: [left.input, right.input], df: out as DataFrame<any> };
}

/** Spark's setupJoinWithRangeCondition: leftKey = rightKey AND leftTime BETWEEN rightTime - 5 s AND rightTime + 5 s. */
export function rangeJoin(session: Session, how: JoinType): ScenarioQuery {
  const { leftInput, rightInput, df1, df2 } = rangeSides(session, "10 seconds", "10 seconds");
  const joined = df1.join(df2, expr("leftKey = rightKey AND leftTime BETWEEN rightTime - interval 5 seconds AND rightTime + interval 5 seconds") as never, how);
  const out =
    how === "left_semi"
      ? joined.select(col("leftKey"), unix_seconds(col("leftTime")).alias("leftTime"))
      : joined.select(col("leftKey"), col("rightKey" as never), unix_seconds(col("leftTime")).alias("leftTime"), unix_seconds(col("rightTime" as never)).alias("rightTime"));
  return { inputs: [leftInput, rightInput], df: out as DataFrame<any> };
}

/**
 * Spark's setupWindowedJoinWithLeftCondition / ...RightCondition: a windowed `how` join with
 * leftValue > 4 (side "left") or rightValue > 7 (side "right") in the join condition, rightValue a string.
 */
export function sideConditionJoin(session: Session, how: "left" | "right", side: "left" | "right"): ScenarioQuery {
  const left = setupStream(session, "left", 2);
  const right = setupStream(session, "right", 3);
  const l = left.df.select(col("key"), window(col("leftTime"), "10 seconds"), col("leftValue"));
  const r = right.df.select(col("key"), window(col("rightTime"), "10 seconds"), col("rightValue").cast("string").alias("rightValue"));
  const extra = side === "left" ? col("leftValue").gt(4) : col("rightValue").cast("int32").gt(7);
  const joined: DataFrame<any> = l.join(r, l.col("key").equalTo(r.col("key")).and(l.col("window").equalTo(r.col("window"))).and(extra), how);
  const out =
    how === "left"
      ? joined.select(col("key"), unix_seconds(col("window.end")).alias("end"), col("leftValue"), col("rightValue"))
      : joined.select(col("key_right"), unix_seconds(col("window_right.end")).alias("end"), col("leftValue"), col("rightValue"));
  return { inputs: [left.input, right.input], df: out };
}

/** A windowed left outer join whose condition adds leftValue > 10 AND (rightValue < 300 OR rightValue > 1000). */
export function leftOuterWithNonKeyCondition(session: Session): ScenarioQuery {
  const left = setupStream(session, "left", 2);
  const right = setupStream(session, "right", 3);
  const l = left.df.select(col("key"), window(col("leftTime"), "10 seconds"), col("leftValue"));
  const r = right.df.select(col("key"), window(col("rightTime"), "10 seconds"), col("rightValue"));
  const joined = l
    .join(
      r,
      l.col("key").equalTo(r.col("key")).and(l.col("window").equalTo(r.col("window"))).and(col("leftValue").gt(10)).and(col("rightValue").lt(300).or(col("rightValue").gt(1000))),
      "left",
    )
    .select(col("key"), unix_seconds(col("window.end")).alias("end"), col("leftValue"), col("rightValue"));
  return { inputs: [left.input, right.input], df: joined };
}

/** A reference to one of the queries above, with its arguments. */
export const query = (exportName: string, ...args: (string | boolean)[]): ScenarioRef => scenarioRef(import.meta.url, exportName, ...args);
