import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import type * as arrow from "apache-arrow";
import { boolColumn, type Batch, field, float64Column, int32Column, int64FromNumbers, makeBatch, timestampColumn, utf8Column, windowColumn } from "../../src/batch/batch.js";
import { nullProps } from "../../src/kernels/bits.js";
import { encodeArrowFile } from "../../src/sinks/file/encode-arrow-file.js";
import { encodeJsonLines } from "../../src/sinks/file/encode-json-lines.js";
import { encodeParquet } from "../../src/sinks/file/encode-parquet.js";

/**
 * Micro-benchmark (`npx tsx bench/micro/parquet-write.ts`): writing one 1M-row batch of every Sluice
 * column type (string, float64, int32, int64, boolean, timestamp with 10% nulls, window) to Parquet
 * with the two maintained pure-JS / wasm writers, snappy-compressed, timestamps as UTC-adjusted millis:
 *
 * - hyparquet-writer: takes one JavaScript array per column (values, `null` for nulls), so the batch is
 *   first turned into arrays (strings as UTF-8 byte views, 64-bit values as BigInt, windows as objects);
 * - parquet-wasm: arrow-rs compiled to wasm, takes Arrow IPC bytes, so the batch goes through
 *   `tableToIPC` and a copy into wasm memory (the file sink's `encodeParquet`).
 *
 * The time is the whole path from a Sluice batch to the file's bytes, median of several runs; the
 * sink's Arrow IPC and JSON-lines encoders are measured on the same batch for comparison.
 * hyparquet-writer is not a dependency of Sluice: install it for a run with
 * `npm install --no-save hyparquet-writer@0.17.0`.
 */

const ROWS = 1_000_000;
const RUNS = 5;
const T0 = Date.UTC(2026, 0, 1);

