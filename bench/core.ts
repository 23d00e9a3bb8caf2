/**
 * Core engine benchmark: JSON-lines decode -> filter -> 10-second tumbling window count and sum
 * per page, run as a streaming query (availableNow) over a folder of files, for 0, 1 and 2
 * workers. Reports the median rows/s of several runs and writes bench/results/core.{json,md}.
 *
 *   npm run bench:core                  # 4,000,000 rows, 3 runs per worker count
 *   npm run bench:core -- --rows 1000000 --runs 5 --workers 0,2
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { col, count, Session, sum, window } from "../src/index.js";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!);
const ROWS = Number(args.get("rows") ?? 4_000_000);
const RUNS = Number(args.get("runs") ?? 3);
const FILES = 16;
const WORKERS = (args.get("workers") ?? "0,1,2").split(",").map(Number);

const Event = z.object({
  user: z.string(),
  page: z.string(),
  action: z.enum(["view", "click", "buy"]),
  durationMs: z.int32(),
  price: z.number(),
  time: z.iso.datetime(),
});

function generate(dir: string): number {
  const pages = Array.from({ length: 50 }, (_, i) => `/page/${i}`);
  const actions = ["view", "view", "view", "click", "buy"];
  const start = Date.UTC(2026, 0, 1);
  let bytes = 0;
  const perFile = Math.ceil(ROWS / FILES);
  for (let f = 0; f < FILES; f++) {
    const lines: string[] = [];
    for (let i = 0; i < perFile && f * perFile + i < ROWS; i++) {
      const n = f * perFile + i;
      lines.push(
        JSON.stringify({
          user: `user-${(n * 7919) % 100_000}`,
          page: pages[(n * 31) % pages.length],
          action: actions[n % actions.length],
          durationMs: (n * 13) % 10_000,
          price: ((n * 17) % 10_000) / 100,
          time: new Date(start + n).toISOString(),
        }),
      );
    }
    const text = `${lines.join("\n")}\n`;
    bytes += Buffer.byteLength(text);
    writeFileSync(path.join(dir, `part-${String(f).padStart(5, "0")}.jsonl`), text);
  }
  return bytes;
}

async function runOnce(dir: string, workers: number): Promise<{ seconds: number; rows: number; outputRows: number }> {
  const session = new Session({ workers });
  try {
    // Warm every worker (module loading is paid once per process, not per batch) and the page
    // cache: a static read of the same files runs one task per file.
    await session.read.schema(Event).json(dir).count();
    const started = performance.now();
    const q = session.readStream
      .schema(Event)
      .option("maxPartitionBytes", 8 * 1024 * 1024)
      .json(dir)
      .filter(col("action").equalTo("view"))
      .withWatermark("time", "1 second")
      .groupBy(window(col("time"), "10 seconds"), "page")
      .agg(count().alias("views"), sum(col("durationMs")).alias("totalMs"))
      .writeStream.outputMode("update")
      .foreachBatch(() => undefined)
      .trigger({ availableNow: true })
      .start();
    await q.awaitTermination();
    const seconds = (performance.now() - started) / 1000;
    const rows = q.recentProgress.reduce((n, p) => n + p.numInputRows, 0);
    const outputRows = q.recentProgress.reduce((n, p) => n + p.sink.numOutputRows, 0);
    return { seconds, rows, outputRows };
  } finally {
    await session.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-bench-core-"));
try {
  const bytes = generate(dir);
  console.log(`generated ${ROWS.toLocaleString()} rows, ${(bytes / 1e6).toFixed(0)} MB in ${FILES} files`);
  const samples = new Map<number, number[]>(WORKERS.map((w) => [w, []]));
  // Interleave worker counts (0 1 2 0 1 2 ...) so drift in machine load spreads evenly.
  for (let r = 0; r < RUNS; r++) {
    for (const w of WORKERS) {
      const { seconds, rows, outputRows } = await runOnce(dir, w);
      if (rows !== ROWS) throw new Error(`workers=${w}: read ${rows} rows, expected ${ROWS}`);
      samples.get(w)!.push(rows / seconds);
      console.log(`run ${r + 1} workers=${w}: ${(rows / seconds / 1e6).toFixed(2)} M rows/s (${seconds.toFixed(2)} s, ${outputRows} output rows)`);
    }
  }
  const results = WORKERS.map((w) => ({ workers: w, medianRowsPerSecond: Math.round(median(samples.get(w)!)), samples: samples.get(w)!.map(Math.round) }));
  const base = results[0]!.medianRowsPerSecond;
  const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version };
  const out = { benchmark: "core", date: new Date().toISOString(), rows: ROWS, bytes, files: FILES, runs: RUNS, machine, results };
  const resultsDir = path.join(path.dirname(new URL(import.meta.url).pathname), "results");
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, "core.json"), `${JSON.stringify(out, null, 2)}\n`);
  const table = [
    "# Core benchmark",
    "",
    `JSON-lines decode -> filter -> 10 s tumbling window count and sum per page; ${ROWS.toLocaleString()} rows (${(bytes / 1e6).toFixed(0)} MB, ${FILES} files),`,
    `median of ${RUNS} interleaved runs; ${machine.cpus} cores (${machine.cpuModel}), Node ${machine.node}. Produced by \`npm run bench:core\`.`,
    "",
    "| workers | median rows/s | vs inline | runs (rows/s) |",
    "|---:|---:|---:|---|",
    ...results.map((r) => `| ${r.workers} | ${r.medianRowsPerSecond.toLocaleString("en-US")} | ${(r.medianRowsPerSecond / base).toFixed(2)}x | ${r.samples.map((s) => s.toLocaleString("en-US")).join(", ")} |`),
    "",
  ].join("\n");
  writeFileSync(path.join(resultsDir, "core.md"), table);
  console.log(`\n${table}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
