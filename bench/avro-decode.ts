/**
 * Avro decode benchmark: the same records as Avro binary values and as JSON values (back to back,
 * framed by offsets, as Kafka record values are), decoded into columns by `decodeAvroValues`
 * (plain, and in the Confluent wire format) and by `decodeJsonValues`. Two shapes, from the
 * benchmark workloads (bench/harness/workloads.ts):
 *
 * - W3: `{key: string, value: int}`, both columns read;
 * - W1: the ad event (seven fields: user_id, page_id, ad_id, ad_type, event_type, event_time,
 *   ip_address), reading ad_id, event_type, user_id and event_time as a timestamp; the other three
 *   are skipped. event_time is epoch milliseconds: a JSON number, an Avro long with
 *   timestamp-millis.
 *
 * Also `encodeAvroValues` of the decoded W1 and W3 columns (rows/s). Records/s and MB/s of input,
 * medians of interleaved runs (each candidate once per round, from a collected heap), written to
 * bench/results/avro-decode.{json,md}.
 *
 *   npx tsx bench/avro-decode.ts                          # 1,000,000 records per shape, 5 runs
 *   npx tsx bench/avro-decode.ts --records 200000 --runs 3
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { int32Column, makeBatch, timestampColumn, utf8FromStrings, type Batch } from "../src/batch/batch.js";
import { avroSchemaOfFields } from "../src/formats/avro/avro-columns.js";
import { encodeAvroValues } from "../src/formats/avro/avro-encode.js";
import { parseAvroSchema } from "../src/formats/avro/avro-schema.js";
import { decodeAvroValues, type AvroWriterSchemas } from "../src/formats/avro/avro-values.js";
import { decodeJsonValues } from "../src/formats/json-values.js";
import type { Fields } from "../src/types/dtype.js";
import { workerExecArgv } from "../src/workers/worker-path.js";
import { median } from "./harness/stats.js";
import { eventTime, SPECS } from "./harness/workloads.js";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1]!);
const RECORDS = Number(args.get("records") ?? 1_000_000);
const RUNS = Number(args.get("runs") ?? 5);
const ROOT = path.dirname(path.dirname(new URL(import.meta.url).pathname));
/** A registry id for the Confluent-framed values: any id works, the decoder is handed the schema for it. */
const SCHEMA_ID = 1;

/**
 * Each run starts from a collected heap, so that it does not pay for collecting what the candidate
 * before it left behind (bench/micro/json-decode.ts measured 15-25% for whichever ran second).
 */
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

interface Values {
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
}

/** A shape's columns: the whole record in its field order (the Avro writer schema is made from them) and the ones decoded. */
interface ShapeSpec {
  readonly name: string;
  readonly description: string;
  readonly recordFields: Fields;
  readonly readFields: Fields;
  /** The records' columns and JSON texts, from the workload's generator. */
  generate(count: number): { batch: Batch; json: string[] };
}

/** A shape's records, in each encoding. */
interface Encoded {
  readonly json: Values;
  readonly avro: Values;
  readonly confluent: Values;
}

const string = (name: string) => ({ name, type: "string" as const, nullable: false });

const W3: ShapeSpec = {
  name: "W3",
  description: "{key: string, value: int}, both read",
  recordFields: [string("key"), { name: "value", type: "int32", nullable: false }],
  readFields: [string("key"), { name: "value", type: "int32", nullable: false }],
  generate(count) {
    const keys: string[] = [];
    const values = new Int32Array(count);
    const json: string[] = [];
    for (let i = 0; i < count; i++) {
      const text = SPECS.W3.value(i, 0);
      const record = JSON.parse(text) as { key: string; value: number };
      keys.push(record.key);
      values[i] = record.value;
      json.push(text);
    }
    return { batch: makeBatch(this.recordFields, [utf8FromStrings(keys), int32Column(values)]), json };
  },
};

const W1_STRINGS = ["user_id", "page_id", "ad_id", "ad_type", "event_type"] as const;

