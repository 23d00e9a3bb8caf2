import { describe, expect, it } from "vitest";
import { field, makeBatch } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError } from "../errors/errors.js";
import type { Expr } from "./ast.js";
import { compileExpr, evaluate } from "./compile.js";
import { outputName } from "./resolve.js";
import { parseSqlExpression } from "./sql-parser.js";

const batch = rowsToBatch(
  [
    { amount: 12.5, qty: 3, page: "home", t: new Date("2024-01-01T10:00:00Z") },
    { amount: 4, qty: null, page: "cart", t: new Date("2024-01-01T11:30:00Z") },
  ],
  [field("amount", "float64"), field("qty", "int32", true), field("page", "string"), field("t", "timestamp")],
);

function values(sql: string): unknown[] {
  const e = parseSqlExpression(sql);
  const type = compileExpr(e, batch.fields).type.type;
  return batchToRows(makeBatch([field("v", type)], [evaluate(e, batch)])).map((r) => r.v);
}

describe("expr(): SQL expressions", () => {
  it("parses arithmetic with SQL precedence, comparisons and logic", () => {
    expect(values("amount * 2 + qty")).toEqual([28, null]);
    expect(values("amount - (qty + 1) * 2")).toEqual([4.5, null]);
    expect(values("-amount % 5")).toEqual([-2.5, -4]);
    expect(values("amount > 10 AND page <> 'cart' OR NOT (qty IS NOT NULL)")).toEqual([true, true]);
    expect(values("qty BETWEEN 1 AND 3")).toEqual([true, null]);
    expect(values("page NOT IN ('home', \"shop\")")).toEqual([false, true]);
    expect(values("page == 'home'")).toEqual([true, false]);
  });

  it("casts, calls Sluice's functions, adds intervals and reads CASE", () => {
    expect(values("CAST(amount AS INT)")).toEqual([12, 4]);
    expect(values("upper(concat(page, '-', CAST(qty AS string)))")).toEqual(["HOME-3", null]);
    expect(values("substr(page, 2, 2)")).toEqual(["om", "ar"]);
    expect(values("t + interval 1 hour 30 minutes")).toEqual([new Date("2024-01-01T11:30:00Z"), new Date("2024-01-01T13:00:00Z")]);
    expect(values("t - INTERVAL '1 day'")).toEqual([new Date("2023-12-31T10:00:00Z"), new Date("2023-12-31T11:30:00Z")]);
    expect(values("timestamp_seconds(3600)")).toEqual([new Date("1970-01-01T01:00:00Z"), new Date("1970-01-01T01:00:00Z")]);
    expect(values("CASE WHEN qty > 2 THEN 'many' WHEN qty IS NULL THEN 'none' ELSE 'few' END")).toEqual(["many", "none"]);
    expect(values("hour(t)")).toEqual([10, 11]);
  });

  it("types literals as Spark: INT, BIGINT beyond it or with L, DOUBLE for fractions", () => {
    const lit = (sql: string): Expr => parseSqlExpression(sql);
    expect(lit("7")).toEqual({ kind: "lit", value: 7, type: "int32" });
    expect(lit("3000000000")).toEqual({ kind: "lit", value: 3_000_000_000, type: "int64" });
    expect(lit("7L")).toEqual({ kind: "lit", value: 7, type: "int64" });
    expect(lit("-1.5")).toEqual({ kind: "lit", value: -1.5, type: "float64" });
    expect(lit("1e3")).toEqual({ kind: "lit", value: 1000, type: "float64" });
    expect(lit("'it\\'s'")).toEqual({ kind: "lit", value: "it's", type: "string" });
    expect(lit("null")).toEqual({ kind: "lit", value: null, type: "string" });
  });

  it("names columns as Spark, aliases with AS, reads backquoted and window member names", () => {
    expect(outputName(parseSqlExpression("amount * 2 AS doubled"))).toBe("doubled");
    expect(parseSqlExpression("`my col` + 1")).toEqual({ kind: "arith", op: "+", left: { kind: "col", name: "my col" }, right: { kind: "lit", value: 1, type: "int32" } });
    expect(parseSqlExpression("window.start")).toEqual({ kind: "col", name: "window.start" });
    expect(parseSqlExpression("count(*)")).toEqual({ kind: "agg", fn: "count", child: null });
    expect(parseSqlExpression("sum(qty)")).toEqual({ kind: "agg", fn: "sum", child: { kind: "col", name: "qty" } });
  });

  it("reports a syntax error with its position and a caret under it", () => {
    expect(() => parseSqlExpression("a + (b))")).toThrow(AnalysisError);
    expect(() => parseSqlExpression("a + (b))")).toThrow("expr(): expected the end of the expression but found ')' at position 8:\na + (b))\n       ^");
    expect(() => parseSqlExpression("a +")).toThrow("expected an expression but found the end of the text at position 4:\na +\n   ^");
    expect(() => parseSqlExpression("a = 'open")).toThrow("unterminated string literal at position 5:\na = 'open\n    ^");
    expect(() => parseSqlExpression("CAST(a AS decimal)")).toThrow("unknown type 'decimal'");
    expect(() => parseSqlExpression("sqrt(a)")).toThrow("Sluice has no function 'sqrt' at position 1:\nsqrt(a)\n^");
    expect(() => parseSqlExpression("a # b")).toThrow("unexpected character '#' at position 3");
    expect(() => parseSqlExpression("t + interval 1 month")).toThrow("months have no fixed length");
  });

  it("checks names and types only when analysed, as an untyped column", () => {
    expect(() => compileExpr(parseSqlExpression("nope + 1"), batch.fields)).toThrow(AnalysisError);
    expect(() => compileExpr(parseSqlExpression("page + 1"), batch.fields)).toThrow('arithmetic "+" needs numbers, but got string');
  });
});
