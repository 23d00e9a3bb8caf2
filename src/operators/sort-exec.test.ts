import { describe, expect, it } from "vitest";
import { field } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import type { Expr } from "../expr/ast.js";
import type { SortKey } from "../plan/logical.js";
import { limitBatch } from "./limit-exec.js";
import { sortBatch } from "./sort-exec.js";

const by = (name: string, ascending = true): SortKey => ({ expr: { kind: "col", name } as Expr, ascending });

const batch = rowsToBatch(
  [
    { k: "b", x: 2, n: 0 },
    { k: null, x: 1, n: 1 },
    { k: "a", x: null, n: 2 },
    { k: "b", x: NaN, n: 3 },
    { k: "a", x: 1, n: 4 },
    { k: "é", x: -1, n: 5 },
  ],
  [field("k", "string"), field("x", "float64"), field("n", "int32", false)],
);
const order = (keys: SortKey[]): unknown[] => batchToRows(sortBatch(batch, keys)).map((r) => r.n);

describe("sortBatch", () => {
  it("puts nulls first ascending and NaN after every other number", () => {
    expect(order([by("x")])).toEqual([2, 5, 1, 4, 0, 3]);
  });

  it("puts nulls last descending", () => {
    expect(order([by("x", false)])).toEqual([3, 0, 1, 4, 5, 2]);
  });

  it("is stable: equal keys keep their input order", () => {
    expect(order([by("k")])).toEqual([1, 2, 4, 0, 3, 5]);
    expect(order([by("k", false)])).toEqual([5, 0, 3, 2, 4, 1]);
  });

  it("orders by several keys, each with its own direction", () => {
    expect(order([by("k"), by("x", false)])).toEqual([1, 4, 2, 3, 0, 5]);
  });

  it("sorts by an expression and by window start then end", () => {
    const negX: SortKey = { expr: { kind: "call", fn: "negate", args: [{ kind: "col", name: "x" }] }, ascending: true };
    expect(order([negX])).toEqual([2, 0, 1, 4, 5, 3]);
    const w = (s: number, e: number) => ({ w: { start: new Date(s), end: new Date(e) } });
    const windows = rowsToBatch([w(10, 20), w(0, 30), w(0, 10)], [field("w", "window")]);
    expect(batchToRows(sortBatch(windows, [by("w")])).map((r) => (r.w as { end: Date }).end.getTime())).toEqual([10, 30, 20]);
  });

  it("returns the batch itself when it is already in order", () => {
    expect(sortBatch(batch, [by("n")])).toBe(batch);
  });
});

describe("limitBatch", () => {
  it("keeps the first n rows as zero-copy slices", () => {
    const out = limitBatch(batch, 2);
    expect(out.numRows).toBe(2);
    expect(out.columns[1].values.buffer).toBe(batch.columns[1].values.buffer);
    expect(batchToRows(out).map((r) => r.n)).toEqual([0, 1]);
    expect(limitBatch(batch, 10)).toBe(batch);
    expect(limitBatch(batch, 0).numRows).toBe(0);
  });

  it("rejects a negative limit", () => {
    expect(() => limitBatch(batch, -1)).toThrow(RangeError);
  });
});