const W1: ShapeSpec = {
  name: "W1",
  description: "the seven-field ad event; ad_id, event_type, user_id and event_time (timestamp) read, three fields skipped",
  recordFields: [...W1_STRINGS.map(string), { name: "event_time", type: "timestamp", nullable: false }, string("ip_address")],
  readFields: [string("ad_id"), string("event_type"), string("user_id"), { name: "event_time", type: "timestamp", nullable: false }],
  generate(count) {
    const columns = new Map<string, string[]>([...W1_STRINGS, "ip_address"].map((k) => [k, []]));
    const times = new Float64Array(count);
    const json: string[] = [];
    for (let i = 0; i < count; i++) {
      const record = JSON.parse(SPECS.W1.value(i, eventTime(i, count))) as Record<string, string>;
      for (const [k, list] of columns) list.push(record[k]!);
      times[i] = Number(record.event_time);
      // The same record with event_time as a number, which a JSON timestamp column reads as epoch milliseconds.
      json.push(JSON.stringify({ ...record, event_time: times[i] }));
    }
    const strings = W1_STRINGS.map((k) => utf8FromStrings(columns.get(k)!));
    return { batch: makeBatch(this.recordFields, [...strings, timestampColumn(times), utf8FromStrings(columns.get("ip_address")!)]), json };
  },
};

const SHAPES = [W3, W1];

function textValues(texts: readonly string[]): Values {
  const encoder = new TextEncoder();
  const parts = texts.map((t) => encoder.encode(t));
  const offsets = new Int32Array(parts.length + 1);
  parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
  const bytes = new Uint8Array(offsets[parts.length]!);
  parts.forEach((p, i) => bytes.set(p, offsets[i]!));
  return { bytes, offsets };
}

/**
 * The records of every shape, made in a worker thread. The generators keep millions of JavaScript
 * strings alive (W1's pool of a million user ids among them); on the measuring thread they would
 * make every garbage collection the decoders' allocations start mark them all (GC was 44% of a
 * profiled run). The worker hands back only buffers, moved rather than copied, and exits.
 */
function encodeShapes(count: number): Encoded[] {
  return SHAPES.map((spec) => {
    const { batch, json } = spec.generate(count);
    return { json: textValues(json), avro: encodeAvroValues(batch), confluent: encodeAvroValues(batch, { schemaId: SCHEMA_ID }) };
  });
}

