/**
 * The query of "From laptop to cluster" (README): page views per page in 1-minute event-time windows
 * with a 1-minute watermark, over JSON-lines click files. One function, given a session: embedded or
 * remote, the query is the same code.
 */
import { z } from "zod";
import { avg, col, count, type Session, window } from "../../src/index.js";

export const Click = z.object({
  user: z.string(),
  page: z.string(),
  action: z.enum(["view", "click"]),
  durationMs: z.int32(),
  time: z.iso.datetime(),
});

export function pageViews(session: Session, clickFolder: string) {
  return session.readStream
    .schema(Click)
    .option("maxFilesPerTrigger", 1)
    .json(clickFolder)
    .filter(col("action").equalTo("view"))
    .withWatermark("time", "1 minute")
    .groupBy(window(col("time"), "1 minute"), "page")
    .agg(count().alias("views"), avg(col("durationMs")).alias("avgDurationMs"));
}

/** Runs the query to the end of the files (availableNow) into a memory table and returns its rows, by window and page. */
export async function finalWindows(session: Session, clickFolder: string, checkpoint: string) {
  const query = pageViews(session, clickFolder)
    .writeStream.outputMode("append")
    .format("memory")
    .queryName("page_views")
    .option("checkpointLocation", checkpoint)
    .trigger({ availableNow: true })
    .start();
  await query.awaitTermination();
  const rows = await session.table<ReturnType<typeof pageViews>["__schema"] & {}>("page_views").collect();
  return rows
    .map((r) => ({ start: r.window.start.toISOString(), page: r.page, views: r.views, avgDurationMs: r.avgDurationMs }))
    .sort((a, b) => a.start.localeCompare(b.start) || a.page.localeCompare(b.page));
}
