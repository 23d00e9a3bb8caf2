import { describe, expect, it } from "vitest";
import type { Batch } from "../batch/batch.js";
import { InMemoryStateStoreProvider } from "../state/in-memory-provider.js";
import { emptyBatch } from "../batch/batch.js";
import { partialAggregate, partialFields } from "./partial-aggregate-exec.js";
import { aggregateExec, aggregateRunner, aggregateSpec, batchOf, field, plainRows, testContext } from "./test-support.js";

const eventFields = [field("k", "string"), field("t", "timestamp"), field("x", "int32")];
const events = (rows: [string | null, number, number | null][]) => batchOf(eventFields, rows.map(([k, t, x]) => ({ k, t, x })));

/** count(*) and sum(x) per 10 ms tumbling window and key. */
const windowedSpec = aggregateSpec({
  keys: [field("k", "string")],
  window: { kind: "tumbling", sizeMs: 10 },
  aggs: [
    { fn: "count", input: -1, name: "n" },
    { fn: "sum", input: 2, name: "total", type: "int32" },
  ],
  eventTimeKey: "window",
});

describe("AggregateStateExec: final values", () => {
  it("finishes every aggregate with its final type; all-null groups give null, count counts non-nulls", () => {
    const spec = aggregateSpec({
      keys: [field("k", "string")],
      aggs: [
        { fn: "count", input: -1, name: "n" },
        { fn: "count", input: 1, name: "nv" },
        { fn: "sum", input: 1, name: "sum", type: "int64" },
        { fn: "avg", input: 1, name: "avg", type: "int64" },
        { fn: "min", input: 1, name: "min", type: "int64" },
        { fn: "max", input: 2, name: "max", type: "string" },
        { fn: "first", input: 2, name: "first", type: "string" },
        { fn: "last", input: 1, name: "last", type: "int64" },
      ],
    });
    const input = batchOf(
      [field("k", "string"), field("v", "int64"), field("s", "string")],
      [
        { k: "a", v: 4, s: null },
        { k: "b", v: null, s: "q" },
        { k: "a", v: -1, s: "y" },
        { k: "a", v: 2, s: "yy" },
      ],
    );
    const run = aggregateRunner(spec, "complete");
    const { rows } = run.batch([input], null);
    expect(run.exec.outputFields.map((f) => `${f.name}:${f.type}`)).toEqual([
      "k:string",
      "n:int64",
      "nv:int64",
      "sum:int64",
      "avg:float64",
      "min:int64",
      "max:string",
      "first:string",
      "last:int64",
    ]);
    expect(rows).toEqual([
      { k: "a", n: 3, nv: 3, sum: 5, avg: 5 / 3, min: -1, max: "yy", first: null, last: 2 },
      { k: "b", n: 1, nv: 0, sum: null, avg: null, min: null, max: "q", first: "q", last: null },
    ]);
  });

  it("sorts output by keys in key order: nulls first, windows by start", () => {
    const run = aggregateRunner(windowedSpec, "complete");
    const { rows } = run.batch(
      [
        events([
          ["b", 15, 1],
          ["a", 15, 1],
          [null, 15, 1],
          ["b", 5, 1],
        ]),
      ],
      null,
    );
    expect(rows.map((r) => [r.window, r.k])).toEqual([
      [[0, 10], "b"],
      [[10, 20], null],
      [[10, 20], "a"],
      [[10, 20], "b"],
    ]);
  });
});

/** Deterministic rows for the split test: a few keys (and null), times over 100 ms, some null values. */
function generatedRows(n: number) {
  const keys = ["ant", "bee", null, "cat", "é"];
  const rows: { k: string | null; t: number; x: number | null; s: string | null }[] = [];
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < n; i++) {
    rows.push({
      k: keys[Math.floor(next() * keys.length)]!,
      t: Math.floor(next() * 100) - 20,
      x: next() < 0.2 ? null : Math.floor(next() * 1000) - 500,
      s: next() < 0.2 ? null : `s${Math.floor(next() * 50)}`,
    });
  }
  return rows;
}

