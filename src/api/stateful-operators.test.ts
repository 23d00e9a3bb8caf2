import { describe, expect, it } from "vitest";
import { z } from "zod";
import { at, win, WORKER_COUNTS, withSession } from "../testing/fixtures.js";
import {
  addData,
  assertProgress,
  assertWatermark,
  checkAnswer,
  checkLastBatch,
  checkNewAnswer,
  startStream,
  stopStream,
  testStream,
} from "../testing/stream-test.js";
import { avg, col, count, first, last, max, min, session_window, sum, window } from "./functions.js";

const Sale = z.object({ shop: z.string(), amount: z.number(), units: z.int32(), time: z.date() });
const Event = z.object({ id: z.string(), user: z.string(), time: z.date() });

describe.each(WORKER_COUNTS)("stateful operators with %i workers", (workers) => {
  it("aggregates without a watermark in update mode", () =>
    withSession(workers, async (session) => {
      const sales = session.memoryStream(Sale);
      const perShop = sales
        .toDF()
        .groupBy("shop")
        .agg(count().alias("n"), sum(col("amount")).alias("total"), sum(col("units")).alias("units"), avg(col("amount")).alias("mean"));
      await testStream(perShop, "update").run(
        addData(sales, { shop: "a", amount: 10, units: 1, time: at("09:00") }, { shop: "b", amount: 1.5, units: 2, time: at("09:00") }, { shop: "a", amount: 5, units: 3, time: at("09:01") }),
        checkLastBatch({ shop: "a", n: 2, total: 15, units: 4, mean: 7.5 }, { shop: "b", n: 1, total: 1.5, units: 2, mean: 1.5 }),
        addData(sales, { shop: "b", amount: 2.5, units: 1, time: at("09:02") }),
        checkLastBatch({ shop: "b", n: 2, total: 4, units: 3, mean: 2 }),
      );
    }));

  it("aggregates without a watermark in complete mode, sorted and limited", () =>
    withSession(workers, async (session) => {
      const sales = session.memoryStream(Sale);
      const top = sales
        .toDF()
        .groupBy("shop")
        .agg(sum(col("amount")).alias("total"), min(col("amount")).alias("lo"), max(col("amount")).alias("hi"))
        .orderBy(col("total").desc())
        .limit(2);
      await testStream(top, "complete").run(
        addData(sales, { shop: "a", amount: 10, units: 1, time: at("09:00") }, { shop: "b", amount: 20, units: 1, time: at("09:00") }),
        checkLastBatch({ shop: "b", total: 20, lo: 20, hi: 20 }, { shop: "a", total: 10, lo: 10, hi: 10 }),
        addData(sales, { shop: "c", amount: 15, units: 1, time: at("09:00") }, { shop: "a", amount: 30, units: 1, time: at("09:00") }),
        checkLastBatch({ shop: "a", total: 40, lo: 10, hi: 30 }, { shop: "b", total: 20, lo: 20, hi: 20 }),
      );
    }));

  it("first and last follow arrival order across batches", () =>
    withSession(workers, async (session) => {
      const sales = session.memoryStream(Sale);
      const q = sales.toDF().groupBy("shop").agg(first(col("amount")).alias("first"), last(col("amount")).alias("last"));
      await testStream(q, "complete").run(
        addData(sales, { shop: "a", amount: 1, units: 1, time: at("09:00") }, { shop: "a", amount: 2, units: 1, time: at("09:00") }),
        checkAnswer({ shop: "a", first: 1, last: 2 }),
        addData(sales, { shop: "a", amount: 3, units: 1, time: at("09:00") }),
        checkAnswer({ shop: "a", first: 1, last: 3 }),
      );
    }));

  it("dropDuplicates without a watermark keeps the first row of each key forever", () =>
    withSession(workers, async (session) => {
      const events = session.memoryStream(Event);
      const unique = events.toDF().dropDuplicates("id");
      await testStream(unique, "append").run(
        addData(events, { id: "1", user: "ann", time: at("10:00") }, { id: "1", user: "bob", time: at("10:01") }, { id: "2", user: "cy", time: at("10:02") }),
        checkNewAnswer({ id: "1", user: "ann", time: at("10:00") }, { id: "2", user: "cy", time: at("10:02") }),
        addData(events, { id: "2", user: "dee", time: at("11:00") }, { id: "3", user: "eve", time: at("11:00") }),
        checkNewAnswer({ id: "3", user: "eve", time: at("11:00") }),
      );
    }));

  it("dropDuplicates with a watermark drops late rows and forgets keys behind the watermark", () =>
    withSession(workers, async (session) => {
      const events = session.memoryStream(Event);
      const unique = events.toDF().withWatermark("time", "10 minutes").dropDuplicates("id", "time");
      await testStream(unique, "append").run(
        addData(events, { id: "1", user: "ann", time: at("10:00") }, { id: "1", user: "bob", time: at("10:00") }),
        checkNewAnswer({ id: "1", user: "ann", time: at("10:00") }),
        addData(events, { id: "2", user: "cy", time: at("10:30") }),
        checkNewAnswer({ id: "2", user: "cy", time: at("10:30") }),
        assertWatermark(at("10:20")),
        // Behind the watermark: dropped as late, not re-emitted.
        addData(events, { id: "1", user: "dee", time: at("10:00") }, { id: "2", user: "eve", time: at("10:30") }),
        checkNewAnswer(),
        assertProgress((p) => {
          expect(p.stateOperators[0]!.numRowsDroppedByWatermark).toBe(1);
          expect(p.stateOperators[0]!.numRowsTotal).toBe(1);
        }),
      );
    }));

  it("dropDuplicatesWithinWatermark drops repeats that arrive within the delay of the first", () =>
    withSession(workers, async (session) => {
      const events = session.memoryStream(Event);
      const unique = events.toDF().withWatermark("time", "10 minutes").dropDuplicatesWithinWatermark("id");
      await testStream(unique, "append").run(
        addData(events, { id: "1", user: "ann", time: at("10:00") }, { id: "1", user: "bob", time: at("10:05") }),
        checkNewAnswer({ id: "1", user: "ann", time: at("10:00") }),
        addData(events, { id: "9", user: "zed", time: at("10:30") }),
        checkNewAnswer({ id: "9", user: "zed", time: at("10:30") }),
        // The watermark is 10:20; key "1" expired at 10:10, so it is new again.
        addData(events, { id: "1", user: "cy", time: at("10:25") }, { id: "9", user: "dee", time: at("10:31") }),
        checkNewAnswer({ id: "1", user: "cy", time: at("10:25") }),
      );
    }));

  it("session windows merge activity closer than the gap and close in append mode", () =>
    withSession(workers, async (session) => {
      const events = session.memoryStream(Event);
      const sessions = events
        .toDF()
        .withWatermark("time", "30 minutes")
        .groupBy(session_window(col("time"), "10 minutes"), "user")
        .agg(count().alias("clicks"));
      await testStream(sessions, "append").run(
        addData(events, { id: "1", user: "ann", time: at("10:00") }, { id: "2", user: "ann", time: at("10:18") }, { id: "3", user: "bob", time: at("10:02") }),
        checkNewAnswer(),
        // 10:09 reaches both [10:00, 10:10) and [10:18, 10:28): ann's two sessions become one.
        addData(events, { id: "4", user: "ann", time: at("10:09") }),
        checkNewAnswer(),
        addData(events, { id: "5", user: "bob", time: at("11:00") }),
        checkNewAnswer(
          { session_window: win("10:00", "10:28"), user: "ann", clicks: 3 },
          { session_window: win("10:02", "10:12"), user: "bob", clicks: 1 },
        ),
      );
    }));

  it("two watermarked inputs advance the global watermark by the slower one", () =>
    withSession(workers, async (session) => {
      const fast = session.memoryStream(Event);
      const slow = session.memoryStream(Event);
      const merged = fast
        .toDF()
        .withWatermark("time", "10 minutes")
        .union(slow.toDF().withWatermark("time", "20 minutes"))
        .groupBy(window(col("time"), "10 minutes"))
        .agg(count().alias("n"));
      await testStream(merged, "append").run(
        addData(fast, { id: "1", user: "a", time: at("10:05") }),
        addData(slow, { id: "2", user: "b", time: at("10:06") }),
        checkNewAnswer(),
        addData(fast, { id: "3", user: "a", time: at("11:00") }),
        addData(slow, { id: "4", user: "b", time: at("10:40") }),
        // min(11:00 - 10 min, 10:40 - 20 min) = 10:20
        assertWatermark(at("10:20")),
        checkNewAnswer({ window: win("10:00", "10:10"), n: 2 }),
      );
    }));

  it("a stream-static join feeds a windowed count", () =>
    withSession(workers, async (session) => {
      const Click = z.object({ adId: z.string(), time: z.date() });
      const Ad = z.object({ adId: z.string(), campaign: z.string() });
      const ads = session.createDataFrame(
        [
          { adId: "a1", campaign: "spring" },
          { adId: "a2", campaign: "spring" },
          { adId: "a3", campaign: "summer" },
        ],
        Ad,
      );
      const clicks = session.memoryStream(Click);
      const perCampaign = clicks
        .toDF()
        .join(ads, "adId")
        .withWatermark("time", "1 minute")
        .groupBy(window(col("time"), "10 minutes"), "campaign")
        .agg(count().alias("clicks"));
      await testStream(perCampaign, "update").run(
        addData(clicks, { adId: "a1", time: at("10:01") }, { adId: "a2", time: at("10:02") }, { adId: "zz", time: at("10:03") }, { adId: "a3", time: at("10:04") }),
        checkNewAnswer({ window: win("10:00", "10:10"), campaign: "spring", clicks: 2 }, { window: win("10:00", "10:10"), campaign: "summer", clicks: 1 }),
      );
    }));

  it("a left outer stream-static join keeps unmatched stream rows with nulls", () =>
    withSession(workers, async (session) => {
      const Click = z.object({ adId: z.string(), n: z.int32() });
      const Ad = z.object({ adId: z.string(), campaign: z.string() });
      const ads = session.createDataFrame([{ adId: "a1", campaign: "spring" }], Ad);
      const clicks = session.memoryStream(Click);
      const joined = clicks.toDF().join(ads, ["adId"], "left");
      await testStream(joined, "append").run(
        addData(clicks, { adId: "a1", n: 1 }, { adId: "a9", n: 2 }),
        checkNewAnswer({ adId: "a1", n: 1, campaign: "spring" }, { adId: "a9", n: 2, campaign: null }),
      );
    }));

  it("stop and restart on the same checkpoint keeps state and offsets", () =>
    withSession(workers, async (session) => {
      const sales = session.memoryStream(Sale);
      const perShop = sales.toDF().groupBy("shop").agg(count().alias("n"));
      await testStream(perShop, "update").run(
        addData(sales, { shop: "a", amount: 1, units: 1, time: at("09:00") }),
        checkNewAnswer({ shop: "a", n: 1 }),
        stopStream(),
        addData(sales, { shop: "a", amount: 1, units: 1, time: at("09:00") }, { shop: "b", amount: 1, units: 1, time: at("09:00") }),
        startStream(),
        checkNewAnswer({ shop: "a", n: 2 }, { shop: "b", n: 1 }),
        stopStream(),
        startStream(),
        addData(sales, { shop: "b", amount: 1, units: 1, time: at("09:00") }),
        checkNewAnswer({ shop: "b", n: 2 }),
      );
    }));
});
