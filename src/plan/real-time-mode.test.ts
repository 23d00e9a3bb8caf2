import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { col, count } from "../api/functions.js";
import { Session } from "../api/session.js";
import { toTrigger, triggerSchema } from "../config/options.js";
import { validateOptions } from "../config/validate.js";
import { OptionError, RealTimeModeError } from "../errors/errors.js";

/** Real-time mode's checks: start() refuses what Spark's real-time mode cannot run, before anything runs. */

const session = new Session({ workers: 0 });
afterAll(() => session.stop());

const Event = z.object({ id: z.int(), kind: z.string() });
const kafka = (topic = "in", extra: Record<string, string | number> = {}) =>
  session.readStream.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:1").option("subscribe", topic).options(extra).schema(Event).load();

const toKafka = (df: ReturnType<typeof kafka>) =>
  df.select(col("kind").alias("value")).writeStream.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:1").option("topic", "out").option("checkpointLocation", "/tmp/never-written");

function refusal(start: () => unknown): RealTimeModeError {
  try {
    start();
  } catch (e) {
    if (e instanceof RealTimeModeError) return e;
    throw e;
  }
  throw new Error("start() was not refused");
}

describe("trigger({ realTime })", () => {
  it("takes a checkpoint interval as a duration string, milliseconds, or true for Spark's default 5 minutes", () => {
    const parse = (t: unknown) => toTrigger(validateOptions(triggerSchema, t, "writeStream.trigger"));
    expect(parse({ realTime: "10 seconds" })).toEqual({ kind: "realTime", batchDurationMs: 10_000 });
    expect(parse({ realTime: 7_000 })).toEqual({ kind: "realTime", batchDurationMs: 7_000 });
    expect(parse({ realTime: true })).toEqual({ kind: "realTime", batchDurationMs: 300_000 });
  });

  it("names the option and the fix when the interval is not a duration", () => {
    expect(() => validateOptions(triggerSchema, { realTime: "soon" }, "writeStream.trigger")).toThrow(OptionError);
    expect(() => validateOptions(triggerSchema, { realTime: "soon" }, "writeStream.trigger")).toThrow(/option "realTime": realTime must be a checkpoint interval such as "5 minutes"/);
    expect(() => validateOptions(triggerSchema, { realTime: false }, "writeStream.trigger")).toThrow(/realTime must be a checkpoint interval such as "5 minutes"/);
    expect(() => validateOptions(triggerSchema, { realTime: "1 minute", once: true }, "writeStream.trigger")).toThrow(/\{ realTime: "5 minutes" \}/);
  });
});

describe("real-time mode refuses at start()", () => {
  it("an output mode other than update (Spark's OUTPUT_MODE_NOT_SUPPORTED)", () => {
    const e = refusal(() => toKafka(kafka()).outputMode("append").trigger({ realTime: "1 minute" }).start());
    expect(e.errorClass).toBe("STREAMING_REAL_TIME_MODE.OUTPUT_MODE_NOT_SUPPORTED");
    expect(e.message).toMatch(/^\[STREAMING_REAL_TIME_MODE.OUTPUT_MODE_NOT_SUPPORTED\] The output mode append is not supported in real-time mode: use outputMode\("update"\)/);
  });

  it("a checkpoint interval below spark.sql.streaming.realTimeMode.minBatchDuration", () => {
    const e = refusal(() => toKafka(kafka()).outputMode("update").trigger({ realTime: "2 seconds" }).start());
    expect(e.errorClass).toBe("INVALID_STREAMING_REAL_TIME_MODE_TRIGGER_INTERVAL");
    expect(e.message).toContain("is 2000 ms, below spark.sql.streaming.realTimeMode.minBatchDuration (5000 ms)");
  });

  it("a stateful query, naming its operator (Spark's OPERATOR_OR_SINK_NOT_IN_ALLOWLIST)", () => {
    const counts = kafka().groupBy("kind").agg(count().alias("n")).select(col("kind").alias("value"));
    const e = refusal(() => counts.writeStream.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:1").option("topic", "out").option("checkpointLocation", "/tmp/x").outputMode("update").trigger({ realTime: "1 minute" }).start());
    expect(e.errorClass).toBe("STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST");
    expect(e.message).toContain("The operator streaming aggregation (groupBy().agg()) is not in the operator allowlist for real-time mode");
  });

  it("a source without a real-time reader, and the Kafka options that size micro-batches", () => {
    const rate = session.readStream.format("rate").load().select(col("value").cast("string").alias("value"));
    const e = refusal(() => rate.writeStream.format("kafka").option("kafka.bootstrap.servers", "127.0.0.1:1").option("topic", "out").option("checkpointLocation", "/tmp/x").outputMode("update").trigger({ realTime: "1 minute" }).start());
    expect(e.errorClass).toBe("STREAMING_REAL_TIME_MODE.INPUT_STREAM_NOT_SUPPORTED");
    expect(e.message).toContain("the rate source (RateStreamV2");
    const limited = refusal(() => toKafka(kafka("in", { maxOffsetsPerTrigger: 100 })).outputMode("update").trigger({ realTime: "1 minute" }).start());
    expect(limited.message).toContain('the Kafka source option "maxOffsetsPerTrigger" is not supported in real-time mode');
  });

  it("foreachBatch and exactly-once Kafka writes (Spark's SINK_NOT_SUPPORTED)", () => {
    const batches = refusal(() => kafka().writeStream.foreachBatch(() => undefined).option("checkpointLocation", "/tmp/x").outputMode("update").trigger({ realTime: "1 minute" }).start());
    expect(batches.errorClass).toBe("STREAMING_REAL_TIME_MODE.SINK_NOT_SUPPORTED");
    expect(batches.message).toContain("The foreachBatch sink is not supported in real-time mode");
    const exactlyOnce = refusal(() => toKafka(kafka()).option("exactlyOnce", true).outputMode("update").trigger({ realTime: "1 minute" }).start());
    expect(exactlyOnce.message).toContain("The Kafka sink's exactly-once mode");
  });
});