describe("AggregateStateExec: partial + final equals one-shot aggregation", () => {
  const fields = [field("k", "string"), field("t", "timestamp"), field("x", "int32"), field("s", "string")];
  const spec = aggregateSpec({
    keys: [field("k", "string")],
    window: { kind: "sliding", sizeMs: 20, slideMs: 10 },
    aggs: [
      { fn: "count", input: -1, name: "n" },
      { fn: "count", input: 2, name: "nx" },
      { fn: "sum", input: 2, name: "sum", type: "int32" },
      { fn: "avg", input: 2, name: "avg", type: "int32" },
      { fn: "min", input: 2, name: "min", type: "int32" },
      { fn: "max", input: 3, name: "max", type: "string" },
      { fn: "first", input: 2, name: "first", type: "int32" },
      { fn: "last", input: 3, name: "last", type: "string" },
    ],
  });
  const rows = generatedRows(500);

  /** The same aggregation computed row by row over plain objects. */
  function reference() {
    const groups = new Map<string, { window: number[]; k: string | null; xs: (number | null)[]; ss: (string | null)[] }>();
    for (const r of rows) {
      for (const start of [Math.floor(r.t / 10) * 10 - 10, Math.floor(r.t / 10) * 10]) {
        const id = JSON.stringify([start, r.k]);
        const g = groups.get(id) ?? { window: [start, start + 20], k: r.k, xs: [], ss: [] };
        g.xs.push(r.x);
        g.ss.push(r.s);
        groups.set(id, g);
      }
    }
    const compareKeys = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return [...groups.values()]
      .sort((a, b) => a.window[0]! - b.window[0]! || compareKeys(a.k, b.k))
      .map(({ window, k, xs, ss }) => {
        const nums = xs.filter((x): x is number => x !== null);
        const strs = ss.filter((s): s is string => s !== null).sort(compareKeys);
        const sum = nums.reduce((a, b) => a + b, 0);
        return {
          window,
          k,
          n: xs.length,
          nx: nums.length,
          sum: nums.length ? sum : null,
          avg: nums.length ? sum / nums.length : null,
          min: nums.length ? Math.min(...nums) : null,
          max: strs.length ? strs[strs.length - 1] : null,
          first: xs[0],
          last: ss[ss.length - 1],
        };
      });
  }

  const splitInto = (pieces: number): Batch[] => {
    const size = Math.ceil(rows.length / pieces);
    return Array.from({ length: pieces }, (_, i) => batchOf(fields, rows.slice(i * size, (i + 1) * size)));
  };

  for (const pieces of [1, 2, 7]) {
    it(`in one batch of ${pieces} split(s)`, () => {
      const run = aggregateRunner(spec, "complete");
      const { rows: out } = run.batch(splitInto(pieces), null);
      expect(out).toEqual(reference());
    });
  }

  it("across 7 micro-batches, state carried through commits", () => {
    const run = aggregateRunner(spec, "complete");
    let last: Record<string, unknown>[] = [];
    for (const piece of splitInto(7)) last = run.batch([piece], null).rows;
    expect(last).toEqual(reference());
  });
});

