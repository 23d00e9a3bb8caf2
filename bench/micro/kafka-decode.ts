/**
 * Micro-benchmark: Kafka record batches -> columns. Builds ~1M records with 100-byte JSON values
 * and null keys in producer-sized batches (about 16 KiB each), packs them into ~1 MiB fetch
 * responses, and reports records/s, the median of five interleaved runs, for:
 *  - `decodeRecordBatches` straight into Arrow columns, with and without CRC-32C checks;
 *  - kafkajs's own RecordBatchDecoder on the same bytes (one message object per record);
 * for uncompressed and gzip batches. kafkajs does not check CRCs. Then the CRC-32C alone, in
 * MB/s over every batch's checksummed range: the dispatching `crc32c` (native `@node-rs/crc32`
 * where it loads) against the JS slicing-by-16 fallback `crc32cJs`.
 *
 *   npx tsx bench/micro/kafka-decode.ts [records]
 */
import { createRequire } from "node:module";
import { crc32c, crc32cImplementation, crc32cJs } from "../../src/sources/kafka/record-batch/crc32c.js";
import { decodeRecordBatches } from "../../src/sources/kafka/record-batch/decode.js";
import { encodeRecordBatchColumns } from "../../src/sources/kafka/record-batch/encode.js";
import type { KafkaCompression } from "../../src/sources/kafka/record-batch/compression.js";

const RECORDS = Number(process.argv[2] ?? 1_000_000);
const RUNS = 5;
const VALUE_BYTES = 100;
const RECORDS_PER_BATCH = 140; // ~16 KiB batches, Kafka's default producer batch.size
const FETCH_BYTES = 1 << 20; // Kafka's default max.partition.fetch.bytes

const require = createRequire(import.meta.url);
type KafkajsBatch = { records: unknown[] };
const KafkajsDecoder = require("kafkajs/src/protocol/decoder.js") as new (buffer: Buffer) => { offset: number };
const kafkajsRecordBatch = require("kafkajs/src/protocol/recordBatch/v0/decoder.js") as (decoder: unknown) => Promise<KafkajsBatch>;

/** 100-byte JSON values, all distinct. */
function makeValues(count: number): { values: Uint8Array; offsets: Int32Array } {
  const values = new Uint8Array(count * VALUE_BYTES);
  const offsets = new Int32Array(count + 1);
  const encoder = new TextEncoder();
  for (let i = 0; i < count; i++) {
    const text = `{"user":"u${(i * 7919) % 100000}","page":"/p/${i % 977}","price":${(i % 5000) / 10},"ts":${1714521600000 + i}}`.padEnd(VALUE_BYTES, " ");
    encoder.encodeInto(text, values.subarray(i * VALUE_BYTES, (i + 1) * VALUE_BYTES));
    offsets[i + 1] = (i + 1) * VALUE_BYTES;
  }
  return { values, offsets };
}

/** Record batches of `perBatch` records each. */
function makeBatches(compression: KafkaCompression, perBatch: number): Uint8Array[] {
  const { values, offsets } = makeValues(RECORDS);
  const batches: Uint8Array[] = [];
  for (let first = 0; first < RECORDS; first += perBatch) {
    const count = Math.min(perBatch, RECORDS - first);
    const slice = offsets.slice(first, first + count + 1).map((o) => o - offsets[first]!);
    const batch = encodeRecordBatchColumns(
      { count, values: values.subarray(offsets[first]!, offsets[first + count]!), valueOffsets: slice, timestamps: 1714521600000 + first },
      { baseOffset: first, compression },
    );
    batches.push(batch);
  }
  return batches;
}

/** Batches of RECORDS_PER_BATCH records, grouped into fetch-sized responses. */
function makeFetches(compression: KafkaCompression): Uint8Array[] {
  const batches = makeBatches(compression, RECORDS_PER_BATCH);
  const fetches: Uint8Array[] = [];
  for (let i = 0; i < batches.length; ) {
    let size = 0;
    let j = i;
    while (j < batches.length && size + batches[j]!.length <= FETCH_BYTES) size += batches[j++]!.length;
    const fetch = new Uint8Array(size);
    let at = 0;
    for (let k = i; k < j; k++) {
      fetch.set(batches[k]!, at);
      at += batches[k]!.length;
    }
    fetches.push(fetch);
    i = j;
  }
  return fetches;
}

