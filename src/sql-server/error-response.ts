import { SluiceError } from "../errors/errors.js";
import type { ReportFields } from "./wire-writer.js";

/**
 * What a client is told when a statement fails: Postgres's SQLSTATE for the error, its message,
 * and where in the query text it is. Sluice's SQL errors carry Spark's error class and SQLSTATE
 * (Spark chose Postgres's codes: 42601 syntax error, 42P01 undefined table, 42703 undefined
 * column), which pass through as they are.
 */

/** An answer to a client with its SQLSTATE, raised inside the server; never thrown to Sluice's API users. */
export class PgError extends Error {
  override name = "PgError";
  constructor(
    readonly code: string,
    message: string,
    readonly extra: { readonly hint?: string; readonly detail?: string; readonly severity?: "ERROR" | "FATAL"; readonly position?: number } = {},
  ) {
    super(message);
  }
}

/** Postgres's SQLSTATEs that the server itself answers with. */
export const SQLSTATE = {
  syntaxError: "42601",
  featureNotSupported: "0A000",
  readOnlySqlTransaction: "25006",
  inFailedTransaction: "25P02",
  activeTransaction: "25001",
  noActiveTransaction: "25P01",
  undefinedObject: "42704",
  invalidParameterValue: "22023",
  invalidTextRepresentation: "22P02",
  protocolViolation: "08P01",
  invalidPassword: "28P01",
  invalidAuthorization: "28000",
  queryCanceled: "57014",
  tooManyConnections: "53300",
  adminShutdown: "57P01",
  undefinedPreparedStatement: "26000",
  undefinedCursor: "34000",
  internalError: "XX000",
} as const;

/** Spark's error classes by the SQLSTATE Postgres gives them, for errors that name a class but no state. */
const STATE_OF_CLASS: Readonly<Record<string, string>> = {
  PARSE_SYNTAX_ERROR: SQLSTATE.syntaxError,
  TABLE_OR_VIEW_NOT_FOUND: "42P01",
  UNRESOLVED_COLUMN: "42703",
};

/** Sluice's error classes (by name) that are not SQL errors, by the nearest Postgres SQLSTATE. */
const STATE_OF_NAME: Readonly<Record<string, string>> = {
  NumericRangeError: "22003", // numeric_value_out_of_range
  UdfError: "38000", // external_routine_exception
  OptionError: SQLSTATE.invalidParameterValue,
  AnalysisError: "42000", // syntax_error_or_access_rule_violation
};

/** Where a statement sits in the text the client sent, to turn an error's line and column into Postgres's position. */
export interface StatementSource {
  /** The whole query text of the Query or Parse message. */
  readonly query: string;
  /** The statement's offset in `query`. */
  readonly start: number;
  /** The text Sluice's parser read (the statement with parameters substituted). */
  readonly parsed: string;
  /** Maps an offset in `parsed` back to the statement text. */
  readonly originalPosition: (at: number) => number;
}

/** An error as the client is told it: fields of an ErrorResponse. */
export function errorReport(error: unknown, source?: StatementSource): ReportFields {
  if (error instanceof PgError) {
    const { severity = "ERROR", hint, detail, position } = error.extra;
    return { severity, code: error.code, message: error.message, hint, detail, position };
  }
  if (!(error instanceof Error)) return { severity: "ERROR", code: SQLSTATE.internalError, message: String(error) };
  const e = error as Error & { sqlState?: unknown; errorClass?: unknown; line?: unknown; column?: unknown };
  const code = sqlStateOf(e);
  const position = source === undefined ? undefined : positionOf(e, source);
  return { severity: "ERROR", code, message: wireMessage(e), ...(position === undefined ? {} : { position }) };
}

function sqlStateOf(e: Error & { sqlState?: unknown; errorClass?: unknown }): string {
  if (typeof e.sqlState === "string" && /^[0-9A-Z]{5}$/.test(e.sqlState)) return e.sqlState;
  if (typeof e.errorClass === "string") {
    const state = STATE_OF_CLASS[e.errorClass.split(".")[0]!];
    if (state) return state;
  }
  return STATE_OF_NAME[e.name] ?? SQLSTATE.internalError;
}

/**
 * The message as a Postgres client shows it: Spark's first paragraph without its trailing
 * "SQLSTATE: ... (line 1, pos 7)" and `== SQL ==` block, which restate what the ErrorResponse
 * carries in its own fields (psql draws its own caret under the position).
 */
function wireMessage(e: Error): string {
  const first = e.message.split("\n\n== SQL ==")[0]!.trimEnd();
  const bare = first.replace(/\s*SQLSTATE: [0-9A-Z]{5}\b.*$/s, "");
  // Sluice's own errors say what went wrong; anything else is a bug, and says so.
  return e instanceof SluiceError ? bare : `internal error: ${bare}`;
}

/** Postgres's `P`: the 1-based position in characters of the error in the query text, when the error has one. */
function positionOf(e: Error & { line?: unknown; column?: unknown }, source: StatementSource): number | undefined {
  let line: number;
  let column: number;
  if (typeof e.line === "number" && typeof e.column === "number") {
    [line, column] = [e.line, e.column];
  } else {
    // Analysis errors of SQL text say where in their message: "...; line 1 pos 14".
    const m = /\bline (\d+),? pos (\d+)\b/.exec(e.message);
    if (!m) return undefined;
    [line, column] = [Number(m[1]), Number(m[2])];
  }
  const offset = lineStartOffset(source.parsed, line) + column;
  const inQuery = source.start + source.originalPosition(Math.min(offset, source.parsed.length));
  // Characters, as Postgres counts them: a character beyond the BMP is one, not two UTF-16 units.
  return [...source.query.slice(0, inQuery)].length + 1;
}

function lineStartOffset(text: string, line: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf("\n", offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return offset;
}

/** The error as a PgError whose position is settled (statement errors are reported after their statement is gone). */
export function asPgError(error: unknown, source?: StatementSource): PgError {
  if (error instanceof PgError) return error;
  const f = errorReport(error, source);
  return new PgError(f.code, f.message, { hint: f.hint, detail: f.detail, position: f.position });
}
