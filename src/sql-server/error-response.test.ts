import { describe, expect, it } from "vitest";
import { AnalysisError, NumericRangeError, ParseException } from "../errors/errors.js";
import { errorReport } from "./error-response.js";
import { splitStatements, substituteParameters } from "./sql-text.js";

describe("errors as Postgres error responses", () => {
  const sourceOf = (query: string, index: number, literals: string[] = []) => {
    const statement = splitStatements(query)[index]!;
    const { text, originalPosition } = substituteParameters(statement, literals);
    return { query, start: statement.start, parsed: text, originalPosition };
  };

  it("gives a parse error 42601 and its position in characters of the whole query", () => {
    const query = "SELECT 'é'; SELECT *\nFORM t";
    const e = new ParseException("[PARSE_SYNTAX_ERROR] Syntax error at or near 'FORM'. SQLSTATE: 42601 (line 2, pos 0)\n\n== SQL ==\nSELECT *\nFORM t\n^^^\n", 2, 0, {
      errorClass: "PARSE_SYNTAX_ERROR",
      sqlState: "42601",
    });
    expect(errorReport(e, sourceOf(query, 1))).toEqual({
      severity: "ERROR",
      code: "42601",
      message: "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FORM'.",
      position: query.indexOf("FORM") + 1,
    });
  });

  it("points at the placeholder when the error is inside a substituted parameter", () => {
    const query = "SELECT a FROM t WHERE b = $1 AND";
    const source = sourceOf(query, 0, ["'a long literal'"]);
    const at = source.parsed.indexOf("long");
    const e = new ParseException("[PARSE_SYNTAX_ERROR] Syntax error. SQLSTATE: 42601 (line 1, pos 0)", 1, at, { errorClass: "PARSE_SYNTAX_ERROR", sqlState: "42601" });
    expect(errorReport(e, source).position).toBe(query.indexOf("$1") + 1);
  });

  it("passes Spark's SQLSTATE through and reads an analysis error's position from its message", () => {
    const query = "SELECT * FROM nowhere";
    const e = new AnalysisError("[TABLE_OR_VIEW_NOT_FOUND] The table or view `nowhere` cannot be found. SQLSTATE: 42P01; line 1 pos 14\n\n== SQL ==\n...", {
      errorClass: "TABLE_OR_VIEW_NOT_FOUND",
      sqlState: "42P01",
    });
    expect(errorReport(e, sourceOf(query, 0))).toEqual({
      severity: "ERROR",
      code: "42P01",
      message: "[TABLE_OR_VIEW_NOT_FOUND] The table or view `nowhere` cannot be found.",
      position: 15,
    });
  });

  it("maps Sluice's other errors to the nearest SQLSTATE, and anything else to XX000", () => {
    expect(errorReport(new AnalysisError("cannot resolve column")).code).toBe("42000");
    expect(errorReport(new NumericRangeError("too big")).code).toBe("22003");
    expect(errorReport(new TypeError("x is undefined"))).toEqual({ severity: "ERROR", code: "XX000", message: "internal error: x is undefined" });
  });
});
