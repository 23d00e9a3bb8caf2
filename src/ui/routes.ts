import type { IncomingMessage, ServerResponse } from "node:http";
import type { ProgressMetrics } from "../metrics/progress-metrics.js";
import { staticAsset } from "./assets.js";
import { CHARTS, chartPoint } from "./chart-points.js";
import { streamRun } from "./event-stream.js";
import { reply, replyNotFound } from "./http-replies.js";
import { pageHtml, type UiPaths } from "./pages.js";
import { summarize, type QueryHistory } from "./query-history.js";
import { answerRestApi, type ApplicationInfo } from "./rest-api.js";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The paths of Spark's Structured Streaming tab, kept so habits carry over. */
const QUERIES_PAGE = "/StreamingQuery/";
const STATISTICS_PAGE = "/StreamingQuery/statistics/";
const EVENTS = "/StreamingQuery/statistics/events";
const HTML = "text/html; charset=utf-8";

/** `/metrics`: the Prometheus exposition of the session's queries. */
export function metricsRoute(metrics: ProgressMetrics): (path: string, res: ServerResponse) => boolean {
  return (path, res) => {
    if (path !== "/metrics") return false;
    metrics.scrape().then(
      (text) => reply(res, 200, metrics.contentType, text),
      (e: unknown) => reply(res, 500, "text/plain; charset=utf-8", `metrics failed: ${(e as Error).message}\n`),
    );
    return true;
  };
}

/** The server of a metrics port of its own: `/metrics` only. */
export function metricsOnlyHandler(metrics: ProgressMetrics): Handler {
  const route = metricsRoute(metrics);
  return getOnly((path, _query, _req, res) => {
    if (!route(path, res)) replyNotFound(res, `not found: ${path} (this port serves /metrics)`);
  });
}

/** The web UI's routes: the two pages, their live feed, static files, the REST API and, when on, `/metrics`. */
export function uiHandler(history: QueryHistory, app: ApplicationInfo, metrics: ProgressMetrics | null): Handler {
  const paths: UiPaths = {
    queriesPage: QUERIES_PAGE,
    statisticsPage: STATISTICS_PAGE,
    queriesApi: `/api/v1/applications/${encodeURIComponent(app.id)}/sql/streaming/queries`,
  };
  const metricsPath = metrics ? metricsRoute(metrics) : () => false;
  return getOnly((path, query, req, res) => {
    if (path === "/" || path === "/StreamingQuery") {
      res.writeHead(302, { location: QUERIES_PAGE }).end();
    } else if (path === QUERIES_PAGE) {
      reply(res, 200, HTML, pageHtml("Streaming Query", "queries", { queries: history.list().map((r) => summarize(r)) }, paths));
    } else if (path === STATISTICS_PAGE || path === STATISTICS_PAGE.slice(0, -1)) {
      const run = history.run(query.get("id") ?? "");
      if (!run) return replyNotFound(res, `Failed to find streaming query ${query.get("id") ?? "(no id given)"}`);
      const data = {
        run: summarize(run),
        plan: run.plan,
        charts: CHARTS,
        points: run.progress.map(chartPoint),
        events: `${EVENTS}?id=${encodeURIComponent(run.runId)}`,
      };
      reply(res, 200, HTML, pageHtml(`Streaming Query ${run.name ?? run.runId}`, "query", data, paths));
    } else if (path === EVENTS) {
      const run = history.run(query.get("id") ?? "");
      if (!run) return replyNotFound(res, `Failed to find streaming query ${query.get("id") ?? "(no id given)"}`);
      // The page's last batch: what came after it is replayed first. Anything else replays every retained batch.
      const after = Number(query.get("after") ?? Number.NaN);
      streamRun(req, res, history, run, Number.isInteger(after) ? after : -1);
    } else if (path.startsWith("/static/")) {
      const asset = staticAsset(path.slice("/static/".length));
      if (asset) reply(res, 200, asset.type, asset.body);
      else replyNotFound(res, `not found: ${path}`);
    } else if (!answerRestApi(path, res, app, history) && !metricsPath(path, res)) {
      replyNotFound(res, `not found: ${path}`);
    }
  });
}

/** The UI is read-only: GET (and HEAD) only, with errors answered rather than thrown into the server. */
function getOnly(route: (path: string, query: URLSearchParams, req: IncomingMessage, res: ServerResponse) => void): Handler {
  return (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("the web UI is read-only: GET only\n");
      return;
    }
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      route(url.pathname, url.searchParams, req, res);
    } catch (e) {
      if (!res.headersSent) reply(res, 500, "text/plain; charset=utf-8", `web UI error: ${(e as Error).message}\n`);
      else res.end();
    }
  };
}
