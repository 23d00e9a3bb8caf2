/**
 * Micro-benchmark of user-defined functions on one 1M-row batch (x: float64): `x * 2 + 1` as a
 * row-wise `udf` (a JavaScript number in and out per row), as a `vectorUdf` (a Float64 Vector in,
 * a Float64Array out), and as Sluice's own expression, for scale. The UDF modules are imported
 * first, as a task does. Run with `npx tsx bench/micro/udf.ts`; prints the medians of timed runs after
 * warm-up and writes bench/results/udf-micro.{json,md}.
 */
import { writeFileSync } from "node:fs";
import * as os from "node:os";
import { float64Column, makeBatch } from "../../src/batch/batch.js";
import type { Expr, UdfRef } from "../../src/expr/ast.js";
import { importUdf } from "../../src/expr/udf-modules.js";
import { projectBatch } from "../../src/operators/project-exec.js";

const ROWS = 1_000_000;
const WARM_UP = 3;
const RUNS = 15;
const MODULE = new URL("./udf-functions.ts", import.meta.url).href;

const ref = (exportName: string, form: UdfRef["form"]): UdfRef => ({
  kind: "udfRef",
  name: exportName,
  module: MODULE,
  exportName,
  form,
  returnType: { type: "float64", nullable: true },
  args: { a: 2, b: 1 },
});

const x: Expr = { kind: "col", name: "x" };
const cases: { name: string; expr: Expr }[] = [
  { name: "row-wise udf", expr: { kind: "udf", fn: ref("affineRow", "row"), inputs: [x] } },
  { name: "vectorUdf", expr: { kind: "udf", fn: ref("affineVector", "vector"), inputs: [x] } },
  {
    name: "built-in expression x * 2 + 1",
    expr: { kind: "arith", op: "+", left: { kind: "arith", op: "*", left: x, right: { kind: "lit", value: 2, type: "float64" } }, right: { kind: "lit", value: 1, type: "float64" } },
  },
];

const xs = new Float64Array(ROWS);
for (let i = 0; i < ROWS; i++) xs[i] = (i % 1000) / 7;
const batch = makeBatch([{ name: "x", type: "float64", nullable: false }], [float64Column(xs)]);

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

async function main(): Promise<void> {
  for (const c of cases) if (c.expr.kind === "udf") await importUdf(c.expr.fn);
  const results: { case: string; medianMs: number; rowsPerSecond: number }[] = [];
  for (const c of cases) {
    const times: number[] = [];
    let check = 0;
    for (let run = 0; run < WARM_UP + RUNS; run++) {
      const start = performance.now();
      const out = projectBatch(batch, [c.expr]);
      const ms = performance.now() - start;
      check = (out.columns[0]!.values as Float64Array)[ROWS - 1]!;
      if (run >= WARM_UP) times.push(ms);
    }
    if (check !== xs[ROWS - 1]! * 2 + 1) throw new Error(`${c.name} computed ${check}`);
    const ms = median(times);
    results.push({ case: c.name, medianMs: Number(ms.toFixed(2)), rowsPerSecond: Math.round(ROWS / (ms / 1000)) });
    console.log(`${c.name.padEnd(32)} ${ms.toFixed(2).padStart(8)} ms  ${(ROWS / (ms / 1000) / 1e6).toFixed(1).padStart(7)} M rows/s`);
  }
  const row = results.find((r) => r.case === "row-wise udf")!;
  const vector = results.find((r) => r.case === "vectorUdf")!;
  const ratio = Number((row.medianMs / vector.medianMs).toFixed(1));
  console.log(`vectorUdf is ${ratio}x faster than the row-wise udf`);
  const machine = { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "unknown" };
  const when = new Date().toISOString();
  writeFileSync(new URL("../results/udf-micro.json", import.meta.url), `${JSON.stringify({ rows: ROWS, runs: RUNS, warmUp: WARM_UP, when, machine, results, vectorSpeedup: ratio }, null, 2)}\n`);
  const md = [
    "# UDFs: row-wise against vector (bench/micro/udf.ts)",
    "",
    `One batch of ${ROWS.toLocaleString("en-US")} float64 rows, \`x * 2 + 1\` (the constants bound as args); median of ${RUNS} runs after ${WARM_UP} warm-up runs, ${when.slice(0, 10)}, Node ${machine.node}, ${machine.cpus} cores (${machine.cpu}).`,
    "",
    "| case | median ms | M rows/s |",
    "|---|---:|---:|",
    ...results.map((r) => `| ${r.case} | ${r.medianMs.toFixed(2)} | ${(r.rowsPerSecond / 1e6).toFixed(1)} |`),
    "",
    `The vector UDF is ${ratio}x faster than the row-wise one: the row-wise path reads each argument into a JavaScript value, calls the function once per row and checks and builds every result, while the vector path hands the column over as it is and takes the Float64Array back as the result column.`,
    "",
  ].join("\n");
  writeFileSync(new URL("../results/udf-micro.md", import.meta.url), md);
}

await main();
