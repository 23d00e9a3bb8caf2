import { describe, expect, it } from "vitest";
import { field, makeBatch } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError, ParseException } from "../errors/errors.js";
import type { Expr } from "../expr/ast.js";
import { compileExpr, evaluate } from "../expr/compile.js";
import { outputName } from "../expr/resolve.js";
import { parseSqlExpression } from "./expression-parser.js";

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

  it("reports a syntax error as Spark's ParseException: class, SQLSTATE, line and position, and a caret under the token", () => {
    expect(() => parseSqlExpression("a + (b))")).toThrow(AnalysisError);
    expect(() => parseSqlExpression("a + (b))")).toThrow(ParseException);
    expect(() => parseSqlExpression("a + (b))")).toThrow(
      "[PARSE_SYNTAX_ERROR] Syntax error at or near ')': extra input ')'. SQLSTATE: 42601 (line 1, pos 7)\n\n== SQL ==\na + (b))\n-------^^^\n",
    );
    expect(() => parseSqlExpression("a +")).toThrow("[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601 (line 1, pos 3)\n\n== SQL ==\na +\n---^^^\n");
    expect(() => parseSqlExpression("a = 'open")).toThrow("Syntax error at or near ''': unclosed string literal. SQLSTATE: 42601 (line 1, pos 4)\n\n== SQL ==\na = 'open\n----^^^\n");
    expect(() => parseSqlExpression("CAST(a AS decimal)")).toThrow('[UNSUPPORTED_DATATYPE] Unsupported data type "DECIMAL"; Sluice casts to STRING,');
    expect(() => parseSqlExpression("sqrt(a)")).toThrow(
      "[UNRESOLVED_ROUTINE] Cannot resolve routine `sqrt` on search path [`system`.`builtin`, `system`.`session`]. SQLSTATE: 42883 (line 1, pos 0)\n\n== SQL ==\nsqrt(a)\n^^^\n",
    );
    expect(() => parseSqlExpression("a # b")).toThrow("Syntax error at or near '#'. SQLSTATE: 42601 (line 1, pos 2)");
    expect(() => parseSqlExpression("t + interval 1 month")).toThrow("months have no fixed length");
    expect(() => parseSqlExpression("count(DISTINCT a)")).toThrow("[UNSUPPORTED_FEATURE] Sluice has no DISTINCT aggregates (count(DISTINCT ...));");
    expect(() => parseSqlExpression("upper(DISTINCT a)")).toThrow("[PARSE_SYNTAX_ERROR] Syntax error at or near 'upper'.");
  });

  it("gives the error's line, position, class and SQLSTATE as fields", () => {
    const error = (() => {
      try {
        parseSqlExpression("a +\n  (b *)");
      } catch (e) {
        return e as ParseException;
      }
      throw new Error("no error");
    })();
    expect([error.line, error.column, error.errorClass, error.sqlState]).toEqual([2, 6, "PARSE_SYNTAX_ERROR", "42601"]);
    expect(error.message).toBe("[PARSE_SYNTAX_ERROR] Syntax error at or near ')'. SQLSTATE: 42601 (line 2, pos 6)\n\n== SQL ==\na +\n  (b *)\n------^^^\n");
  });

  it("checks names and types only when analysed, as an untyped column", () => {
    expect(() => compileExpr(parseSqlExpression("nope + 1"), batch.fields)).toThrow(AnalysisError);
    expect(() => compileExpr(parseSqlExpression("page + 1"), batch.fields)).toThrow('arithmetic "+" needs numbers, but got string');
  });
});