describe("AggregateStateExec: output modes with a moving watermark", () => {
  /** Batches of the scenario; watermarks null, 5, 12, 30 (the last batch has no data). */
  const scenario: [Batch[], number | null][] = [
    [[events([["a", 1, 1], ["a", 2, 2], ["a", 11, 3]])], null],
    [[events([["a", 3, 4], ["a", 25, 5]])], 5],
    // t = 4 is for [0, 10): not late by the previous batch's watermark (5), so it counts, and the
    // window is final by this batch's (12): emitted and evicted now (Spark 3.4+).
    [[events([["a", 4, 100], ["a", 15, 6]])], 12],
    [[], 30],
  ];
  const run = (mode: "append" | "update" | "complete") => {
    const r = aggregateRunner(windowedSpec, mode);
    return scenario.map(([inputs, wm]) => r.batch(inputs, wm));
  };
  const w = (start: number, n: number, total: number) => ({ window: [start, start + 10], k: "a", n, total });

  it("update emits the groups each batch changed and evicts final ones", () => {
    const out = run("update");
    expect(out.map((b) => b.rows)).toEqual([[w(0, 2, 3), w(10, 1, 3)], [w(0, 3, 7), w(20, 1, 5)], [w(0, 4, 107), w(10, 2, 9)], []]);
    expect(out.map((b) => b.workerDropped)).toEqual([0, 0, 0, 0]);
    expect(out.map((b) => [b.metrics.numRowsTotal, b.metrics.numRowsUpdated, b.metrics.numRowsRemoved])).toEqual([
      [2, 2, 0],
      [3, 2, 0],
      [2, 2, 1],
      [0, 0, 2],
    ]);
  });

  it("complete emits every group every batch and evicts nothing", () => {
    const out = run("complete");
    expect(out[2]!.rows).toEqual([w(0, 4, 107), w(10, 2, 9), w(20, 1, 5)]);
    expect(out[3]!.rows).toEqual(out[2]!.rows);
    expect(out.map((b) => b.metrics.numRowsRemoved)).toEqual([0, 0, 0, 0]);
  });

  it("append emits each window once, when its end reaches the watermark", () => {
    const out = run("append");
    expect(out.map((b) => b.rows)).toEqual([[], [], [w(0, 4, 107)], [w(10, 2, 9), w(20, 1, 5)]]);
    expect(out.map((b) => b.metrics.operatorName)).toEqual(Array(4).fill("stateStoreSave"));
  });

  it("drops and counts rows of a window already evicted, when a partial brings them anyway", () => {
    const r = aggregateRunner(windowedSpec, "append");
    r.batch([events([["a", 1, 1]])], null);
    expect(r.batch([], 10).rows).toEqual([w(0, 1, 1)]);
    // A partial made without the watermark still carries the evicted window [0, 10): 2 input rows.
    const partial = partialAggregate(events([["a", 2, 1], ["a", 3, 1], ["a", 14, 1]]), windowedSpec, null).batch;
    r.exec.process(partial);
    const output = r.exec.onWatermark(20);
    r.exec.commit(2);
    const metrics = r.exec.lastMetrics()!;
    expect(plainRows(output)).toEqual([w(10, 1, 1)]);
    expect([metrics.numRowsDroppedByWatermark, metrics.numRowsTotal]).toEqual([2, 0]);
  });

  it("emits a timestamp-keyed group in append mode once the key is at or before the watermark", () => {
    const spec = aggregateSpec({ keys: [field("t", "timestamp")], aggs: [{ fn: "count", input: -1, name: "n" }], eventTimeKey: "t" });
    const r = aggregateRunner(spec, "append");
    const rows = (ts: number[]) => batchOf([field("t", "timestamp")], ts.map((t) => ({ t })));
    expect(r.batch([rows([5, 5, 9])], null).rows).toEqual([]);
    expect(r.batch([rows([9])], 5).rows).toEqual([{ t: 5, n: 2 }]);
    expect(r.batch([], 9).rows).toEqual([{ t: 9, n: 2 }]);
  });

  it("reports state metrics: memory, and rows dropped by the exec itself only", () => {
    const out = run("update");
    for (const b of out) {
      expect(b.metrics.memoryUsedBytes).toBeGreaterThan(0);
      expect(b.metrics.numRowsDroppedByWatermark).toBe(0);
      expect(b.metrics.commitTimeMs).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("AggregateStateExec: recovery", () => {
  it("continues from the last committed version after a restart, and re-runs a batch from the version before it", () => {
    const provider = new InMemoryStateStoreProvider();
    const first = aggregateRunner(windowedSpec, "update", provider.load(7, -1));
    first.batch([events([["a", 1, 1]])], null); // commits version 0
    first.batch([events([["a", 2, 10]])], null); // commits version 1
    // The query stops; a new run loads version 1 and goes on.
    const restarted = aggregateRunner(windowedSpec, "update", provider.load(7, 1));
    expect(restarted.batch([events([["a", 3, 100]])], null).rows).toEqual([{ window: [0, 10], k: "a", n: 3, total: 111 }]);
    // Batch 2 crashed after its commit; re-running it from version 1 gives the same answer, not a double count.
    const rerun = aggregateRunner(windowedSpec, "update", provider.load(7, 1));
    expect(rerun.batch([events([["a", 3, 100]])], null).rows).toEqual([{ window: [0, 10], k: "a", n: 3, total: 111 }]);
  });

  it("requires each finished batch to be committed before the next one", () => {
    const exec = aggregateExec(windowedSpec);
    exec.open(testContext({ mode: "update" }));
    const nothing = emptyBatch(partialFields(windowedSpec));
    exec.process(nothing);
    exec.onWatermark(null);
    expect(() => exec.process(nothing)).toThrow(/not committed/);
    exec.commit(0);
    expect(() => exec.process(nothing)).not.toThrow();
  });
});
