import { describe, expect, it } from "vitest";
import { emptyBatch, field } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import type { Expr } from "../expr/ast.js";
import { filterBatch } from "./filter-exec.js";
import { projectBatch } from "./project-exec.js";

const col = (name: string): Expr => ({ kind: "col", name });

const fields: Fields = [field("id", "int32", false), field("x", "float64"), field("s", "string")];
const batch = rowsToBatch(
  [
    { id: 1, x: 0.5, s: "a" },
    { id: 2, x: null, s: "b" },
    { id: 3, x: 2.5, s: null },
    { id: 4, x: 3, s: "d" },
  ],
  fields,
);
const xAbove1: Expr = { kind: "cmp", op: ">", left: col("x"), right: { kind: "lit", value: 1, type: "int32" } };

describe("filterBatch", () => {
  it("keeps the rows where the condition is true; a null condition drops the row", () => {
    expect(batchToRows(filterBatch(batch, xAbove1))).toEqual([
      { id: 3, x: 2.5, s: null },
      { id: 4, x: 3, s: "d" },
    ]);
  });

  it("returns the same batch when every row passes", () => {
    const always: Expr = { kind: "isNull", child: col("id"), negated: true };
    expect(filterBatch(batch, always)).toBe(batch);
  });

  it("handles an empty batch and a condition that drops everything", () => {
    const empty = emptyBatch(fields);
    expect(filterBatch(empty, xAbove1)).toBe(empty);
    const none = filterBatch(batch, { kind: "lit", value: false, type: "boolean" });
    expect(none.numRows).toBe(0);
    expect(batchToRows(none)).toEqual([]);
  });

  it("rejects a condition that is not boolean", () => {
    expect(() => filterBatch(batch, col("x"))).toThrow(AnalysisError);
  });
});

describe("projectBatch", () => {
  it("names columns by alias or Spark's auto-name and passes plain columns through without copying", () => {
    const out = projectBatch(batch, [
      col("s"),
      { kind: "alias", child: { kind: "arith", op: "*", left: col("x"), right: { kind: "lit", value: 2, type: "int32" } }, name: "x2" },
      { kind: "arith", op: "+", left: col("id"), right: { kind: "lit", value: 1, type: "int32" } },
    ]);
    expect(out.fields).toEqual([field("s", "string"), field("x2", "float64"), field("(id + 1)", "int32", false)]);
    expect(out.columns[0]).toBe(batch.columns[2]);
    expect(batchToRows(out)).toEqual([
      { s: "a", x2: 1, "(id + 1)": 2 },
      { s: "b", x2: null, "(id + 1)": 3 },
      { s: null, x2: 5, "(id + 1)": 4 },
      { s: "d", x2: 6, "(id + 1)": 5 },
    ]);
  });

  it("keeps the row count when projecting only literals", () => {
    const out = projectBatch(batch, [{ kind: "lit", value: "k", type: "string" }]);
    expect(out.numRows).toBe(4);
    expect(batchToRows(out).map((r) => r.k)).toEqual(["k", "k", "k", "k"]);
  });
});

describe("user text stays data", () => {
  it("treats hostile column names and string literals as plain values", () => {
    const hostile = '"); globalThis.pwned = true; ("';
    const weird = rowsToBatch(
      [{ [hostile]: "x'); globalThis.pwned = true; //" }, { [hostile]: "ok" }],
      [field(hostile, "string")],
    );
    const condition: Expr = { kind: "cmp", op: "=", left: col(hostile), right: { kind: "lit", value: "x'); globalThis.pwned = true; //", type: "string" } };
    const out = projectBatch(filterBatch(weird, condition), [{ kind: "call", fn: "upper", args: [col(hostile)] }]);
    expect(batchToRows(out)).toEqual([{ [`upper(${hostile})`]: "X'); GLOBALTHIS.PWNED = TRUE; //" }]);
    expect((globalThis as { pwned?: boolean }).pwned).toBeUndefined();
  });
});
