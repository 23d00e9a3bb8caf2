/**
 * Protobuf values -> columns against JSON values -> columns, on the same records: decodeProtobufValues
 * (plain, and in the Confluent wire format) and decodeJsonValues, each reading a binary column of
 * 1 M Kafka-like values into the same Sluice columns. Two shapes: W3's records ({key, value}: a
 * short string and an int32) and W1's ad events ({ad_id, event_type, user_id, ts}: three strings
 * and a google.protobuf.Timestamp, an ISO-8601 text in JSON). Reports records/s and MB/s of input,
 * wall clock and per CPU second, the median of interleaved repetitions, and writes
 * bench/results/protobuf-decode.{json,md}.
 *
 *   npx tsx bench/protobuf-decode.ts [records] [repetitions]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Batch } from "../src/batch/batch.js";
import { batchToRows, rowsToBatch } from "../src/batch/rows.js";
import { decodeJsonValues } from "../src/formats/json-values.js";
import { decodeProtobufValues, encodeProtobufValues, parseProtoMessage, protoFields } from "../src/formats/protobuf/index.js";
import type { ProtoMessage } from "../src/formats/protobuf/index.js";
import type { Fields } from "../src/types/dtype.js";
import { adId, ADS, BASE_MS, mix } from "./harness/workloads.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RECORDS = Number(process.argv[2] ?? 1_000_000);
const REPS = Number(process.argv[3] ?? 7);
const SCHEMA_ID = 1;
/** The event types of W1, and its span of event time (31.5 s). */
const EVENT_TYPES = ["view", "click", "purchase"];
const SPAN_MS = 31_500;

/**
 * Each run starts from a collected heap, so that it does not pay for collecting what the run
 * before it left behind (see bench/micro/json-decode.ts).
 */
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

interface Shape {
  readonly name: string;
  readonly proto: string;
  readonly messageName: string;
  readonly row: (i: number) => Record<string, unknown>;
  /** The record as JSON text, with the same values as `row`. */
  readonly json: (row: Record<string, unknown>) => string;
}

const hex = (n: number) => (n >>> 0).toString(16).padStart(8, "0");

const SHAPES: readonly Shape[] = [
  {
    name: "W3 record {key, value}",
    proto: 'syntax = "proto3"; package bench; message Record { string key = 1; int32 value = 2; }',
    messageName: "bench.Record",
    row: (i) => ({ key: `k${mix(i, 30) % 1_000_000}`, value: mix(i, 31) % 1_000 }),
    json: (r) => JSON.stringify(r),
  },
  {
    name: "W1 ad event {ad_id, event_type, user_id, ts}",
    proto:
      'syntax = "proto3"; package bench; import "google/protobuf/timestamp.proto"; ' +
      "message AdEvent { string ad_id = 1; string event_type = 2; string user_id = 3; google.protobuf.Timestamp ts = 4; }",
    messageName: "bench.AdEvent",
    row: (i) => ({
      ad_id: adId(mix(i, 4) % ADS),
      event_type: EVENT_TYPES[mix(i, 5) % 3],
      user_id: `${hex(mix(i, 1))}-${hex(mix(i, 2))}`,
      ts: new Date(BASE_MS + Math.floor((i / RECORDS) * SPAN_MS)),
    }),
    json: (r) => JSON.stringify({ ...r, ts: (r["ts"] as Date).toISOString() }),
  },
];

/** A binary column's bytes and offsets. */
interface Values {
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
}

function jsonValues(shape: Shape): Values {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (let i = 0; i < RECORDS; i++) parts.push(encoder.encode(shape.json(shape.row(i))));
  const offsets = new Int32Array(RECORDS + 1);
  parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
  const bytes = new Uint8Array(offsets[RECORDS]!);
  parts.forEach((p, i) => bytes.set(p, offsets[i]!));
  return { bytes, offsets };
}

function protobufValues(shape: Shape, message: ProtoMessage, fields: Fields, confluent: boolean): Values {
  const rows = Array.from({ length: RECORDS }, (_, i) => shape.row(i));
  return encodeProtobufValues(rowsToBatch(rows, fields), message, confluent ? { confluent: { schemaId: SCHEMA_ID } } : {});
}

