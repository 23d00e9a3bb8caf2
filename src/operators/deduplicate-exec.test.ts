import { describe, expect, it } from "vitest";
import { DeduplicateExec, type DeduplicateSpec } from "./deduplicate-exec.js";
import { batchOf, field, plainRows, testContext } from "./test-support.js";

const fields = [field("id", "string"), field("t", "timestamp"), field("v", "float64")];
const rows = (r: [string | null, number | null, number][]) => batchOf(fields, r.map(([id, t, v]) => ({ id, t, v })));

/** Drives a DeduplicateExec as the runtime does: process the batch, end it at its watermark, commit. */
function dedup(spec: Omit<DeduplicateSpec, "op" | "operatorId" | "inputFields">) {
  const exec = new DeduplicateExec(0, { op: "deduplicate", operatorId: 0, inputFields: fields, ...spec });
  const ctx = testContext({ mode: "append" });
  exec.open(ctx);
  let version = -1;
  let previous: number | null = null;
  return {
    exec,
    /** Rows are judged late by the previous batch's watermark (the first batch's own), keys forgotten by `watermarkMs`. */
    batch(input: ReturnType<typeof rows>, watermarkMs: number | null) {
      ctx.batch = { ...ctx.batch, watermarkMs, watermarkForLateEventsMs: previous ?? watermarkMs };
      previous = watermarkMs;
      const out = plainRows(exec.process(input));
      exec.onWatermark(watermarkMs);
      exec.commit(++version);
      return { out, metrics: exec.lastMetrics()! };
    },
  };
}

describe("DeduplicateExec", () => {
  it("keeps the first row of each key, in input order, across batches and forever without a watermark", () => {
    const d = dedup({ keyColumns: ["id"], eventTimeColumn: null, withinWatermarkDelayMs: null });
    const b0 = d.batch(rows([["a", 1, 1], ["b", 2, 2], ["a", 3, 3], [null, 4, 4], [null, 5, 5]]), null);
    expect(b0.out).toEqual([
      { id: "a", t: 1, v: 1 },
      { id: "b", t: 2, v: 2 },
      { id: null, t: 4, v: 4 },
    ]);
    expect(b0.metrics).toMatchObject({ operatorName: "dedupe", numRowsTotal: 3, numRowsUpdated: 3, numRowsRemoved: 0 });
    const b1 = d.batch(rows([["b", 100, 6], ["c", 100, 7]]), 1_000_000);
    expect(b1.out).toEqual([{ id: "c", t: 100, v: 7 }]);
    expect(b1.metrics).toMatchObject({ numRowsTotal: 4, numRowsUpdated: 1, numRowsRemoved: 0 });
  });

  it("with the event time among the keys: drops and counts late rows, and evicts keys the watermark passed", () => {
    const d = dedup({ keyColumns: ["id", "t"], eventTimeColumn: "t", withinWatermarkDelayMs: null });
    expect(d.batch(rows([["a", 10, 1], ["a", 10, 2], ["a", 20, 3]]), null).out.map((r) => r.v)).toEqual([1, 3]);
    // Watermark 10: (a, 10) is evicted; a new (a, 10) row is late, (a, 20) is still a duplicate.
    const b1 = d.batch(rows([["a", 10, 4], ["a", 20, 5], ["b", 11, 6]]), 10);
    expect(b1.out.map((r) => r.v)).toEqual([6]);
    expect(b1.metrics).toMatchObject({ numRowsDroppedByWatermark: 1, numRowsRemoved: 1, numRowsTotal: 2 });
  });

  it("drops late rows but keeps keys forever when the event time is not a key", () => {
    const d = dedup({ keyColumns: ["id"], eventTimeColumn: "t", withinWatermarkDelayMs: null });
    d.batch(rows([["a", 10, 1]]), null);
    const b1 = d.batch(rows([["b", 5, 2], ["a", 50, 3]]), 20);
    expect(b1.out).toEqual([]);
    expect(b1.metrics).toMatchObject({ numRowsDroppedByWatermark: 1, numRowsRemoved: 0, numRowsTotal: 1 });
  });

  it("within watermark: remembers a key until its first event time + delay passes the watermark", () => {
    const d = dedup({ keyColumns: ["id", "t"], eventTimeColumn: "t", withinWatermarkDelayMs: 10 });
    // The event time is not part of the key: (a, 1) and (a, 5) are duplicates.
    const b0 = d.batch(rows([["a", 1, 1], ["a", 5, 2], ["b", 3, 3]]), null);
    expect(b0.out.map((r) => r.v)).toEqual([1, 3]);
    expect(b0.metrics.operatorName).toBe("dedupeWithinWatermark");
    // Watermark 11: rows are checked against state first and expired keys evicted after, as in
    // Spark, so a (expiring at 11) still drops (a, 12) in this batch and is then forgotten.
    const b1 = d.batch(rows([["a", 12, 4], ["b", 12, 5]]), 11);
    expect(b1.out).toEqual([]);
    expect(b1.metrics).toMatchObject({ numRowsRemoved: 1, numRowsTotal: 1, numRowsUpdated: 0 });
    // Watermark 13: a is new again (now expiring at 24), b is still remembered (and forgotten at
    // the end of the batch), and (c, 13) is not late: rows are judged by the previous batch's
    // watermark, 11 (Spark 3.4+).
    const b2 = d.batch(rows([["a", 14, 6], ["b", 14, 7], ["c", 13, 8]]), 13);
    expect(b2.out.map((r) => r.v)).toEqual([6, 8]);
    expect(b2.metrics).toMatchObject({ numRowsDroppedByWatermark: 0, numRowsRemoved: 1, numRowsTotal: 2 });
    // Judged by 13 now: (d, 13) is late.
    const b3 = d.batch(rows([["b", 20, 9], ["a", 20, 10], ["d", 13, 11]]), 13);
    expect(b3.out.map((r) => r.v)).toEqual([9]);
    expect(b3.metrics.numRowsDroppedByWatermark).toBe(1);
  });

  it("passes the batch through untouched when every row is new", () => {
    const d = dedup({ keyColumns: ["id"], eventTimeColumn: null, withinWatermarkDelayMs: null });
    const input = rows([["x", 1, 1], ["y", 2, 2]]);
    expect(d.exec.process(input)).toBe(input);
  });
});
