import { AnalysisError, ParseException } from "../errors/errors.js";

/**
 * Spark's error text for SQL: `[CLASS] message SQLSTATE: 42601 (line 1, pos 7)`, then the text
 * with a line of dashes and carets under the offending token, as Spark's ParseException prints it.
 * Lines count from 1, positions within a line from 0 (Spark's convention).
 */

/** 1-based line and 0-based position within the line of an offset into `sql`. */
export function lineAndColumn(sql: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < sql.length; i++) {
    if (sql[i] === "\n") {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart };
}

/** The `== SQL ==` block: every line of the text, the caret line right under the offending one. */
export function sqlContext(sql: string, line: number, column: number): string {
  const lines = sql.split("\n");
  const above = lines.slice(0, line);
  const below = lines.slice(line);
  return ["== SQL ==", ...above, `${"-".repeat(column)}^^^`, ...below].join("\n") + "\n";
}

/** Spark's SQLSTATEs of the error classes Sluice's SQL front end raises. */
export const SQL_STATES = {
  PARSE_SYNTAX_ERROR: "42601",
  UNRESOLVED_ROUTINE: "42883",
  UNSUPPORTED_DATATYPE: "0A000",
  INVALID_INTERVAL_FORMAT: "22006",
  TABLE_OR_VIEW_NOT_FOUND: "42P01",
  "UNRESOLVED_COLUMN.WITH_SUGGESTION": "42703",
  "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION": "42703",
  AMBIGUOUS_REFERENCE: "42704",
  MISSING_AGGREGATION: "42803",
  TEMP_TABLE_OR_VIEW_ALREADY_EXISTS: "42P07",
  UNSUPPORTED_FEATURE: "0A000",
  NUM_COLUMNS_MISMATCH: "42826",
  "WRONG_NUM_ARGS.WITHOUT_SUGGESTION": "42605",
  INVALID_SQL_SYNTAX: "42000",
} as const;
export type SqlErrorClass = keyof typeof SQL_STATES;

/** A ParseException of `errorClass` at `offset` into `sql`. */
export function parseError(sql: string, offset: number, errorClass: SqlErrorClass, message: string): ParseException {
  const { line, column } = lineAndColumn(sql, offset);
  const sqlState = SQL_STATES[errorClass];
  const text = `[${errorClass}] ${message} SQLSTATE: ${sqlState} (line ${line}, pos ${column})\n\n${sqlContext(sql, line, column)}`;
  return new ParseException(text, line, column, { errorClass, sqlState });
}

/**
 * An analysis error of a SQL query (unknown view or column, a column outside GROUP BY, ...):
 * Spark's text, where it is in the query, and the same `== SQL ==` block as a parse error.
 */
export function sqlAnalysisError(sql: string, offset: number | undefined, errorClass: SqlErrorClass, message: string): AnalysisError {
  const sqlState = SQL_STATES[errorClass];
  if (offset === undefined) return new AnalysisError(`[${errorClass}] ${message} SQLSTATE: ${sqlState}`, { errorClass, sqlState });
  const { line, column } = lineAndColumn(sql, offset);
  return new AnalysisError(`[${errorClass}] ${message} SQLSTATE: ${sqlState}; line ${line} pos ${column}\n\n${sqlContext(sql, line, column)}`, {
    errorClass,
    sqlState,
  });
}

/** A name as Spark quotes it in messages: `name`, with backquotes doubled inside. */
export function quoteName(...parts: string[]): string {
  return parts.map((p) => `\`${p.replaceAll("`", "``")}\``).join(".");
}
