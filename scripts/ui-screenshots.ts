/**
 * The README's pictures of the web UI: docs/ui-queries.png (the queries page) and docs/ui-query.png
 * (a running query's statistics). Runs the demo's windowed count over the bundled click stream,
 * its files arriving a few at a time, beside a finished query and a failed one, and photographs
 * the pages in Debian's chromium (driven by playwright-core):
 *
 *   npx tsx scripts/ui-screenshots.ts
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { avg, col, count, Session, window } from "../src/index.js";
import { launchChromium } from "../src/ui/test-support.js";

const root = path.join(path.dirname(new URL(import.meta.url).pathname), "..");
const fixtures = path.join(root, "fixtures", "clickstream");
const incoming = mkdtempSync(path.join(os.tmpdir(), "sluice-ui-shots-"));

const Click = z.object({
  user: z.string(),
  page: z.string(),
  action: z.enum(["view", "click"]),
  durationMs: z.int32(),
  time: z.iso.datetime(),
});

/**
 * The sample's clicks in files of 150 lines, so that a file per trigger makes many batches, their
 * event times moved to end about when the run does (the watermark gap is measured from the clock).
 */
const sample = readdirSync(fixtures)
  .sort()
  .flatMap((f) => readFileSync(path.join(fixtures, f), "utf8").split("\n").filter(Boolean));
/** The click's event time, or NaN for the sample's deliberately malformed lines (they stay as they are). */
const timeOf = (line: string): number => {
  try {
    return Date.parse((JSON.parse(line) as { time: string }).time);
  } catch {
    return Number.NaN;
  }
};
const shift = Date.now() + 20_000 - Math.max(...sample.map(timeOf).filter(Number.isFinite));
const lines = sample.map((l) => (Number.isFinite(timeOf(l)) ? JSON.stringify({ ...JSON.parse(l), time: new Date(timeOf(l) + shift).toISOString() }) : l));
const chunks: string[][] = [];
for (let i = 0; i < lines.length; i += 150) chunks.push(lines.slice(i, i + 150));
let written = 0;
const writeNext = (n: number) => {
  for (const chunk of chunks.slice(written, written + n)) {
    writeFileSync(path.join(incoming, `part-${String(written).padStart(5, "0")}.jsonl`), chunk.join("\n") + "\n");
    written++;
  }
};

const session = new Session({ workers: 2, checkpointLocation: path.join(incoming, "_checkpoints"), ui: { port: 0 } });
try {
  await session.webReady();
  const clicks = () => session.readStream.schema(Click).option("maxFilesPerTrigger", 1).option("pathGlobFilter", "*.jsonl").json(incoming);

  // A finished query: totals per action over what has arrived so far.
  writeNext(3);
  const totals = clicks().groupBy("action").count().writeStream.outputMode("complete").format("memory").queryName("action_totals").trigger({ availableNow: true }).start();
  await totals.awaitTermination();

  // A failed one: its sink refuses the first batch.
  const failing = clicks()
    .writeStream.queryName("to_warehouse")
    .foreachBatch(() => {
      throw new Error("connection to warehouse.internal:5432 refused");
    })
    .start();
  await failing.awaitTermination().catch(() => undefined);

  // The one to watch: views per page and minute, with a one-minute watermark, a file per batch.
  const views = clicks()
    .filter(col("action").equalTo("view"))
    .withWatermark("time", "1 minute")
    .groupBy(window(col("time"), "1 minute"), "page")
    .agg(count().alias("views"), avg(col("durationMs")).alias("avgDurationMs"))
    .writeStream.outputMode("append")
    .format("memory")
    .queryName("page_views")
    .trigger({ processingTime: "400 milliseconds" })
    .start();
  // Files arrive unevenly: input rates and durations vary as they would.
  for (let round = 0; written < chunks.length && round < 30; round++) {
    writeNext(1 + (round % 3 === 0 ? 1 : 0));
    await new Promise((r) => setTimeout(r, 300 + (round % 4) * 120));
  }
  await views.processAllAvailable();

  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    mkdirSync(path.join(root, "docs"), { recursive: true });
    await page.goto(`${session.uiWebUrl}/StreamingQuery/`);
    await page.waitForSelector("#active-queries");
    await page.screenshot({ path: path.join(root, "docs", "ui-queries.png"), fullPage: true });
    await page.goto(`${session.uiWebUrl}/StreamingQuery/statistics/?id=${views.runId}`);
    await page.waitForSelector('[data-chart="input-rate"]:not([hidden])');
    await page.screenshot({ path: path.join(root, "docs", "ui-query.png"), fullPage: true });
  } finally {
    await browser.close();
  }
  console.log(`${views.recentProgress.length} batches of page_views; saved docs/ui-queries.png and docs/ui-query.png`);
  await views.stop();
} finally {
  await session.stop();
  rmSync(incoming, { recursive: true, force: true });
}
