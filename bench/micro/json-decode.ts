/**
 * Micro-benchmark: JSON lines -> columns. Generates ~1M click-stream-like lines in memory (~126
 * bytes: the five schema fields string, number, int, ISO timestamp and boolean, plus one string
 * field outside the schema) and reports lines/s, the median of five interleaved runs, for
 * `decodeJsonLines`, for `decodeJsonValues` on the same records held as a string column (back to
 * back, framed by offsets, as Kafka record values), for a `JSON.parse`-per-line baseline that
 * extracts the same five fields into typed arrays (Date.parse for the timestamp), and for
 * `JSON.parse` alone.
 *
 * Then the bench's ad events (W1 and W4's input, ~300 bytes, seven string fields) as Kafka values,
 * decoded by `decodeJsonValues` with the schemas those queries leave after column pruning: W4's
 * three fields, W1's two (`ad_id`, `event_type`), and all seven for comparison. The fewer fields
 * read, the more of each record is skipped.
 *
 *   npx tsx bench/micro/json-decode.ts [lines]
 */
import { decodeJsonLines } from "../../src/formats/json-lines.js";
import { decodeJsonValues } from "../../src/formats/json-values.js";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Fields } from "../../src/types/dtype.js";
import { SPECS } from "../harness/workloads.js";

const LINES = Number(process.argv[2] ?? 1_000_000);
/**
 * Each run starts from a collected heap, so that it does not pay for collecting the batches the
 * candidate before it left behind (whichever candidate ran second measured 15-25% slower).
 */
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
const RUNS = 5;

const FIELDS: Fields = [
  { name: "userId", type: "string", nullable: true },
  { name: "price", type: "float64", nullable: true },
  { name: "quantity", type: "int32", nullable: true },
  { name: "eventTime", type: "timestamp", nullable: true },
  { name: "mobile", type: "boolean", nullable: true },
];

/** Deterministic pseudo-random numbers, so every run decodes the same bytes. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function generateRecords(count: number): string[] {
  const random = lcg(42);
  const pages = ["/home", "/search?q=shoes", "/product/81723", "/cart", "/checkout/payment"];
  const base = Date.UTC(2024, 4, 1);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const ts = new Date(base + Math.floor(random() * 86_400_000)).toISOString();
    lines.push(
      `{"userId":"user-${Math.floor(random() * 100_000)}","page":"${pages[i % pages.length]}","price":${(random() * 500).toFixed(2)},` +
        `"quantity":${1 + Math.floor(random() * 9)},"eventTime":"${ts}","mobile":${random() < 0.4}}`,
    );
  }
  return lines;
}

/** The records back to back, with the offsets of a string column. */
function asValues(records: readonly string[]): { values: Uint8Array; offsets: Int32Array } {
  const encoder = new TextEncoder();
  const encoded = records.map((r) => encoder.encode(r));
  const offsets = new Int32Array(records.length + 1);
  encoded.forEach((e, i) => (offsets[i + 1] = offsets[i]! + e.length));
  const values = new Uint8Array(offsets[records.length]!);
  encoded.forEach((e, i) => values.set(e, offsets[i]!));
  return { values, offsets };
}

function jsonParseBaseline(bytes: Uint8Array): number {
  const lines = new TextDecoder().decode(bytes).split("\n");
  const n = lines.length;
  const userIds: (string | null)[] = new Array(n);
  const prices = new Float64Array(n);
  const quantities = new Int32Array(n);
  const times = new Float64Array(n);
  const mobile = new Uint8Array(n);
  let rows = 0;
  for (const line of lines) {
    if (line.length === 0) continue;
    const r = JSON.parse(line);
    userIds[rows] = r.userId;
    prices[rows] = r.price;
    quantities[rows] = r.quantity;
    times[rows] = Date.parse(r.eventTime);
    mobile[rows] = r.mobile ? 1 : 0;
    rows++;
  }
  return rows;
}

