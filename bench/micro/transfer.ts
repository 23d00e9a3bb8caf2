import { Worker } from "node:worker_threads";
import { field, float64Column, int32Column, makeBatch, type Batch } from "../../src/batch/batch.js";
import { packBatch } from "../../src/workers/transfer.js";

/**
 * Micro-benchmark (`npx tsx bench/micro/transfer.ts`). Measures handing 10 MB of columns to another thread: moved (transfer list), cloned (structured
 * clone copies), or shared (copied once into a SharedArrayBuffer, then posted without copying).
 * Timing is postMessage until the worker's acknowledgement, median of several runs.
 */

const ROWS = 833_334; // float64 + int32 columns: 12 bytes a row, 10 MB

function tenMegabytes(): Batch {
  const f = new Float64Array(ROWS);
  const i = new Int32Array(ROWS);
  for (let r = 0; r < ROWS; r++) {
    f[r] = r * 0.5;
    i[r] = r;
  }
  return makeBatch([field("f", "float64"), field("i", "int32")], [float64Column(f), int32Column(i)]);
}

const worker = new Worker(
  `const { parentPort } = require("node:worker_threads");
   parentPort.on("message", (m) => parentPort.postMessage(m.columns[0].values.length));`,
  { eval: true },
);

function roundTrip(payload: unknown, transfer: ArrayBuffer[]): Promise<number> {
  return new Promise((resolve) => {
    const start = performance.now();
    worker.once("message", () => resolve(performance.now() - start));
    worker.postMessage(payload, transfer);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const runs = 9;
const times = { transfer: [] as number[], clone: [] as number[], share: [] as number[], shareIncludingCopy: [] as number[] };
await roundTrip(packBatch(tenMegabytes()).payload, []); // warm up the thread
for (let k = 0; k < runs; k++) {
  const moved = packBatch(tenMegabytes(), "transfer");
  times.transfer.push(await roundTrip(moved.payload, moved.transfer));
  const cloned = packBatch(tenMegabytes(), "transfer");
  times.clone.push(await roundTrip(cloned.payload, []));
  const batch = tenMegabytes();
  const start = performance.now();
  const shared = packBatch(batch, "share");
  const copyMs = performance.now() - start;
  const postMs = await roundTrip(shared.payload, shared.transfer);
  times.share.push(postMs);
  times.shareIncludingCopy.push(copyMs + postMs);
}
const summary = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, `${median(v).toFixed(2)} ms`]));
console.log("10 MB of columns to a worker (median of 9):", summary);
await worker.terminate();
