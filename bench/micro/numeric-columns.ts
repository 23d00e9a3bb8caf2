/**
 * Micro-benchmark of the numeric column paths over 1M rows: reading Int64 and Timestamp(ms)
 * columns into doubles (`readNumbers`), building Int64 and Timestamp(ms) columns from doubles
 * (`int64FromNumbers`, `timestampColumn`), and a static `groupBy` on an int64 key with 1000
 * distinct values followed by `count()` (key views, key encoding, the int64 count column).
 * Prints the median of timed runs after warm-up.
 *
 *   npx tsx bench/micro/numeric-columns.ts [rows]
 */
import * as arrow from "apache-arrow";
import { int64FromNumbers, readNumbers, timestampColumn } from "../../src/batch/batch.js";
import { count, Session } from "../../src/index.js";

const ROWS = Number(process.argv[2] ?? 1_000_000);
const WARM_UP = 3;
const RUNS = 15;

function median(times: number[]): number {
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function measure(name: string, run: () => unknown): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + RUNS; i++) {
    const start = performance.now();
    await run();
    if (i >= WARM_UP) times.push(performance.now() - start);
  }
  const ms = median(times);
  console.log(`  ${name.padEnd(34)} ${ms.toFixed(2).padStart(8)} ms  ${(ROWS / ms / 1000).toFixed(1).padStart(7)} M rows/s`);
}

const millis = Float64Array.from({ length: ROWS }, (_, i) => 1_767_225_600_000 + i * 7);
const ids = Float64Array.from({ length: ROWS }, (_, i) => (i * 7919) % 1000);
const times = timestampColumn(millis);
const longs = int64FromNumbers(ids);

console.log(`numeric columns over ${ROWS.toLocaleString("en-US")} rows, median of ${RUNS} runs`);
await measure("readNumbers(Timestamp(ms))", () => readNumbers(times));
await measure("readNumbers(Int64)", () => readNumbers(longs));
await measure("timestampColumn(doubles)", () => timestampColumn(millis));
await measure("int64FromNumbers(doubles)", () => int64FromNumbers(ids));

const session = new Session({ workers: 0 });
const table = new arrow.Table({ k: new arrow.Vector([longs]), t: new arrow.Vector([times]) });
const df = session.fromArrow(table);
await measure("groupBy(int64 key).count()", () => df.groupBy("k").agg(count().alias("n")).toArrow());
await session.stop();
