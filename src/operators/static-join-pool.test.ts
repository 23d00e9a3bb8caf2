import v8 from "node:v8";
import { afterAll, describe, expect, it } from "vitest";
import { field, float64Column, int32Column, makeBatch, utf8FromStrings, type Batch } from "../batch/batch.js";
import type { InputPipeline } from "../planner/physical.js";
import { TaskPool } from "../workers/pool.js";
import type { InputTask as Task } from "../workers/protocol.js";
import type { JoinControl } from "../workers/testing/join-task.js";
import { rowsOf } from "../workers/testing/sample-batch.js";
import { packTask } from "../workers/transfer.js";
import type { Expr } from "../expr/ast.js";
import { probeStaticJoin, type StaticProbe } from "./static-join-exec.js";
import { buildStaticJoinTable } from "./static-join-table.js";

const joinModule = new URL("../workers/testing/join-task.ts", import.meta.url).href;
const pipeline = { sourceIndex: 0, source: { format: "memory" }, operators: [], outputFields: [] } as unknown as InputPipeline;

/** Bytes a postMessage of `value` copies: SharedArrayBuffers are shared, so they count zero. */
function clonedBytes(value: unknown): number {
  class SharingSerializer extends v8.Serializer {
    _getSharedArrayBufferId(): number {
      return 0;
    }
  }
  const serializer = new SharingSerializer();
  serializer.writeHeader();
  serializer.writeValue(value);
  return serializer.releaseBuffer().length;
}

function staticSide(n: number): Batch {
  const names = Array.from({ length: n }, (_, i) => `customer-${i}-Ø`);
  return makeBatch(
    [field("customer", "string"), field("segment", "int32"), field("credit", "float64")],
    [utf8FromStrings(names), int32Column(Int32Array.from(names, (_, i) => i % 7)), float64Column(Float64Array.from(names, (_, i) => i * 1.5))],
  );
}

function streamSplit(task: number, rows: number, n: number): Batch {
  const customers = Array.from({ length: rows }, (_, i) => (i % 5 === 4 ? `stranger-${i}` : `customer-${(task * 7919 + i * 104729) % n}-Ø`));
  return makeBatch([field("order", "int32"), field("customer", "string")], [int32Column(Int32Array.from(customers, (_, i) => task * 1000 + i)), utf8FromStrings(customers)]);
}

describe("static join through the worker pool", () => {
  const pool = new TaskPool({ workers: 2, taskModule: joinModule });
  afterAll(() => pool.destroy());

  it("shares the table with every task instead of sending it again", async () => {
    const n = 50_000;
    const customer: Expr = { kind: "col", name: "customer" };
    const table = buildStaticJoinTable(staticSide(n), [customer]);
    const join: StaticProbe = {
      mode: "outer",
      probeSide: "left",
      probeKeys: [customer],
      probeCondition: null,
      pairCondition: null,
      rightPairNames: ["__right_customer", "segment", "credit"],
      buildColumns: [1, 2],
    };
    const numTasks = 8;
    const log = new Int32Array(new SharedArrayBuffer(4 * 3 * numTasks));
    const control: JoinControl = { tableId: "static-0", join, log };
    const tasks: Task[] = Array.from({ length: numTasks }, (_, t) => ({
      kind: "input",
      pipeline,
      split: { kind: "batch", batch: streamSplit(t, 200, n) },
      context: { batchId: t, watermarkMs: null, watermarkForLateEventsMs: null, batchTimestampMs: 0 },
      outputMode: "append",
      staticTables: { "static-0": table, join: control },
    }));

    // The task message copies a few kilobytes; the table's megabytes travel as shared memory.
    const tableBytes = sharedBytes(table);
    const messageBytes = clonedBytes(packTask(tasks[0]!, "share").payload);
    expect(tableBytes).toBeGreaterThan(2_000_000);
    expect(messageBytes).toBeLessThan(20_000);
    console.log(`static table ${(tableBytes / 1e6).toFixed(1)} MB in shared memory; task message copies ${messageBytes} bytes`);

    const results = await pool.runAll(tasks);
    for (let t = 0; t < numTasks; t++) {
      const split = tasks[t]!.split;
      if (split.kind !== "batch") throw new Error("expected a batch split");
      const expected = probeStaticJoin(split.batch, table, join);
      expect(rowsOf(results[t]!.batch)).toEqual(rowsOf(expected));
      expect(results[t]!.batch.numRows).toBe(200);
    }
    // Every task saw shared arrays, and each worker rebuilt the table's rows once, not per task.
    for (let t = 0; t < numTasks; t++) {
      expect(log[3 * t + 2]).toBe(1);
      expect(log[3 * t + 1]).toBe(1);
    }
  });
});

/** Total size of the shared buffers behind a value (counted once each). */
function sharedBytes(value: unknown): number {
  const seen = new Set<SharedArrayBuffer>();
  const visit = (v: unknown): void => {
    if (ArrayBuffer.isView(v)) {
      if (v.buffer instanceof SharedArrayBuffer) seen.add(v.buffer);
    } else if (v !== null && typeof v === "object") {
      for (const x of Object.values(v)) visit(x);
    }
  };
  visit(value);
  return [...seen].reduce((n, b) => n + b.byteLength, 0);
}
