import { describe, expect, it } from "vitest";
import { at } from "../testing/fixtures.js";
import { Click, getJson, startClickCounts, viaJson, withUiSession } from "./test-support.js";

/** The REST API's base for the session's one application. */
async function queriesApi(base: string): Promise<string> {
  const apps = await getJson<{ id: string }[]>(`${base}/api/v1/applications`);
  expect(apps).toHaveLength(1);
  return `${base}/api/v1/applications/${apps[0]!.id}/sql/streaming/queries`;
}

describe("the web UI's JSON endpoints", () => {
  it("list the session as Spark's one application, its queries as Spark's queries page does, and each run's progress as the query reports it", () =>
    withUiSession({ ui: { port: 0 } }, async (session) => {
      expect(session.uiWebUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const { clicks, query } = startClickCounts(session, "clicks_per_minute");
      clicks.addData({ page: "/a", time: at("10:00", 10) }, { page: "/b", time: at("10:00", 30) });
      await query.processAllAvailable();
      clicks.addData({ page: "/a", time: at("10:02", 5) });
      await query.processAllAvailable();

      const apps = await getJson(`${session.uiWebUrl}/api/v1/applications`);
      expect(apps).toEqual([{ id: expect.stringMatching(/^local-\d+$/), name: "Sluice", attempts: [{ startTime: expect.any(String), completed: false }] }]);
      const api = await queriesApi(session.uiWebUrl!);
      const reports = query.recentProgress;
      const mean = (f: (p: (typeof reports)[number]) => number) => reports.map(f).reduce((a, b) => a + b, 0) / reports.length;
      const summary = {
        id: query.id,
        runId: query.runId,
        name: "clicks_per_minute",
        status: "RUNNING",
        startTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        endTimestamp: null,
        durationMs: expect.any(Number),
        latestBatchId: query.lastProgress!.batchId,
        avgInputRowsPerSecond: mean((p) => p.inputRowsPerSecond),
        avgProcessedRowsPerSecond: mean((p) => p.processedRowsPerSecond),
        exception: null,
      };
      expect(await getJson(api)).toEqual([summary]);
      expect(await getJson(`${api}/${query.runId}/progress`)).toEqual(viaJson(reports));
      expect(await getJson(`${api}/${query.runId}`)).toEqual({ ...summary, plan: query.explain(), lastProgress: viaJson(query.lastProgress) });

      await query.stop();
      const [finished] = await getJson(api);
      expect(finished).toMatchObject({ runId: query.runId, status: "FINISHED", endTimestamp: expect.any(String), exception: null });
      expect(finished.durationMs).toBe(Date.parse(finished.endTimestamp) - Date.parse(finished.startTimestamp));
    }));

  it("show a failed run with its exception", () =>
    withUiSession({ ui: { port: 0 } }, async (session) => {
      const clicks = session.memoryStream(Click);
      const query = clicks
        .toDF()
        .writeStream.queryName("failing")
        .foreachBatch(() => {
          throw new Error("the warehouse is down");
        })
        .start();
      clicks.addData({ page: "/a", time: at("10:00") });
      await expect(query.awaitTermination()).rejects.toThrow("the warehouse is down");
      const [run] = await getJson(await queriesApi(session.uiWebUrl!));
      expect(run).toMatchObject({ runId: query.runId, name: "failing", status: "FAILED", exception: query.exception!.message });
    }));

  it("answer an unknown run, application or path with 404 and a line saying what was not found, and refuse writes", () =>
    withUiSession({ ui: { port: 0 } }, async (session) => {
      const api = await queriesApi(session.uiWebUrl!);
      const missing = await fetch(`${api}/no-such-run/progress`);
      expect([missing.status, await missing.text()]).toEqual([404, "unknown query run: no-such-run\n"]);
      const app = await fetch(`${session.uiWebUrl}/api/v1/applications/app-1/sql/streaming/queries`);
      expect(app.status).toBe(404);
      expect(await app.text()).toMatch(/^unknown app: app-1 \(this session is local-\d+\)\n$/);
      const page = await fetch(`${session.uiWebUrl}/StreamingQuery/statistics/?id=nope`);
      expect([page.status, await page.text()]).toEqual([404, "Failed to find streaming query nope\n"]);
      const post = await fetch(`${session.uiWebUrl}/StreamingQuery/`, { method: "POST" });
      expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    }));

  it("keep spark.sql.streaming.ui.retainedProgressUpdates reports per run and spark.sql.streaming.ui.retainedQueries finished runs", () =>
    withUiSession(
      { ui: { port: 0 }, conf: { "spark.sql.streaming.ui.retainedProgressUpdates": 2, "spark.sql.streaming.ui.retainedQueries": 1 } },
      async (session) => {
        const api = await queriesApi(session.uiWebUrl!);
        const first = startClickCounts(session, "first");
        for (const minute of ["10:00", "10:01", "10:02"]) {
          first.clicks.addData({ page: "/a", time: at(minute) });
          await first.query.processAllAvailable();
        }
        const kept = await getJson<{ batchId: number }[]>(`${api}/${first.query.runId}/progress`);
        expect(kept.map((p) => p.batchId)).toEqual(first.query.recentProgress.slice(-2).map((p) => p.batchId));
        await first.query.stop();
        const second = startClickCounts(session, "second");
        second.clicks.addData({ page: "/a", time: at("10:00") });
        await second.query.processAllAvailable();
        await second.query.stop();
        expect((await getJson<{ name: string }[]>(api)).map((r) => r.name)).toEqual(["second"]);
      },
    ));
});

describe("the web UI's pages", () => {
  it("serve the queries page, a query's statistics page with its plan and points, and uPlot from the installed package", () =>
    withUiSession({ ui: { port: 0 } }, async (session) => {
      const { clicks, query } = startClickCounts(session, "pages");
      clicks.addData({ page: "/a", time: at("10:00", 10) });
      await query.processAllAvailable();
      const root = await fetch(`${session.uiWebUrl}/`, { redirect: "manual" });
      expect([root.status, root.headers.get("location")]).toEqual([302, "/StreamingQuery/"]);
      const list = await (await fetch(`${session.uiWebUrl}/StreamingQuery/`)).text();
      expect(embedded(list)).toMatchObject({ page: "queries", queries: [{ runId: query.runId, name: "pages", status: "RUNNING" }] });
      const page = await (await fetch(`${session.uiWebUrl}/StreamingQuery/statistics/?id=${query.runId}`)).text();
      const data = embedded(page);
      expect(data.plan).toBe(query.explain());
      expect(data.points.map((p: { batchId: number }) => p.batchId)).toEqual(query.recentProgress.map((p) => p.batchId));
      expect(data.events).toBe(`/StreamingQuery/statistics/events?id=${query.runId}`);
      const uplot = await fetch(`${session.uiWebUrl}/static/uPlot.iife.min.js`);
      expect([uplot.status, uplot.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
      expect(await uplot.text()).toContain("uPlot");
      expect((await fetch(`${session.uiWebUrl}/static/uPlot.min.css`)).status).toBe(200);
    }));

  it("push each new batch to an open page as a Server-Sent Event, then the run's end", () =>
    withUiSession({ ui: { port: 0 } }, async (session) => {
      const { clicks, query } = startClickCounts(session, "live");
      clicks.addData({ page: "/a", time: at("10:00") });
      await query.processAllAvailable();
      const seen = query.lastProgress!.batchId;
      const res = await fetch(`${session.uiWebUrl}/StreamingQuery/statistics/events?id=${query.runId}&after=${seen}`);
      expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      clicks.addData({ page: "/b", time: at("10:05") });
      await query.processAllAvailable();
      await query.stop();
      let text = "";
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
      const events = text
        .split("\n\n")
        .filter((e) => e.startsWith("event: "))
        .map((e) => ({ event: e.split("\n")[0]!.slice(7), data: JSON.parse(e.split("\n")[1]!.slice(6)) }));
      const newer = query.recentProgress.filter((p) => p.batchId > seen);
      expect(events.map((e) => e.event)).toEqual([...newer.map(() => "point"), "terminated"]);
      expect(events.slice(0, -1).map((e) => e.data.batchId)).toEqual(newer.map((p) => p.batchId));
      expect(events.at(-1)!.data).toMatchObject({ runId: query.runId, status: "FINISHED" });
    }));
});

/** The page's embedded data, as its script reads it. */
function embedded(html: string): any {
  const m = /<script id="sluice-data" type="application\/json">(.*?)<\/script>/s.exec(html);
  return JSON.parse(m![1]!);
}