function sampleBatch(): Batch {
  const users = Array.from({ length: 1000 }, (_, k) => new TextEncoder().encode(`user-${k.toString(36).padStart(4, "0")}@example.com`));
  const offsets = new Int32Array(ROWS + 1);
  let bytes = 0;
  for (let i = 0; i < ROWS; i++) offsets[i + 1] = bytes += users[(i * 7919) % 1000]!.length;
  const text = new Uint8Array(bytes);
  for (let i = 0; i < ROWS; i++) text.set(users[(i * 7919) % 1000]!, offsets[i]);
  const price = new Float64Array(ROWS);
  const qty = new Int32Array(ROWS);
  const id = new Float64Array(ROWS);
  const flag = new Uint8Array(ROWS);
  const time = new Float64Array(ROWS);
  const valid = new Uint8Array(ROWS);
  const start = new Float64Array(ROWS);
  const end = new Float64Array(ROWS);
  for (let i = 0; i < ROWS; i++) {
    price[i] = (i % 10_000) / 100 + 0.01;
    qty[i] = i % 97;
    id[i] = 2 ** 40 + i;
    flag[i] = i % 3 === 0 ? 1 : 0;
    time[i] = T0 + i * 37;
    valid[i] = i % 10 === 0 ? 0 : 1;
    start[i] = T0 + Math.floor((i * 37) / 60_000) * 60_000;
    end[i] = start[i]! + 60_000;
  }
  const { nullBitmap, nullCount } = nullProps(valid, ROWS);
  return makeBatch(
    [field("user", "string"), field("price", "float64"), field("qty", "int32"), field("id", "int64"), field("flag", "boolean"), field("time", "timestamp"), field("window", "window", false)],
    [
      utf8Column(offsets, text),
      float64Column(price),
      int32Column(qty),
      int64FromNumbers(id),
      boolColumn(flag),
      timestampColumn(time, nullBitmap, nullCount),
      windowColumn(start, end),
    ],
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

function measure(name: string, write: (b: Batch) => Uint8Array, batch: Batch): { name: string; ms: number; bytes: number } {
  let bytes = 0;
  const times: number[] = [];
  write(batch); // warm up
  for (let k = 0; k < RUNS; k++) {
    const t = performance.now();
    bytes = write(batch).byteLength;
    times.push(performance.now() - t);
  }
  return { name, ms: median(times), bytes };
}

// ---- hyparquet-writer: one JS array per column ----

/** Neither candidate that lost is a dependency: load it by name so the script type-checks without it. */
async function optional(name: string): Promise<any> {
  try {
    return await import(name);
  } catch {
    console.log(`${name} is not installed: npm install --no-save ${name}@${VERSIONS[name]}`);
    return null;
  }
}

const VERSIONS: Record<string, string> = { "hyparquet-writer": "0.17.0" };

async function hyparquetWriter(): Promise<((b: Batch) => Uint8Array) | null> {
  const hw = await optional("hyparquet-writer");
  if (!hw) return null;
  const { parquetWriteBuffer } = hw;
  const ts = { type: "INT64", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" } } as const;
  const schema = [
    { name: "root", num_children: 7 },
    { name: "user", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    { name: "price", type: "DOUBLE", repetition_type: "OPTIONAL" },
    { name: "qty", type: "INT32", repetition_type: "OPTIONAL" },
    { name: "id", type: "INT64", repetition_type: "OPTIONAL" },
    { name: "flag", type: "BOOLEAN", repetition_type: "OPTIONAL" },
    { name: "time", ...ts, repetition_type: "OPTIONAL" },
    { name: "window", repetition_type: "REQUIRED", num_children: 2 },
    { name: "start", ...ts, repetition_type: "REQUIRED" },
    { name: "end", ...ts, repetition_type: "REQUIRED" },
  ];
  return (b) => {
    const [user, price, qty, id, flag, time, win] = b.columns as arrow.Data[];
    const n = b.numRows;
    const offsets = user!.valueOffsets;
    const userBytes = user!.values as Uint8Array;
    const users = Array.from({ length: n }, (_, i) => userBytes.subarray(offsets[i]!, offsets[i + 1]!));
    const flags = Array.from({ length: n }, (_, i) => ((flag!.values[i >> 3]! >> (i & 7)) & 1) === 1);
    const times: (bigint | null)[] = Array.from(time!.values as BigInt64Array);
    for (let i = 0; i < n; i++) if (((time!.nullBitmap![i >> 3]! >> (i & 7)) & 1) === 0) times[i] = null;
    const starts = win!.children[0]!.values as BigInt64Array;
    const ends = win!.children[1]!.values as BigInt64Array;
    const windows = Array.from({ length: n }, (_, i) => ({ start: starts[i]!, end: ends[i]! }));
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "user", data: users },
        { name: "price", data: price!.values as Float64Array },
        { name: "qty", data: qty!.values as Int32Array },
        { name: "id", data: id!.values as BigInt64Array },
        { name: "flag", data: flags },
        { name: "time", data: times },
        { name: "window", data: windows },
      ],
      schema: schema as never,
      rowGroupSize: n,
    });
    return new Uint8Array(buffer);
  };
}

const batch = sampleBatch();
const results = [];
const js = await hyparquetWriter();
if (js) results.push(measure("hyparquet-writer 0.17.0", js, batch));
results.push(measure("parquet-wasm 0.8.0", encodeParquet, batch));
results.push(measure("(Arrow IPC file)", encodeArrowFile, batch));
results.push(measure("(JSON lines)", encodeJsonLines, batch));
console.log(`1M rows (string, float64, int32, int64, boolean, timestamp with 10% nulls, window), snappy, median of ${RUNS}:`);
for (const r of results) {
  console.log(`  ${r.name.padEnd(24)} ${r.ms.toFixed(0).padStart(6)} ms  ${((ROWS / r.ms) * 1000 / 1e6).toFixed(2)} M rows/s  ${(r.bytes / 1e6).toFixed(2)} MB`);
}
console.log("install size (node_modules, with dependencies not already in Sluice):");
for (const pkgs of [["hyparquet-writer", "hyparquet"], ["parquet-wasm"]]) {
  const sizes = pkgs.map((p) => (existsSync(`node_modules/${p}`) ? execFileSync("du", ["-sk", `node_modules/${p}`], { encoding: "utf8" }).split("\t")[0] : null));
  if (sizes.every((k) => k !== null)) console.log(`  ${pkgs.join(" + ").padEnd(30)} ${(sizes.reduce((a, k) => a + Number(k), 0) / 1024).toFixed(1)} MB`);
}