function sluice(fetches: Uint8Array[], verifyCrc: boolean): number {
  let rows = 0;
  let offset = 0;
  for (const bytes of fetches) {
    const r = decodeRecordBatches(bytes, { topic: "events", partition: 0, startOffset: offset, endOffset: Number.MAX_SAFE_INTEGER, isolation: "read_uncommitted", includeHeaders: false, verifyCrc });
    rows += r.batch.numRows;
    offset = r.nextOffset;
  }
  return rows;
}

async function kafkajs(fetches: Uint8Array[]): Promise<number> {
  let rows = 0;
  for (const bytes of fetches) {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const decoder = new KafkajsDecoder(buffer);
    while (decoder.offset < buffer.length) rows += (await kafkajsRecordBatch(decoder)).records.length;
  }
  return rows;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(name: string, run: () => number | Promise<number>, results: Map<string, number[]>): Promise<void> {
  const t0 = performance.now();
  const rows = await run();
  const seconds = (performance.now() - t0) / 1000;
  if (rows !== RECORDS) throw new Error(`${name} decoded ${rows} records, expected ${RECORDS}`);
  results.set(name, [...(results.get(name) ?? []), rows / seconds]);
}

for (const compression of ["none", "gzip"] as const) {
  const fetches = makeFetches(compression);
  const bytes = fetches.reduce((n, f) => n + f.length, 0);
  const results = new Map<string, number[]>();
  // Warm-up, then interleaved timed runs.
  sluice(fetches, true);
  await kafkajs(fetches);
  for (let run = 0; run < RUNS; run++) {
    await measure("sluice (CRC checked)", () => sluice(fetches, true), results);
    await measure("sluice (no CRC check)", () => sluice(fetches, false), results);
    await measure("kafkajs RecordBatchDecoder", () => kafkajs(fetches), results);
  }
  console.log(`\n${compression}: ${RECORDS.toLocaleString()} records, ${(bytes / 1e6).toFixed(1)} MB in ${fetches.length} fetches`);
  const baseline = median(results.get("kafkajs RecordBatchDecoder")!);
  for (const [name, rates] of results) {
    const m = median(rates);
    console.log(`  ${name.padEnd(28)} ${(m / 1e6).toFixed(2).padStart(6)} M records/s  (${(m / baseline).toFixed(1)}x kafkajs)`);
  }
}

/** The checksummed range of a v2 batch: from `attributes` (byte 21) to its end. */
const CRC_FROM = 21;

function checksumAll(batches: Uint8Array[], crc: (bytes: Uint8Array, start: number, end: number) => number): number {
  let x = 0;
  for (const batch of batches) x ^= crc(batch, CRC_FROM, batch.length);
  return x;
}

console.log(`\nCRC-32C alone (crc32c dispatches to: ${crc32cImplementation})`);
for (const perBatch of [RECORDS_PER_BATCH, 8000]) {
  const batches = makeBatches("none", perBatch);
  const bytes = batches.reduce((n, b) => n + b.length - CRC_FROM, 0);
  const rates = new Map<string, number[]>();
  const candidates = [
    ["crc32c", crc32c],
    ["crc32cJs", crc32cJs],
  ] as const;
  if (checksumAll(batches, crc32c) !== checksumAll(batches, crc32cJs)) throw new Error("crc32c and crc32cJs disagree");
  for (let run = 0; run < RUNS; run++) {
    for (const [name, crc] of candidates) {
      const t0 = performance.now();
      checksumAll(batches, crc);
      rates.set(name, [...(rates.get(name) ?? []), bytes / ((performance.now() - t0) / 1000)]);
    }
  }
  const size = (bytes / batches.length / 1024).toFixed(1);
  for (const [name, r] of rates) console.log(`  ${perBatch}-record batches (${size} KiB)  ${name.padEnd(9)} ${(median(r) / 1e6).toFixed(0).padStart(6)} MB/s`);
}