function jsonParseOnly(bytes: Uint8Array): number {
  let rows = 0;
  for (const line of new TextDecoder().decode(bytes).split("\n")) {
    if (line.length === 0) continue;
    JSON.parse(line);
    rows++;
  }
  return rows;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** Float64Array sum rate: a yardstick for how fast this machine is right now (DESIGN.md §11 says 1.2-3.3 G/s). */
function calibrate(): number {
  const values = new Float64Array(4_000_000).fill(1.5);
  let sum = 0;
  const start = performance.now();
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  const seconds = (performance.now() - start) / 1000;
  if (sum === 0) throw new Error("unreachable");
  return values.length / seconds;
}

interface Candidate {
  readonly name: string;
  readonly run: () => number;
  /** Lines per wall-clock second. */
  readonly rates: number[];
  /** Lines per second of CPU time used by the process: steadier than wall time on a shared machine. */
  readonly cpuRates: number[];
}

const records = generateRecords(LINES);
const bytes = new TextEncoder().encode(records.join("\n") + "\n");
const { values, offsets } = asValues(records);
const candidates: Candidate[] = [
  {
    name: "decodeJsonLines",
    run: () => decodeJsonLines(bytes, FIELDS, { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" }).batch.numRows,
    rates: [],
    cpuRates: [],
  },
  {
    name: "decodeJsonValues",
    run: () => decodeJsonValues(values, offsets, null, FIELDS, { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" }).batch.numRows,
    rates: [],
    cpuRates: [],
  },
  { name: "JSON.parse + extract", run: () => jsonParseBaseline(bytes), rates: [], cpuRates: [] },
  { name: "JSON.parse alone", run: () => jsonParseOnly(bytes), rates: [], cpuRates: [] },
];

console.log(`${LINES} lines, ${(bytes.length / 1e6).toFixed(1)} MB, ${(bytes.length / LINES).toFixed(0)} bytes/line`);
for (const c of candidates) c.run(); // warm-up
// Runs are interleaved so that a change in machine load affects all candidates alike.
const yardsticks: number[] = [];
for (let i = 0; i < RUNS; i++) {
  yardsticks.push(calibrate());
  for (const c of candidates) {
    collectGarbage();
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const rows = c.run();
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    if (rows !== LINES) throw new Error(`${c.name} produced ${rows} rows, expected ${LINES}`);
    c.rates.push(rows / seconds);
    c.cpuRates.push(rows / ((cpu.user + cpu.system) / 1e6));
  }
}
for (const c of candidates) {
  const runs = c.rates.map((r) => (r / 1e6).toFixed(2)).join(", ");
  const cpu = (median(c.cpuRates) / 1e6).toFixed(2);
  console.log(`${c.name.padEnd(22)} ${(median(c.rates) / 1e6).toFixed(2)} M lines/s wall, ${cpu} M lines/CPU-s  (median of ${RUNS}; wall runs ${runs})`);
}
const [lines, valuesCandidate, parseExtract] = candidates.slice(0, 3);
console.log(`decodeJsonLines / JSON.parse + extract (wall): ${(median(lines!.rates) / median(parseExtract!.rates)).toFixed(2)}x`);
console.log(`decodeJsonValues / decodeJsonLines (CPU): ${(median(valuesCandidate!.cpuRates) / median(lines!.cpuRates)).toFixed(2)}x`);
console.log(`machine yardstick: Float64Array sum ${(median(yardsticks) / 1e9).toFixed(2)} G/s`);

/** W1 and W4's input records, as Kafka values. */
const stringFields = (...names: string[]): Fields => names.map((name) => ({ name, type: "string", nullable: true }));
const adEvents = asValues(Array.from({ length: LINES }, (_, i) => SPECS.W1.value(i, 1_767_225_600_000 + i)));
const adCandidates = [
  ["W1's 2 fields of 7", stringFields("ad_id", "event_type")],
  ["W4's 3 fields of 7", stringFields("ad_id", "event_type", "user_id")],
  ["all 7 fields", stringFields("user_id", "page_id", "ad_id", "ad_type", "event_type", "event_time", "ip_address")],
] as const;
const adRates = new Map<string, number[]>();
const decodeAds = (fields: Fields) =>
  decodeJsonValues(adEvents.values, adEvents.offsets, null, fields, { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" }).batch.numRows;
for (const [, fields] of adCandidates) decodeAds(fields); // warm-up
for (let i = 0; i < RUNS; i++) {
  for (const [name, fields] of adCandidates) {
    collectGarbage();
    const cpuStart = process.cpuUsage();
    if (decodeAds(fields) !== LINES) throw new Error(`${name}: wrong row count`);
    const cpu = process.cpuUsage(cpuStart);
    adRates.set(name, [...(adRates.get(name) ?? []), LINES / ((cpu.user + cpu.system) / 1e6)]);
  }
}
console.log(`\nad events (W1/W4 input): ${(adEvents.values.length / LINES).toFixed(0)} bytes/record, decodeJsonValues`);
for (const [name, rates] of adRates) console.log(`  ${name.padEnd(20)} ${(median(rates) / 1e6).toFixed(2)} M records/CPU-s`);
