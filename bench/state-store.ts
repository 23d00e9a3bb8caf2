/**
 * State store benchmark: the durable state of W3 (1,000,000 keys in a 10 s tumbling window, a
 * count and a sum per key) committed through FileStateStoreProvider, batch after batch, with
 * batches that update 10%, 50%, 63.2% (a W3 micro-batch) or 100% of the keys. Per commit: the delta (its encoding, the
 * whole commit and the file's size), the snapshot maintenance writes every
 * minDeltasForSnapshot (10) versions, and a recovery: a new provider loading snapshot + 9 deltas.
 * Medians of interleaved runs (10% 50% 63.2% 100% 10% ...), written to
 * bench/results/state-store.{json,md}.
 *
 *   npm run bench:state                                   # 1,000,000 keys, 3 runs
 *   npm run bench:state -- --keys 200000 --runs 1 --fractions 0.1,1
 *
 * The state is built with the same layout, key encoding and value columns the W3 aggregation
 * keeps (`aggregateLayout`), and updated the way `GroupMerger` updates it (columns in place,
 * rows marked updated), so the files are the ones a W3 query writes.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { utf8FromStrings } from "../src/batch/batch.js";
import { viewOf, type ColumnView } from "../src/kernels/hash-table-columns.js";
import { KeyEncoder } from "../src/kernels/hash-table-keys.js";
import { aggregateLayout } from "../src/operators/aggregate-layout.js";
import { aggregateSpec, field } from "../src/operators/test-support.js";
import { FileStateStoreProvider } from "../src/state/file-provider.js";
import { encodeStateFile } from "../src/state/state-file.js";
import type { StateTable } from "../src/state/state-table.js";
import { median } from "./harness/stats.js";
import { BASE_MS } from "./harness/workloads.js";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!);
const KEYS = Number(args.get("keys") ?? 1_000_000);
const RUNS = Number(args.get("runs") ?? 3);
/** 0.632: what one micro-batch of the W3 job updates (1,000,000 records, its maxOffsetsPerTrigger, over 1,000,000 uniform keys touch 1 - 1/e of them). */
const W3_BATCH_FRACTION = 0.632;
const FRACTIONS = (args.get("fractions") ?? `0.1,0.5,${W3_BATCH_FRACTION},1`).split(",").map(Number);
const MIN_DELTAS = 10;
/** Versions per run: the full first one, then updates; snapshots at 10 and 20, recovery at 19 (snapshot 10 + deltas 11..19). */
const VERSIONS = 2 * MIN_DELTAS;
const RECOVER_AT = 2 * MIN_DELTAS - 1;
const KIND = "stateStoreSave";
const ROOT = path.dirname(path.dirname(new URL(import.meta.url).pathname));

/** W3: groupBy(window(timestamp, "10 seconds"), key).agg(count, sum(value)). */
const spec = aggregateSpec({
  keys: [field("key", "string")],
  window: { kind: "tumbling", sizeMs: 10_000 },
  aggs: [
    { fn: "count", input: -1, name: "count" },
    { fn: "sum", input: 1, name: "sum", type: "int64" },
  ],
  eventTimeKey: "window",
});
const layout = aggregateLayout(spec);
const schema = layout.stateSchema;
const column = (name: string) => schema.findIndex((c) => c.name === name);
const ROWS = column("#rows");
const EVENT_TIME = column("#eventTime");
const COUNT = column("count#count");
const SUM = column("sum#sum");
const SUMMED = column("sum#count");

/** Inserts the W3 keys ("k0" .. in window [BASE_MS, BASE_MS + 10 s)) with one record each. */
function fill(table: StateTable): void {
  const chunk = 100_000;
  const encoder = new KeyEncoder();
  for (let from = 0; from < KEYS; from += chunk) {
    const n = Math.min(chunk, KEYS - from);
    const views: Record<number, ColumnView> = {
      0: { kind: "window", starts: new Float64Array(n).fill(BASE_MS), ends: new Float64Array(n).fill(BASE_MS + 10_000) },
      1: viewOf(utf8FromStrings(Array.from({ length: n }, (_, i) => `k${from + i}`)), "string"),
    };
    const keys = encoder.encode(
      layout.stateKeyOrder.map((k) => ({ view: views[k]!, rows: null })),
      n,
    );
    const slots = new Int32Array(n);
    table.upsert(keys, slots, null);
    for (const slot of slots) {
      table.markUpdated(slot);
      table.f64(EVENT_TIME).set(slot, BASE_MS + 10_000);
      for (const c of [ROWS, COUNT, SUMMED]) table.f64(c).set(slot, 1);
      table.f64(SUM).set(slot, slot % 1_000);
    }
  }
}

