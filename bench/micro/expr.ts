/**
 * Micro-benchmark of vectorized filter + project on one 1M-row batch (columns id: int32,
 * x: float64 in [0, 1), s: one of 1000 strings like "user-00042"):
 *
 *   - float64 comparison filter `x > 0.5` (keeps half), then project [id, x * 2.0, s]
 *   - string equality filter `s = "user-00042"` (keeps ~0.1%), then the same projection
 *
 * each with `s` as a plain Utf8 column and as a dictionary-encoded one. Run with
 * `npx tsx bench/micro/expr.ts`; prints the median of timed runs after warm-up.
 */
import * as arrow from "apache-arrow";
import { type Batch, float64Column, int32Column, makeBatch, utf8Column, utf8FromStrings } from "../../src/batch/batch.js";
import type { Expr } from "../../src/expr/ast.js";
import { filterBatch } from "../../src/operators/filter-exec.js";
import { projectBatch } from "../../src/operators/project-exec.js";
import type { Fields } from "../../src/types/dtype.js";

const ROWS = 1_000_000;
const DISTINCT_STRINGS = 1000;
const WARM_UP = 3;
const RUNS = 15;

/** Deterministic xorshift32 in [0, 1), so every run sees the same data. */
function makeRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

function makeInputs(): { plain: Batch; dictionary: Batch } {
  const random = makeRandom(42);
  const words = Array.from({ length: DISTINCT_STRINGS }, (_, k) => `user-${String(k).padStart(5, "0")}`);
  const encoded = words.map((w) => new TextEncoder().encode(w));
  const ids = new Int32Array(ROWS);
  const xs = new Float64Array(ROWS);
  const codes = new Int32Array(ROWS);
  const offsets = new Int32Array(ROWS + 1);
  const bytes = new Uint8Array(ROWS * 10);
  let pos = 0;
  for (let i = 0; i < ROWS; i++) {
    ids[i] = i;
    xs[i] = random();
    codes[i] = Math.floor(random() * DISTINCT_STRINGS);
    bytes.set(encoded[codes[i]], pos);
    pos += encoded[codes[i]].length;
    offsets[i + 1] = pos;
  }
  const fields: Fields = [
    { name: "id", type: "int32", nullable: false },
    { name: "x", type: "float64", nullable: false },
    { name: "s", type: "string", nullable: false },
  ];
  const dictionaryColumn = arrow.makeData({
    type: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()),
    length: ROWS,
    data: codes,
    dictionary: arrow.makeVector(utf8FromStrings(words)),
  });
  return {
    plain: makeBatch(fields, [int32Column(ids), float64Column(xs), utf8Column(offsets, bytes.subarray(0, pos))]),
    dictionary: makeBatch(fields, [int32Column(ids), float64Column(xs), dictionaryColumn]),
  };
}

const col = (name: string): Expr => ({ kind: "col", name });
const projection: Expr[] = [col("id"), { kind: "arith", op: "*", left: col("x"), right: { kind: "lit", value: 2, type: "float64" } }, col("s")];
const conditions: { name: string; condition: Expr }[] = [
  { name: "x > 0.5", condition: { kind: "cmp", op: ">", left: col("x"), right: { kind: "lit", value: 0.5, type: "float64" } } },
  { name: 's = "user-00042"', condition: { kind: "cmp", op: "=", left: col("s"), right: { kind: "lit", value: "user-00042", type: "string" } } },
];

function measure(input: Batch, condition: Expr): { medianMs: number; kept: number } {
  const times: number[] = [];
  let kept = 0;
  for (let run = 0; run < WARM_UP + RUNS; run++) {
    const start = performance.now();
    kept = projectBatch(filterBatch(input, condition), projection).numRows;
    if (run >= WARM_UP) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)], kept };
}

const inputs = makeInputs();
console.log(`filter + project [id, x * 2.0, s] over ${ROWS.toLocaleString("en-US")} rows, median of ${RUNS} runs`);
for (const [encoding, input] of Object.entries(inputs)) {
  for (const { name, condition } of conditions) {
    const { medianMs, kept } = measure(input, condition);
    const rate = ROWS / medianMs / 1000;
    console.log(`  ${name.padEnd(18)} s ${encoding.padEnd(10)} ${medianMs.toFixed(1).padStart(6)} ms  ${rate.toFixed(1).padStart(6)} M rows/s  (kept ${kept})`);
  }
}
