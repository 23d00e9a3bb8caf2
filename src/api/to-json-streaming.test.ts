import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AnalysisError } from "../errors/errors.js";
import { at, WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import { addData, checkNewAnswer, testStream } from "../testing/stream-test.js";
import { col, count, struct, sum, to_json, unix_millis, window } from "./functions.js";
import type { Session } from "./session.js";

/** Ad events as the benchmark jobs read them: a key and an event time, plus a value to add up. */
const Event = z.object({ campaign_id: z.string(), timestamp: z.date(), value: z.int().nullable() });

const ms = (d: Date): number => d.getTime();

/** The benchmark jobs' query shape: counts per 10-second window and campaign, written as JSON values. */
function campaignCounts(session: Session) {
  const events = session.memoryStream(Event);
  const values = events
    .toDF()
    .withWatermark("timestamp", "10 seconds")
    .groupBy(window(col("timestamp"), "10 seconds"), "campaign_id")
    .agg(count().alias("count"))
    .select(
      to_json(
        struct(
          unix_millis(col("window.start")).alias("window_start"),
          unix_millis(col("window.end")).alias("window_end"),
          col("campaign_id").alias("key"),
          col("count"),
        ),
      ).alias("value"),
    );
  return { events, values };
}

const value = (start: Date, key: string, n: number) => ({
  value: `{"window_start":${ms(start)},"window_end":${ms(start) + 10_000},"key":"${key}","count":${n}}`,
});

describe.each(WORKER_COUNTS)("to_json(struct(...)) in streaming queries with %i workers", (workers) => {
  it("writes each final window's count as the benchmark jobs' JSON value (append mode)", () =>
    withSession(workers, async (session) => {
      const { events, values } = campaignCounts(session);
      expect(values.schema).toEqual([{ name: "value", type: "string", nullable: false }]);
      await testStream(values, "append").run(
        addData(
          events,
          { campaign_id: "c1", timestamp: at("12:00", 1), value: 1 },
          { campaign_id: "c1", timestamp: at("12:00", 9), value: 2 },
          { campaign_id: 'c"2', timestamp: at("12:00", 5), value: null },
        ),
        checkNewAnswer(),
        // The watermark moves to 12:00:15: [12:00:00, 12:00:10) is final.
        addData(events, { campaign_id: "c1", timestamp: at("12:00", 25), value: 3 }),
        checkNewAnswer(value(at("12:00", 0), "c1", 2), value(at("12:00", 0), 'c\\"2', 1)),
        addData(events, { campaign_id: "c1", timestamp: at("12:00", 40), value: 4 }),
        checkNewAnswer(value(at("12:00", 20), "c1", 1)),
      );
    }));

  it("writes the windows a batch changed (update mode), with a window column, getField and null fields left out", () =>
    withSession(workers, async (session) => {
      const events = session.memoryStream(Event);
      const out = events
        .toDF()
        .withWatermark("timestamp", "10 seconds")
        .groupBy(window(col("timestamp"), "10 seconds"), "campaign_id")
        .agg(sum(col("value")).alias("total"))
        .select(
          col("campaign_id"),
          to_json(struct(col("window"), col("window").getField("start"), col("campaign_id"), col("total"))).alias("json"),
          to_json(col("window")).alias("w"),
        );
      const w = (start: string, end: string) => `{"start":"${start}","end":"${end}"}`;
      await testStream(out, "update").run(
        addData(events, { campaign_id: "a", timestamp: at("12:00", 3), value: null }, { campaign_id: "b", timestamp: at("12:00", 4), value: 5 }),
        checkNewAnswer(
          {
            campaign_id: "a",
            json: `{"window":${w("2026-01-01T12:00:00.000Z", "2026-01-01T12:00:10.000Z")},"start":"2026-01-01T12:00:00.000Z","campaign_id":"a"}`,
            w: w("2026-01-01T12:00:00.000Z", "2026-01-01T12:00:10.000Z"),
          },
          {
            campaign_id: "b",
            json: `{"window":${w("2026-01-01T12:00:00.000Z", "2026-01-01T12:00:10.000Z")},"start":"2026-01-01T12:00:00.000Z","campaign_id":"b","total":5}`,
            w: w("2026-01-01T12:00:00.000Z", "2026-01-01T12:00:10.000Z"),
          },
        ),
        addData(events, { campaign_id: "a", timestamp: at("12:00", 12), value: 7 }),
        checkNewAnswer({
          campaign_id: "a",
          json: `{"window":${w("2026-01-01T12:00:10.000Z", "2026-01-01T12:00:20.000Z")},"start":"2026-01-01T12:00:10.000Z","campaign_id":"a","total":7}`,
          w: w("2026-01-01T12:00:10.000Z", "2026-01-01T12:00:20.000Z"),
        }),
      );
    }));

  it("writes one JSON value per input row in a stateless query (filter, then select)", () =>
    withSession(workers, async (session) => {
      const events = session.memoryStream(Event);
      const out = events
        .toDF()
        .filter(col("campaign_id").notEqual("skip"))
        .select(to_json(struct(col("campaign_id"), unix_millis(col("timestamp")).alias("ts"), col("value"))).alias("value"));
      await testStream(out, "append").run(
        addData(
          events,
          { campaign_id: "a", timestamp: at("08:00", 1), value: 12 },
          { campaign_id: "skip", timestamp: at("08:00", 2), value: 1 },
          { campaign_id: "tab\there", timestamp: at("08:00", 3), value: null },
        ),
        checkNewAnswer(
          { value: `{"campaign_id":"a","ts":${ms(at("08:00", 1))},"value":12}` },
          { value: `{"campaign_id":"tab\\there","ts":${ms(at("08:00", 3))}}` },
        ),
      );
    }));

  it("feeds a memory sink, read back as a table", () =>
    withSession(workers, async (session) => {
      const { events, values } = campaignCounts(session);
      const q = values.writeStream.outputMode("complete").format("memory").queryName(`json_counts_${workers}`).start();
      events.addData({ campaign_id: "x", timestamp: at("09:30", 1), value: 1 }, { campaign_id: "x", timestamp: at("09:30", 2), value: 1 });
      await q.processAllAvailable();
      await q.stop();
      expect(await session.table(`json_counts_${workers}`).collect()).toEqual([value(at("09:30", 0), "x", 2)]);
    }));
});

describe("struct outside to_json", () => {
  it("is rejected when the query is built, with a message that says where a struct may go", () =>
    withSession(0, async (session) => {
      const typed = session.memoryStream(Event).toDF();
      // The compiler already rejects these (see json-functions.test-d.ts): untyped callers meet the analyzer.
      const df: any = typed;
      const s = struct(col("campaign_id"), col("timestamp"));
      expect(() => df.select(s)).toThrow(AnalysisError);
      expect(() => df.select(s)).toThrow("struct(campaign_id, timestamp) can only be used as the argument of to_json()");
      expect(() => df.groupBy(s).agg(count())).toThrow(/can only be used as the argument of to_json/);
      expect(() => df.withColumn("s", s)).toThrow(/can only be used as the argument of to_json/);
      expect(() => df.filter(s)).toThrow(/can only be used as the argument of to_json/);
      expect(() => typed.select(to_json(col("campaign_id")))).toThrow("to_json() needs a struct(...), a window or a headers column, but campaign_id is string");
    }));
});
