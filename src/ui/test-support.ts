import type { Browser } from "playwright-core";
import { Session } from "../api/session.js";
import type { SessionOptions } from "../config/options.js";
import { col, count, window } from "../api/functions.js";
import { z } from "zod";
import { tempDir } from "../testing/temp-dir.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { MemoryStream } from "../api/memory-stream.js";
import type { StreamingQueryProgress } from "../runtime/progress.js";

export const Click = z.object({ page: z.string(), time: z.date() });

/** Debian's chromium, driven by playwright-core (never a downloaded browser), headless and quiet. */
export async function launchChromium(): Promise<Browser> {
  // Loaded here, so that the unit tests sharing this file never load the browser driver.
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A session with the UI on any free port, stopped (and its checkpoints removed) after `fn`. */
export async function withUiSession<T>(options: SessionOptions, fn: (s: Session) => Promise<T>): Promise<T> {
  const dir = tempDir("sluice-ui-");
  const session = new Session({ workers: 0, checkpointLocation: dir.dir, ...options });
  try {
    await session.webReady();
    return await fn(session);
  } finally {
    await session.stop();
    dir.remove();
  }
}

/** Clicks counted per page and minute, with a one-minute watermark: state, a watermark and event times in every report. */
export function startClickCounts(session: Session, name: string): { clicks: MemoryStream<any>; query: StreamingQuery } {
  const clicks = session.memoryStream(Click);
  const query = clicks
    .toDF()
    .withWatermark("time", "1 minute")
    .groupBy(window(col("time"), "1 minute"), "page")
    .agg(count().alias("n"))
    .writeStream.outputMode("update")
    .format("memory")
    .queryName(name)
    .start();
  return { clicks, query };
}

/** The body of a GET, as JSON; fails the test on a status other than 200. */
export async function getJson<T = any>(url: string): Promise<T> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A value as it comes back from JSON (what the endpoints return for a progress report). */
export function viaJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** A progress report of a Kafka query: its offsets are `{ topic: { partition: offset } }`. */
export const kafkaProgress = (endOffset: unknown, latestOffset: unknown): StreamingQueryProgress => ({
  id: "q",
  runId: "r",
  name: "orders",
  timestamp: "2026-01-01T10:00:00.000Z",
  batchId: 3,
  batchDuration: 10,
  numInputRows: 5,
  inputRowsPerSecond: 1,
  processedRowsPerSecond: 2,
  durationMs: { triggerExecution: 10 },
  eventTime: {},
  stateOperators: [],
  sources: [
    {
      description: "KafkaV2[Subscribe[orders]]",
      startOffset: null,
      endOffset,
      latestOffset,
      numInputRows: 5,
      inputRowsPerSecond: 1,
      processedRowsPerSecond: 2,
      metrics: { avgOffsetsBehindLatest: "3.0", maxOffsetsBehindLatest: "4", note: "n/a" },
    },
  ],
  sink: { description: "MemorySink[orders]", numOutputRows: 5, metrics: {} },
  observedMetrics: { checks: { rows: 5, label: "x" } },
});
