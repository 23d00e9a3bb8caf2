/**
 * `npm start`: a streaming query over the bundled click-stream sample, no Kafka needed.
 *
 * JSON-lines files arrive one per trigger -> 1-minute event-time windows per page with a
 * 1-minute watermark -> counts and average view time, printed by the console sink in append
 * mode (each window once, when final), with one progress line per batch. It ends by itself:
 * the trigger is availableNow, so the query stops once every file is processed.
 */
import * as path from "node:path";
import { z } from "zod";
import { avg, col, count, Session, window, type StreamingQueryProgress } from "../src/index.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const dir = process.argv[2] ?? path.join(here, "..", "fixtures", "clickstream");

const Click = z.object({
  user: z.string(),
  page: z.string(),
  action: z.enum(["view", "click"]),
  durationMs: z.int32(),
  time: z.iso.datetime(),
});

const session = new Session({ workers: 2 });

const clicks = session.readStream
  .schema(Click)
  .option("maxFilesPerTrigger", 1)
  .option("mode", "DROPMALFORMED")
  .json(dir);

const perPage = clicks
  .filter(col("action").equalTo("view"))
  .withWatermark("time", "1 minute")
  .groupBy(window(col("time"), "1 minute"), "page")
  .agg(count().alias("views"), avg(col("durationMs")).alias("avgDurationMs"));

session.streams.addListener({
  onQueryProgress({ progress: p }: { progress: StreamingQueryProgress }) {
    const malformed = p.sources.reduce((n, s) => n + Number(s.metrics.numMalformedRecords ?? 0), 0);
    const state = p.stateOperators[0];
    console.log(
      `progress: batch ${p.batchId}  input ${p.numInputRows} rows (${Math.round(p.processedRowsPerSecond)} rows/s)` +
        `  watermark ${p.eventTime.watermark ?? "-"}  state ${state?.numRowsTotal ?? 0} rows` +
        `  late dropped ${state?.numRowsDroppedByWatermark ?? 0}  malformed ${malformed}  output ${p.sink.numOutputRows}\n`,
    );
  },
});

const query = perPage.writeStream
  .outputMode("append")
  .format("console")
  .option("numRows", 10)
  .option("truncate", false)
  .trigger({ availableNow: true })
  .queryName("page_views")
  .start();

try {
  await query.awaitTermination();
  console.log(`done: ${query.recentProgress.length} batches, ${query.recentProgress.reduce((n, p) => n + p.numInputRows, 0)} input rows`);
} finally {
  await session.stop();
}
