import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AnalysisError } from "../errors/errors.js";
import { sessionsPerFile } from "../testing/fixtures.js";

/** Errors of queries that parse but cannot run: Spark's error classes and SQLSTATEs, where in the query, and a caret. */
const T = z.object({ k: z.string(), v: z.int32() });
const sessionFor = sessionsPerFile("sql-analysis-errors");

function session() {
  const s = sessionFor(0);
  const df = s.createDataFrame([{ k: "a", v: 1 }], T);
  df.createOrReplaceTempView("t");
  df.createOrReplaceTempView("u");
  return s;
}

function failure(sql: string): { message: string; errorClass: string | undefined; sqlState: string | undefined } {
  try {
    session().sql(sql);
  } catch (e) {
    if (!(e instanceof AnalysisError)) throw e;
    return { message: e.message, errorClass: e.errorClass, sqlState: e.sqlState };
  }
  throw new Error(`no error for ${sql}`);
}

describe("analysis errors of SQL queries", () => {
  it("a column outside GROUP BY is MISSING_AGGREGATION (42803)", () => {
    expect(failure("SELECT k, v FROM t GROUP BY k")).toEqual({
      message:
        '[MISSING_AGGREGATION] The non-aggregating expression "v" is based on columns which are not participating in the GROUP BY clause. Add the columns or the expression to the GROUP BY, aggregate the expression, or use first() if you do not care which of the values within a group is returned. SQLSTATE: 42803; line 1 pos 10\n\n== SQL ==\nSELECT k, v FROM t GROUP BY k\n----------^^^\n',
      errorClass: "MISSING_AGGREGATION",
      sqlState: "42803",
    });
  });

  it("a name two relations have is AMBIGUOUS_REFERENCE (42704)", () => {
    expect(failure("SELECT k FROM t JOIN u ON t.k = u.k")).toEqual({
      message: "[AMBIGUOUS_REFERENCE] Reference `k` is ambiguous, could be: [`t`.`k`, `u`.`k`]. SQLSTATE: 42704; line 1 pos 7\n\n== SQL ==\nSELECT k FROM t JOIN u ON t.k = u.k\n-------^^^\n",
      errorClass: "AMBIGUOUS_REFERENCE",
      sqlState: "42704",
    });
  });

  it("a UNION of different widths is NUM_COLUMNS_MISMATCH (42826)", () => {
    expect(failure("SELECT k, v FROM t\nUNION ALL SELECT k FROM u")).toMatchObject({
      message:
        "[NUM_COLUMNS_MISMATCH] UNION can only be performed on inputs with the same number of columns, but the first input has 2 columns and the second input has 1 columns. SQLSTATE: 42826; line 2 pos 0\n\n== SQL ==\nSELECT k, v FROM t\nUNION ALL SELECT k FROM u\n^^^\n",
      sqlState: "42826",
    });
  });

  it("a DISTINCT aggregate is refused: Sluice has none", () => {
    expect(failure("SELECT k, count(DISTINCT v) FROM t GROUP BY k")).toMatchObject({
      message:
        "[UNSUPPORTED_FEATURE] Sluice has no DISTINCT aggregates (count(DISTINCT ...)); deduplicate in a subquery first: SELECT k, count(x) FROM (SELECT DISTINCT k, x FROM t) GROUP BY k. SQLSTATE: 0A000; line 1 pos 10\n\n== SQL ==\nSELECT k, count(DISTINCT v) FROM t GROUP BY k\n----------^^^\n",
      sqlState: "0A000",
    });
  });

  it("an unknown function is UNRESOLVED_ROUTINE (42883)", () => {
    expect(failure("SELECT sqrt(v) FROM t")).toMatchObject({ errorClass: "UNRESOLVED_ROUTINE", sqlState: "42883" });
  });

  it("a qualified column of a relation FROM does not name", () => {
    expect(failure("SELECT x.k FROM t").message).toBe(
      "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with name `x`.`k` cannot be resolved. Did you mean one of the following? [`t`.`k`, `t`.`v`]. SQLSTATE: 42703; line 1 pos 7\n\n== SQL ==\nSELECT x.k FROM t\n-------^^^\n",
    );
  });

  it("Sluice's own type errors point at the clause they are about", () => {
    expect(failure("SELECT k,\n       v + 'x' FROM t")).toEqual({
      message: "arithmetic \"+\" needs numbers, but got string; line 2 pos 7\n\n== SQL ==\nSELECT k,\n       v + 'x' FROM t\n-------^^^\n",
      errorClass: undefined,
      sqlState: undefined,
    });
    expect(failure("SELECT k FROM t WHERE v").message).toBe('filter condition "v" must be boolean, but is int32; line 1 pos 22\n\n== SQL ==\nSELECT k FROM t WHERE v\n----------------------^^^\n');
  });
});