interface Candidate {
  readonly shape: string;
  readonly format: string;
  readonly input: Values;
  readonly run: () => Batch;
  readonly wall: number[];
  readonly cpu: number[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

const candidates: Candidate[] = [];
for (const shape of SHAPES) {
  const message = await parseProtoMessage(shape.proto, shape.messageName);
  const fields = protoFields(message);
  const json = jsonValues(shape);
  const plain = protobufValues(shape, message, fields, false);
  const framed = protobufValues(shape, message, fields, true);
  const writerSchemas = new Map([[SCHEMA_ID, { messages: [message] }]]);
  const add = (format: string, input: Values, run: () => Batch) => candidates.push({ shape: shape.name, format, input, run, wall: [], cpu: [] });
  // emit.default.values: a value of 0 reads as 0, as in JSON, rather than as proto3's absent field (null).
  const options = { message, mode: "FAILFAST", emitDefaultValues: true } as const;
  add("Protobuf", plain, () => decodeProtobufValues(plain.bytes, plain.offsets, null, fields, options).batch);
  add("Protobuf, Confluent wire format", framed, () => decodeProtobufValues(framed.bytes, framed.offsets, null, fields, { ...options, confluent: { writerSchemas } }).batch);
  add("JSON", json, () => decodeJsonValues(json.bytes, json.offsets, null, fields, { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" }).batch);
}

// The three decoders must give the same rows: compared on a sample, once.
for (const shape of SHAPES) {
  const mine = candidates.filter((c) => c.shape === shape.name).map((c) => JSON.stringify(batchToRows(c.run()).slice(0, 2000)));
  if (new Set(mine).size !== 1) throw new Error(`the decoders disagree on ${shape.name}`);
}

const loadBefore = os.loadavg()[0]!;
for (const c of candidates) c.run(); // warm-up
// Runs are interleaved so that a change in machine load affects all candidates alike.
for (let rep = 0; rep < REPS; rep++) {
  for (const c of candidates) {
    collectGarbage();
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const rows = c.run().numRows;
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    if (rows !== RECORDS) throw new Error(`${c.shape} ${c.format}: ${rows} rows, expected ${RECORDS}`);
    c.wall.push(rows / seconds);
    c.cpu.push(rows / ((cpu.user + cpu.system) / 1e6));
  }
  console.log(`repetition ${rep + 1} of ${REPS} done`);
}
const loadAverage = [loadBefore, os.loadavg()[0]!].map((l) => Math.round(l * 10) / 10);

const results = candidates.map((c) => {
  const bytesPerRecord = c.input.bytes.length / RECORDS;
  const json = candidates.find((j) => j.shape === c.shape && j.format === "JSON")!;
  return {
    shape: c.shape,
    format: c.format,
    bytes: c.input.bytes.length,
    bytesPerRecord,
    recordsPerSecond: median(c.wall),
    megabytesPerSecond: (median(c.wall) * bytesPerRecord) / 1e6,
    recordsPerCpuSecond: median(c.cpu),
    vsJson: median(c.wall) / median(json.wall),
    vsJsonCpu: median(c.cpu) / median(json.cpu),
    wallRuns: c.wall,
    cpuRuns: c.cpu,
  };
});

const commit = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? "unknown", memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version };
const out = { benchmark: "protobuf-decode", date: new Date().toISOString(), sluiceCommit: commit, records: RECORDS, repetitions: REPS, machine, loadAverage, results };
const resultsDir = path.join(ROOT, "bench", "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(path.join(resultsDir, "protobuf-decode.json"), `${JSON.stringify(out, null, 2)}\n`);

const count = (x: number) => Math.round(x).toLocaleString("en-US");
const table = [
  "# Protobuf decode benchmark",
  "",
  `${RECORDS.toLocaleString("en-US")} Kafka-like values in a binary column decoded into Sluice columns by \`decodeProtobufValues\` (plain, and in the`,
  "Confluent wire format: magic byte, schema id, message index) and by `decodeJsonValues`, the same records in each format:",
  "W3's records (a short string and an int32) and W1's ad events (three strings and a timestamp: a google.protobuf.Timestamp,",
  `an ISO-8601 text in JSON). Medians of ${REPS} interleaved repetitions, each from a collected heap; ${machine.cpus} cores (${machine.cpuModel}),`,
  `Node ${machine.node}, Sluice commit ${commit}; 1-minute load average ${loadAverage.join(" at the start, ")} at the end.`,
  ...(Math.max(...loadAverage) > machine.cpus
    ? [`Other work shared the machine (load above its ${machine.cpus} cores): wall-clock rates are below the per-CPU-second ones by that share.`]
    : []),
  "Produced by `npx tsx bench/protobuf-decode.ts`.",
  "",
  "| shape | format | bytes per record | records/s | MB/s | records per CPU-s | vs JSON (wall) | vs JSON (CPU) |",
  "|---|---|---:|---:|---:|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.shape} | ${r.format} | ${r.bytesPerRecord.toFixed(1)} | ${count(r.recordsPerSecond)} | ${r.megabytesPerSecond.toFixed(1)} | ${count(r.recordsPerCpuSecond)} | ${r.vsJson.toFixed(2)}x | ${r.vsJsonCpu.toFixed(2)}x |`,
  ),
  "",
  "*MB/s* is input bytes (the values as they lie in the column) per wall-clock second. *Records per CPU-s* divides by the",
  "process's user + system time instead, steadier than wall time when other work shares the machine. Protobuf is read with",
  "emit.default.values, so that a 0 reads as 0 as it does from JSON (proto3 does not write it), and its strings are checked to be",
  "UTF-8, as protobuf-java checks them. The three decoders' rows are compared before the runs.",
  "",
].join("\n");
writeFileSync(path.join(resultsDir, "protobuf-decode.md"), table);
console.log(table);
