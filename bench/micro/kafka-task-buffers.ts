/**
 * Micro-benchmark: the buffers of a Kafka task that decodes JSON values, as W1's tasks do. Each
 * "task" decodes 250,000 of the bench's ad events (~244-byte JSON values, 8,000-record batches,
 * ~1 MiB fetch responses) into Kafka columns, then the values into W1's two pruned fields, with
 * the value buffer either fresh per task or taken from and given back to the thread's pool
 * (value-bytes-pool.ts). Reports, median of interleaved runs of 8 tasks each: CPU ms per task and
 * garbage-collection ms per task (PerformanceObserver "gc" entries, all kinds).
 *
 *   npx tsx bench/micro/kafka-task-buffers.ts [runs]
 */
import { PerformanceObserver } from "node:perf_hooks";
import { decodeJsonValues } from "../../src/formats/json-values.js";
import { decodeRecordBatchesInto, sinkForRange } from "../../src/sources/kafka/record-batch/decode.js";
import { encodeRecordBatchColumns } from "../../src/sources/kafka/record-batch/encode.js";
import { giveBackValueBytes, takeValueBytes } from "../../src/sources/kafka/record-batch/value-bytes-pool.js";
import { SPECS } from "../harness/workloads.js";

const RUNS = Number(process.argv[2] ?? 5);
const TASK_RECORDS = 250_000;
const TASKS_PER_RUN = 8;
const PER_BATCH = 8_000;

/** The task's fetch responses, one 8,000-record batch (~2 MB, over the default fetch size) each, as a broker returns them. */
function makeFetches(): Uint8Array[] {
  const encoder = new TextEncoder();
  const fetches: Uint8Array[] = [];
  for (let first = 0; first < TASK_RECORDS; first += PER_BATCH) {
    const count = Math.min(PER_BATCH, TASK_RECORDS - first);
    const parts = Array.from({ length: count }, (_, i) => encoder.encode(SPECS.W1.value(first + i, 1_767_225_600_000 + first + i)));
    const valueOffsets = new Int32Array(count + 1);
    parts.forEach((p, i) => (valueOffsets[i + 1] = valueOffsets[i]! + p.length));
    const values = new Uint8Array(valueOffsets[count]!);
    parts.forEach((p, i) => values.set(p, valueOffsets[i]!));
    fetches.push(encodeRecordBatchColumns({ count, values, valueOffsets, timestamps: 1_767_225_600_000 + first }, { baseOffset: first, compression: "none" }));
  }
  return fetches;
}

const FIELDS = [
  { name: "ad_id", type: "string" as const, nullable: true },
  { name: "event_type", type: "string" as const, nullable: true },
];

function task(fetches: readonly Uint8Array[], pooled: boolean): number {
  const sink = sinkForRange(fetches[0]!, false, TASK_RECORDS, pooled ? takeValueBytes : undefined);
  let offset = 0;
  for (const bytes of fetches) {
    offset = decodeRecordBatchesInto(sink, bytes, { topic: "events", partition: 0, startOffset: offset, endOffset: TASK_RECORDS, isolation: "read_uncommitted", includeHeaders: false }).nextOffset;
  }
  const raw = sink.toBatch("events", 0);
  const value = raw.columns[1]!;
  const decoded = decodeJsonValues(value.values as Uint8Array, value.valueOffsets as Int32Array, null, FIELDS, { mode: "PERMISSIVE", columnNameOfCorruptRecord: "_corrupt_record" });
  if (pooled) giveBackValueBytes(sink.value.bytes);
  return decoded.batch.numRows;
}

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ["gc"] });

const fetches = makeFetches();
const results = new Map<string, { cpu: number[]; gc: number[] }>();
for (const pooled of [false, true]) task(fetches, pooled); // warm-up
for (let run = 0; run < RUNS; run++) {
  for (const pooled of [false, true]) {
    const name = pooled ? "pooled value buffer" : "fresh value buffer";
    await new Promise((r) => setTimeout(r, 50)); // lets the observer deliver the last run's entries
    const gcStart = gcMs;
    const cpuStart = process.cpuUsage();
    for (let t = 0; t < TASKS_PER_RUN; t++) if (task(fetches, pooled) !== TASK_RECORDS) throw new Error("wrong row count");
    const cpu = process.cpuUsage(cpuStart);
    await new Promise((r) => setTimeout(r, 50));
    const r = results.get(name) ?? { cpu: [], gc: [] };
    r.cpu.push((cpu.user + cpu.system) / 1000 / TASKS_PER_RUN);
    r.gc.push((gcMs - gcStart) / TASKS_PER_RUN);
    results.set(name, r);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`${TASK_RECORDS.toLocaleString("en-US")}-record tasks of W1 ad events, ${(fetches.reduce((n, f) => n + f.length, 0) / 1e6).toFixed(0)} MB fetched each`);
for (const [name, r] of results) console.log(`  ${name.padEnd(20)} ${median(r.cpu).toFixed(0).padStart(5)} CPU ms/task, ${median(r.gc).toFixed(1).padStart(6)} GC ms/task`);
