import type { ServerResponse } from "node:http";
import { summarize, type QueryHistory } from "./query-history.js";
import { replyJson, replyNotFound } from "./http-replies.js";

/** The session as Spark's REST API names an application: `/api/v1/applications/<appId>`. */
export interface ApplicationInfo {
  readonly id: string;
  readonly name: string;
  readonly startTime: string;
}

/**
 * Spark's REST API style for streaming queries (Spark has REST endpoints for DStreams only):
 *
 *   GET /api/v1/applications                                          the one application, this session
 *   GET /api/v1/applications/<appId>/sql/streaming/queries            every run kept, active first: summaries
 *   GET /api/v1/applications/<appId>/sql/streaming/queries/<runId>    one run: summary, plan, lastProgress
 *   GET /api/v1/applications/<appId>/sql/streaming/queries/<runId>/progress   its retained StreamingQueryProgress reports, oldest first
 *
 * Returns whether the path was the API's.
 */
export function answerRestApi(path: string, res: ServerResponse, app: ApplicationInfo, history: QueryHistory): boolean {
  if (path === "/api/v1/applications" || path === "/api/v1/applications/") {
    replyJson(res, [{ id: app.id, name: app.name, attempts: [{ startTime: app.startTime, completed: false }] }]);
    return true;
  }
  const m = /^\/api\/v1\/applications\/([^/]+)(\/.*)?$/.exec(path);
  if (!m) return false;
  const [, appId, rest = ""] = m;
  if (decodeURIComponent(appId!) !== app.id) {
    replyNotFound(res, `unknown app: ${decodeURIComponent(appId!)} (this session is ${app.id})`);
    return true;
  }
  const q = /^\/sql\/streaming\/queries(?:\/([^/]+)(\/progress)?)?\/?$/.exec(rest);
  if (!q) {
    replyNotFound(res, `no such endpoint: ${path}`);
    return true;
  }
  const [, runId, progress] = q;
  if (runId === undefined) {
    replyJson(res, history.list().map((r) => summarize(r)));
    return true;
  }
  const run = history.run(decodeURIComponent(runId));
  if (!run) replyNotFound(res, `unknown query run: ${decodeURIComponent(runId)}`);
  else if (progress) replyJson(res, run.progress);
  else replyJson(res, { ...summarize(run), plan: run.plan, lastProgress: run.progress.at(-1) ?? null });
  return true;
}