function encodedInWorker(count: number): Promise<Encoded[]> {
  return new Promise((resolve, reject) => {
    const url = new URL(import.meta.url);
    const execArgv = workerExecArgv([url.href]);
    const worker = new Worker(url, { workerData: { count }, ...(execArgv ? { execArgv } : {}) });
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

if (!isMainThread) {
  const encoded = encodeShapes((workerData as { count: number }).count);
  parentPort!.postMessage(
    encoded,
    encoded.flatMap((e) => [e.json, e.avro, e.confluent].flatMap((v) => [v.bytes.buffer as ArrayBuffer, v.offsets.buffer as ArrayBuffer])),
  );
  process.exit(0);
}

interface Shape {
  readonly spec: ShapeSpec;
  readonly encoded: Encoded;
  readonly writer: AvroWriterSchemas;
  readonly confluentWriter: AvroWriterSchemas;
  /** The whole record's columns (decoded from the Avro values), to time the encoder on. */
  readonly batch: Batch;
}

function shape(spec: ShapeSpec, encoded: Encoded): Shape {
  const schema = parseAvroSchema(avroSchemaOfFields(spec.recordFields, { name: spec.name }));
  const writer: AvroWriterSchemas = { framing: "plain", schema };
  const { batch } = decodeAvroValues(encoded.avro.bytes, encoded.avro.offsets, null, spec.recordFields, { mode: "FAILFAST", writer });
  return { spec, encoded, writer, confluentWriter: { framing: "confluent", schemas: new Map([[SCHEMA_ID, schema]]) }, batch };
}

interface Candidate {
  readonly shape: string;
  readonly name: string;
  /** Input bytes per run, for MB/s. */
  readonly bytes: number;
  readonly run: () => number;
  readonly rates: number[];
  readonly cpuRates: number[];
}

const shapes = (await encodedInWorker(RECORDS)).map((encoded, k) => shape(SHAPES[k]!, encoded));
const candidates: Candidate[] = shapes.flatMap(({ spec, encoded: { json, avro, confluent }, writer, confluentWriter, batch }) => {
  const c = (name: string, bytes: number, run: () => number): Candidate => ({ shape: spec.name, name, bytes, run, rates: [], cpuRates: [] });
  const read = spec.readFields;
  return [
    c("decodeJsonValues", json.bytes.length, () => decodeJsonValues(json.bytes, json.offsets, null, read, { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" }).batch.numRows),
    c("decodeAvroValues", avro.bytes.length, () => decodeAvroValues(avro.bytes, avro.offsets, null, read, { mode: "FAILFAST", writer }).batch.numRows),
    c("decodeAvroValues (Confluent)", confluent.bytes.length, () => decodeAvroValues(confluent.bytes, confluent.offsets, null, read, { mode: "FAILFAST", writer: confluentWriter }).batch.numRows),
    c("encodeAvroValues", avro.bytes.length, () => encodeAvroValues(batch).offsets.length - 1),
  ];
});

for (const { spec, encoded } of shapes) {
  console.log(`${spec.name}: ${RECORDS.toLocaleString("en-US")} records, JSON ${(encoded.json.bytes.length / RECORDS).toFixed(1)} bytes/record, Avro ${(encoded.avro.bytes.length / RECORDS).toFixed(1)}`);
}
const loadBefore = os.loadavg()[0]!;
for (const c of candidates) c.run(); // warm-up: every candidate's code optimized before the first timed round
for (let r = 0; r < RUNS; r++) {
  for (const c of candidates) {
    collectGarbage();
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const rows = c.run();
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    if (rows !== RECORDS) throw new Error(`${c.shape} ${c.name} gave ${rows} rows, expected ${RECORDS}`);
    c.rates.push(rows / seconds);
    c.cpuRates.push(rows / ((cpu.user + cpu.system) / 1e6));
  }
  console.log(`round ${r + 1}: ${candidates.map((c) => `${c.shape} ${c.name} ${(c.rates.at(-1)! / 1e6).toFixed(2)} M/s`).join(", ")}`);
}

const results = candidates.map((c) => {
  const recordsPerSecond = median(c.rates);
  return {
    shape: c.shape,
    candidate: c.name,
    recordsPerSecond,
    megabytesPerSecond: (recordsPerSecond * (c.bytes / RECORDS)) / 1e6,
    recordsPerCpuSecond: median(c.cpuRates),
    bytesPerRecord: c.bytes / RECORDS,
    runs: c.rates,
  };
});
const ratio = (shape: string, name: string) => {
  const of = (n: string) => results.find((r) => r.shape === shape && r.candidate === n)!.recordsPerSecond;
  return of(name) / of("decodeJsonValues");
};

const commit = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version };
// Other work on the machine slows every figure: the 1-minute load average when the runs started and ended.
const loadAverage = [loadBefore, os.loadavg()[0]!].map((l) => Math.round(l * 10) / 10);
const out = {
  benchmark: "avro-decode",
  date: new Date().toISOString(),
  sluiceCommit: commit,
  records: RECORDS,
  runs: RUNS,
  machine,
  loadAverage,
  shapes: SHAPES.map((s) => ({ name: s.name, description: s.description, avroSchema: avroSchemaOfFields(s.recordFields, { name: s.name }), readColumns: s.readFields.map((f) => f.name) })),
  results,
};
const resultsDir = path.join(ROOT, "bench", "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, "avro-decode.json"), `${JSON.stringify(out, null, 2)}\n`);

const millions = (x: number) => (x / 1e6).toFixed(2);
const table = [
  "# Avro decode benchmark",
  "",
  `The same ${RECORDS.toLocaleString("en-US")} records per shape as Avro binary values and as JSON values, back to back in one buffer and framed`,
  "by offsets as Kafka record values are, decoded into Sluice columns; medians of",
  `${RUNS} interleaved runs, each from a collected heap; ${machine.cpus} cores (${machine.cpuModel}), Node ${machine.node}, Sluice commit ${commit};`,
  `1-minute load average ${loadAverage.join(" at the start, ")} at the end${loadAverage[0]! > machine.cpus ? ": other processes shared the machine, so the rates are low and the ratios, measured in the same rounds, are the steadier figures" : ""}.`,
  "Produced by `npx tsx bench/avro-decode.ts`.",
  "",
  ...SHAPES.map((s) => `- ${s.name}: ${s.description}.`),
  "",
  "| shape | candidate | bytes/record | M records/s | MB/s | M records/CPU-s | vs decodeJsonValues |",
  "|---|---|---:|---:|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.shape} | ${r.candidate} | ${r.bytesPerRecord.toFixed(1)} | ${millions(r.recordsPerSecond)} | ${r.megabytesPerSecond.toFixed(0)} | ${millions(r.recordsPerCpuSecond)} | ${r.candidate === "encodeAvroValues" ? "" : `${ratio(r.shape, r.candidate).toFixed(2)}x`} |`,
  ),
  "",
  "*MB/s* is of the input: JSON text or Avro bytes (with the 5-byte Confluent header per record where framed); for",
  "*encodeAvroValues*, of the Avro bytes it writes from the decoded columns. *Confluent* values carry the header and the",
  "decoder is handed the writer schema by id, as a schema-registry-backed Kafka source would be.",
  "",
].join("\n");
writeFileSync(path.join(resultsDir, "avro-decode.md"), table);
console.log(`\n${table}`);
