import type { IncomingMessage, ServerResponse } from "node:http";
import { chartPoint } from "./chart-points.js";
import { summarize, type QueryHistory, type QueryRun } from "./query-history.js";

/**
 * The query page's live feed, as Server-Sent Events: first the retained batches after `after` (the
 * page's last one), then an `event: point` per new progress report, and `event: terminated` with
 * the run's summary when it ends. One JSON text per report, written to a socket: cheap enough to
 * run inside the batch loop's listener call.
 */
export function streamRun(req: IncomingMessage, res: ServerResponse, history: QueryHistory, run: QueryRun, after: number): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" });
  // Browsers reconnect after this many milliseconds when the connection drops.
  res.write("retry: 2000\n\n");
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  for (const p of run.progress) if (p.batchId > after) send("point", chartPoint(p));
  if (run.status !== "RUNNING") {
    send("terminated", summarize(run));
    res.end();
    return;
  }
  const stop = history.watch(run.runId, (update) => {
    if (update.kind === "progress") {
      send("point", chartPoint(update.progress));
    } else {
      send("terminated", summarize(update.run));
      res.end();
    }
  });
  req.on("close", stop);
}
