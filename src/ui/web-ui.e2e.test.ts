import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { col, count, window } from "../api/functions.js";
import type { Session } from "../api/session.js";
import { at } from "../testing/fixtures.js";
import { CHARTS } from "./chart-points.js";
import { Click, launchChromium, withUiSession } from "./test-support.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** Windowed counts over the rate source, a batch every 300 ms: every chart but Kafka's has a value per batch. */
function startRateCounts(session: Session) {
  return session.readStream
    .format("rate")
    .option("rowsPerSecond", 40)
    .load()
    .withWatermark("timestamp", "2 seconds")
    .groupBy(window(col("timestamp"), "1 second"))
    .agg(count().alias("n"))
    .writeStream.format("memory")
    .queryName("rate_counts")
    .outputMode("append")
    .trigger({ processingTime: "300 milliseconds" })
    .start();
}

/** The number of points each chart of the page says it has drawn (its data-points attribute), by chart id. */
function pointsDrawn(page: Page): Promise<Record<string, number>> {
  return page.$$eval("[data-chart]", (nodes) => Object.fromEntries(nodes.map((n) => [n.getAttribute("data-chart"), Number(n.getAttribute("data-points"))])));
}

describe("the web UI in a browser", () => {
  it("lists a running query, and its page draws every chart and keeps adding each batch's point", () =>
    withUiSession({ ui: { port: 0 } }, async (session) => {
      const query = startRateCounts(session);
      while (query.recentProgress.length < 2) await new Promise((r) => setTimeout(r, 100));
      const page = await browser.newPage();
      await page.goto(`${session.uiWebUrl}/`);
      await expect.poll(() => page.textContent("h3")).toBe("Active Streaming Queries (1)");
      const row = page.locator(`#active-queries tr[data-run-id="${query.runId}"]`);
      expect(await row.locator("td").nth(0).textContent()).toBe("rate_counts");
      expect(await row.locator("td").nth(1).textContent()).toBe("RUNNING");
      expect(await row.locator("td").nth(2).textContent()).toBe(query.id);

      await row.locator("td").nth(3).locator("a").click();
      await page.waitForURL(`**/StreamingQuery/statistics/?id=${query.runId}`);
      expect(await page.textContent("#query-plan")).toBe(query.explain());
      const drawnCharts = CHARTS.filter((c) => c.id !== "offsets-behind-latest").map((c) => c.id);
      // Every chart has drawn the batches so far; Kafka's stays hidden, this query has no Kafka source.
      await expect.poll(async () => {
        const drawn = await pointsDrawn(page);
        return drawnCharts.filter((id) => !(drawn[id]! >= 1));
      }).toEqual([]);
      const before = await pointsDrawn(page);
      expect(before["offsets-behind-latest"]).toBe(0);
      expect(await page.isHidden('[data-chart="offsets-behind-latest"]')).toBe(true);
      // uPlot's own data agrees with what the chart says it drew.
      // (A string: this file's `window` is Sluice's window function, not the page's global.)
      const plotted = await page.evaluate<number>('window.sluiceCharts["input-rate"].data[0].length');
      expect(plotted).toBe((await pointsDrawn(page))["input-rate"]);

      // Live: new batches arrive over the event stream and are appended without a reload.
      await expect
        .poll(async () => {
          const now = await pointsDrawn(page);
          return drawnCharts.every((id) => now[id]! >= before[id]! + 2);
        }, { timeout: 15_000 })
        .toBe(true);
      const rows = await page.locator("#batches tbody tr").count();
      expect(rows).toBe(Math.min(20, (await pointsDrawn(page))["input-rate"]!));
      await page.close();
      await query.stop();
    }));

  it("shows a failed query's exception on the queries page and on its own page", () =>
    withUiSession({ ui: { port: 0 } }, async (session) => {
      const clicks = session.memoryStream(Click);
      const query = clicks
        .toDF()
        .writeStream.queryName("broken")
        .foreachBatch(() => {
          throw new Error("the warehouse is down");
        })
        .start();
      clicks.addData({ page: "/a", time: at("10:00") });
      await query.awaitTermination().catch(() => undefined);
      const page = await browser.newPage();
      await page.goto(`${session.uiWebUrl}/StreamingQuery/`);
      const row = page.locator(`#completed-queries tr[data-run-id="${query.runId}"]`);
      expect(await row.locator("td").nth(1).textContent()).toBe("FAILED");
      expect(await row.locator("td.error pre").textContent()).toBe(query.exception!.message);
      await row.locator("td").nth(0).locator("a").click();
      await page.waitForURL(`**/StreamingQuery/statistics/?id=${query.runId}`);
      expect(await page.textContent("#query-status")).toBe("FAILED");
      expect(await page.textContent("#query-exception pre")).toBe(query.exception!.message);
      await page.close();
    }));
});