/** Version v's batch: one more record (value v) for `fraction` of the keys, spread over the table. */
function update(table: StateTable, fraction: number, v: number): number {
  const step = 1 / fraction;
  let touched = 0;
  const rows = table.f64(ROWS).values;
  const count = table.f64(COUNT).values;
  const sum = table.f64(SUM).values;
  const summed = table.f64(SUMMED).values;
  for (let x = (v * 7919) % step; x < KEYS; x += step) {
    const slot = Math.floor(x);
    rows[slot]! += 1;
    count[slot]! += 1;
    sum[slot]! += v;
    summed[slot]! += 1;
    table.markUpdated(slot);
    touched++;
  }
  return touched;
}

interface RunResult {
  fraction: number;
  rowsPerDelta: number;
  deltaEncodeMs: number;
  commitMs: number;
  deltaBytes: number;
  snapshotEncodeMs: number;
  snapshotWriteMs: number;
  snapshotBytes: number;
  recoverMs: number;
  firstCommitMs: number;
}

async function runOnce(fraction: number): Promise<RunResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sluice-bench-state-"));
  const shard = path.join(dir, "state", "0", "0");
  try {
    const provider = new FileStateStoreProvider(dir, { minDeltasForSnapshot: MIN_DELTAS });
    const store = provider.load(0, 0);
    const table = store.open(schema, KIND);
    fill(table);
    let start = performance.now();
    store.commit(1);
    const firstCommitMs = performance.now() - start;
    await provider.flush();
    const encode: number[] = [];
    const commit: number[] = [];
    const bytes: number[] = [];
    const rowsPerDelta: number[] = [];
    const snapshotEncode: number[] = [];
    const snapshotWrite: number[] = [];
    const snapshotBytes: number[] = [];
    let recoverMs = NaN;
    for (let v = 2; v <= VERSIONS; v++) {
      rowsPerDelta.push(update(table, fraction, v));
      // The delta the commit writes, encoded once more on its own to time the encoding apart from the I/O.
      start = performance.now();
      encodeStateFile({ kind: "delta", version: v, base: v - 1, operatorKind: KIND, schema }, table, table.removedSlots(), table.updatedSlots(), "copied");
      encode.push(performance.now() - start);
      start = performance.now();
      // The commit encodes the delta and writes it asynchronously: it is committed once durable.
      store.commit(v);
      await provider.durable();
      commit.push(performance.now() - start);
      bytes.push(statSync(path.join(shard, `${v}.delta`)).size);
      if (v % MIN_DELTAS === 0) {
        start = performance.now();
        encodeStateFile({ kind: "snapshot", version: v, base: null, operatorKind: KIND, schema }, table, new Int32Array(0), table.liveSlots(), "shared");
        snapshotEncode.push(performance.now() - start);
        start = performance.now();
        await provider.flush();
        snapshotWrite.push(performance.now() - start);
        snapshotBytes.push(statSync(path.join(shard, `${v}.snapshot`)).size);
      } else await provider.flush();
      if (v === RECOVER_AT) {
        start = performance.now();
        const recovered = new FileStateStoreProvider(dir).load(0, v).open(schema, KIND);
        recoverMs = performance.now() - start;
        if (recovered.size !== KEYS) throw new Error(`recovered ${recovered.size} rows, expected ${KEYS}`);
      }
    }
    await provider.close();
    return {
      fraction,
      rowsPerDelta: median(rowsPerDelta),
      deltaEncodeMs: median(encode),
      commitMs: median(commit),
      deltaBytes: median(bytes),
      snapshotEncodeMs: median(snapshotEncode),
      snapshotWriteMs: median(snapshotWrite),
      snapshotBytes: median(snapshotBytes),
      recoverMs,
      firstCommitMs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const loadBefore = os.loadavg()[0]!;
const runs: RunResult[] = [];
for (let r = 0; r < RUNS; r++) {
  for (const fraction of FRACTIONS) {
    const result = await runOnce(fraction);
    runs.push(result);
    console.log(`run ${r + 1}, ${fraction * 100}% of keys: commit ${result.commitMs.toFixed(1)} ms (encode ${result.deltaEncodeMs.toFixed(1)} ms, ${(result.deltaBytes / 1e6).toFixed(1)} MB), snapshot ${result.snapshotWriteMs.toFixed(0)} ms, recovery ${result.recoverMs.toFixed(0)} ms`);
  }
}

/** W3's Sluice throughput in the committed drain results: the batch processing rate to compare commits with. */
const w3 = JSON.parse(readFileSync(path.join(ROOT, "bench/results/W3.json"), "utf8")) as { summary: { system: string; recordsPerSecond: number }[] };
const w3RecordsPerSecond = w3.summary.find((s) => s.system === "sluice")!.recordsPerSecond;
const results = FRACTIONS.map((fraction) => {
  const mine = runs.filter((r) => r.fraction === fraction);
  const pick = (k: keyof RunResult) => median(mine.map((r) => r[k]));
  const rows = pick("rowsPerDelta");
  // A batch that updates `rows` keys read at least `rows` records; a W3 micro-batch reads 1,000,000.
  const records = fraction === W3_BATCH_FRACTION && KEYS === 1_000_000 ? 1_000_000 : rows;
  const processingMs = (records / w3RecordsPerSecond) * 1000;
  return {
    fraction,
    rowsPerDelta: rows,
    deltaEncodeMs: pick("deltaEncodeMs"),
    commitMs: pick("commitMs"),
    deltaBytes: pick("deltaBytes"),
    snapshotEncodeMs: pick("snapshotEncodeMs"),
    snapshotWriteMs: pick("snapshotWriteMs"),
    snapshotBytes: pick("snapshotBytes"),
    recoverMs: pick("recoverMs"),
    firstCommitMs: pick("firstCommitMs"),
    minProcessingMs: processingMs,
    commitShareOfProcessing: pick("commitMs") / processingMs,
  };
});

const commit = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version };
// Other work on the machine slows every figure: the 1-minute load average when the runs started and ended.
const loadAverage = [loadBefore, os.loadavg()[0]!].map((l) => Math.round(l * 10) / 10);
const out = { benchmark: "state-store", date: new Date().toISOString(), sluiceCommit: commit, keys: KEYS, runs: RUNS, minDeltasForSnapshot: MIN_DELTAS, w3RecordsPerSecond, machine, loadAverage, results, samples: runs };
const resultsDir = path.join(ROOT, "bench", "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, "state-store.json"), `${JSON.stringify(out, null, 2)}\n`);

const ms = (x: number) => x.toFixed(x < 10 ? 1 : 0);
const mb = (x: number) => (x / 1e6).toFixed(1);
const table = [
  "# State store benchmark",
  "",
  `W3's state: ${KEYS.toLocaleString("en-US")} keys (a string key and a 10 s window), count and sum per key, committed through`,
  `FileStateStoreProvider (minDeltasForSnapshot ${MIN_DELTAS}) to the local disk. Batches update a fraction of the keys; medians of`,
  `${RUNS} interleaved runs of ${VERSIONS} versions each; ${machine.cpus} cores (${machine.cpuModel}), Node ${machine.node}, Sluice commit ${commit};`,
  `1-minute load average ${loadAverage.join(" at the start, ")} at the end.`,
  "Produced by `npm run bench:state`.",
  "",
  "| keys updated | rows per delta | commit ms | of which delta encoding ms | delta MB | snapshot: encoding ms (on the event loop) | snapshot: whole write ms (async) | snapshot MB | recovery ms (snapshot + 9 deltas) | batch processing ms at W3's rate (at least) | commit ÷ processing |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.fraction * 100}%${r.fraction === W3_BATCH_FRACTION ? " (a W3 micro-batch)" : ""} | ${r.rowsPerDelta.toLocaleString("en-US")} | ${ms(r.commitMs)} | ${ms(r.deltaEncodeMs)} | ${mb(r.deltaBytes)} | ${ms(r.snapshotEncodeMs)} | ${ms(r.snapshotWriteMs)} | ${mb(r.snapshotBytes)} | ${ms(r.recoverMs)} | ${ms(r.minProcessingMs)} | ${(r.commitShareOfProcessing * 100).toFixed(1)}% |`,
  ),
  "",
  `*commit* is \`StateStore.commit\` on the batch's path: encoding and writing the delta (temp file, fsync, link, folder fsync),`,
  "compaction, and a copy of the table where the provider keeps one (a snapshot of the version is due, or the commit's few changes keep",
  "an earlier copy current). Snapshots and deletions run afterwards in",
  "maintenance, off the commit path. *Batch processing* is the time a batch that updates that many keys takes at W3's",
  `Sluice drain rate (${Math.round(w3RecordsPerSecond).toLocaleString("en-US")} records/s, bench/results/W3.json): at least one record per updated key, and for the`,
  `W3 micro-batch its 1,000,000 records (the job's maxOffsetsPerTrigger; over 1,000,000 uniform keys they update 1 − 1/e of them).`,
  "",
].join("\n");
writeFileSync(path.join(resultsDir, "state-store.md"), table);
console.log(`\n${table}`);
