import * as os from "node:os";
import type { Batch } from "../batch/batch.js";
import { encodeUtf8 } from "../kernels/utf8.js";
import { asPgError, PgError, SQLSTATE } from "./error-response.js";
import { columnCells, PG, pgTypeOf, type Cells, type PgType } from "./pg-types.js";
import type { SessionSettings } from "./session-settings.js";
import { SERVER_VERSION } from "./session-settings.js";
import type { SqlEngine, SqlPlan } from "./sql-engine.js";
import { substituteParameters, type Statement } from "./sql-text.js";
import { SERVES, type StatementKind } from "./statement-kind.js";
import type { ReportFields, TransactionStatus } from "./wire-writer.js";

/**
 * One statement, bound to its parameters and ready to run: what a Describe reports (its result
 * columns) and what an Execute does (run the query over one snapshot, or apply a SET, a BEGIN...).
 * Queries go to Sluice's SQL engine; the session commands are answered here.
 */

export interface ResultColumn {
  readonly name: string;
  readonly type: PgType;
}

/** Rows of a result, encoded a column at a time in the format the client asked for. */
export interface ResultSet {
  readonly rowCount: number;
  cells(column: number, format: 0 | 1): Cells;
}

export interface Outcome {
  /** The rows, for statements that return some. */
  readonly rows: ResultSet | null;
  /** CommandComplete's tag, given the rows sent by this Execute. */
  readonly tag: (rowsSent: number) => string;
  readonly notices: readonly ReportFields[];
  /** ParameterStatus messages to send (a SET of a reported parameter). */
  readonly statuses: readonly [string, string][];
}

/** A connection's state that statements read and change. */
export interface SessionState {
  readonly engine: SqlEngine;
  readonly settings: SessionSettings;
  transaction: TransactionStatus;
  /** Forgets a named prepared statement (DEALLOCATE); null: all of them. */
  deallocate(name: string | null): void;
}

export interface BoundStatement {
  /** Result columns, or null when the statement returns no rows (NoData). */
  readonly columns: readonly ResultColumn[] | null;
  /** True for an empty query (EmptyQueryResponse). */
  readonly empty: boolean;
  execute(): Promise<Outcome>;
}

const text = (name: string): ResultColumn => ({ name, type: PG.text });

/**
 * Binds a statement: substitutes its parameters and, for a query, plans it (parse and analysis
 * errors surface here, with their position in `query`).
 */
export async function bindStatement(
  session: SessionState,
  query: string,
  statement: Statement | null,
  kind: StatementKind | null,
  /** Each parameter's readings, as SQL literals (one for a typed parameter). */
  readings: readonly (readonly string[])[],
): Promise<BoundStatement> {
  if (statement === null || kind === null) return { columns: null, empty: true, execute: async () => done(() => "") };
  refuseInFailedTransaction(session, kind);
  switch (kind.kind) {
    case "query":
      return bindQuery(session, query, statement, readings);
    case "version":
      return rowsOf([text("version")], () => [[`PostgreSQL ${SERVER_VERSION} on ${os.arch()}-${os.platform()}, Node.js ${process.version}`]], "SELECT");
    case "show": {
      if (kind.name === "all") {
        return rowsOf([text("name"), text("setting"), text("description")], () => session.settings.all().map((s) => [s.name, s.value, ""]), "SHOW");
      }
      const setting = session.settings.show(kind.name);
      return rowsOf([text(setting.name)], () => [[session.settings.show(kind.name).value]], "SHOW");
    }
    case "set":
    case "reset":
      return command(async () => {
        const status = session.settings.set(kind.name, kind.kind === "set" ? kind.value : null);
        return done(() => (kind.kind === "set" ? "SET" : "RESET"), [], status ? [status] : []);
      });
    case "transaction":
      return command(async () => transaction(session, kind.action, kind.tag));
    case "deallocate":
      return command(async () => {
        session.deallocate(kind.name);
        return done(() => (kind.name === null ? "DEALLOCATE ALL" : "DEALLOCATE"));
      });
  }
}

/** Combinations of parameter readings tried at most before the first one's error is reported. */
const MAX_READING_ATTEMPTS = 64;

/**
 * Plans the statement with the first combination of parameter readings (see parameterReadings)
 * under which it analyzes, trying combinations in order of preference; when none does, the
 * error is the one of the preferred readings.
 */
async function planQuery(session: SessionState, query: string, statement: Statement, readings: readonly (readonly string[])[]): Promise<SqlPlan> {
  const missing = statement.tokens.find((t) => t.kind === "param" && Number(t.text.slice(1)) > readings.length);
  if (missing) {
    throw new PgError("42P02", `there is no parameter ${missing.text}`, { position: [...query.slice(0, missing.start)].length + 1 });
  }
  let firstError: PgError | null = null;
  let attempts = 0;
  for (const literals of combinations(readings)) {
    const { text: parsed, originalPosition } = substituteParameters(statement, literals);
    try {
      return await session.engine.plan(parsed);
    } catch (e) {
      firstError ??= asPgError(e, { query, start: statement.start, parsed, originalPosition });
    }
    if (++attempts >= MAX_READING_ATTEMPTS) break;
  }
  throw firstError!;
}

/** Every choice of one reading per parameter, the preferred (first) readings first. */
function* combinations(readings: readonly (readonly string[])[]): Generator<string[]> {
  const choice = readings.map(() => 0);
  for (;;) {
    yield readings.map((r, i) => r[choice[i]!]!);
    let i = readings.length - 1;
    while (i >= 0 && choice[i] === readings[i]!.length - 1) choice[i--] = 0;
    if (i < 0) return;
    choice[i]!++;
  }
}

async function bindQuery(session: SessionState, query: string, statement: Statement, readings: readonly (readonly string[])[]): Promise<BoundStatement> {
  const plan = await planQuery(session, query, statement, readings);
  if (plan.isStreaming) {
    throw new PgError(SQLSTATE.featureNotSupported, "Queries with streaming sources must be executed with writeStream.start()", {
      hint: 'Run the stream into a memory sink, writeStream.format("memory").queryName("counts").start(), and SELECT from counts: it holds the rows the query has written so far.',
    });
  }
  const fields = plan.fields;
  return {
    columns: fields.map((f) => ({ name: f.name, type: pgTypeOf(f.type) })),
    empty: false,
    execute: async () => {
      let batch: Batch;
      try {
        batch = await plan.execute();
      } catch (e) {
        throw asPgError(e);
      }
      const rows: ResultSet = { rowCount: batch.numRows, cells: (c, format) => columnCells(batch.columns[c]!, batch.fields[c]!, batch.numRows, format) };
      return done((n) => `SELECT ${n}`, [], [], rows);
    },
  };
}

function transaction(session: SessionState, action: "begin" | "commit" | "rollback", tag: string): Outcome {
  const before = session.transaction;
  if (action === "begin") {
    session.transaction = "T";
    const notices = before === "I" ? [] : [warning(SQLSTATE.activeTransaction, "there is already a transaction in progress")];
    return done(() => tag, notices);
  }
  session.transaction = "I";
  const notices = before === "I" ? [warning(SQLSTATE.noActiveTransaction, "there is no transaction in progress")] : [];
  // COMMIT of a failed transaction rolls it back, and says so.
  return done(() => (before === "E" ? "ROLLBACK" : tag), notices);
}

function refuseInFailedTransaction(session: SessionState, kind: StatementKind): void {
  if (session.transaction === "E" && !(kind.kind === "transaction" && kind.action !== "begin")) {
    throw new PgError(SQLSTATE.inFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block");
  }
}

function rowsOf(columns: ResultColumn[], values: () => string[][], command: string): BoundStatement {
  return {
    columns,
    empty: false,
    execute: async () => {
      const rows = values();
      const set: ResultSet = { rowCount: rows.length, cells: (c) => (i) => encodeUtf8(rows[i]![c]!) };
      return done((n) => (command === "SELECT" ? `SELECT ${n}` : command), [], [], set);
    },
  };
}

function command(execute: () => Promise<Outcome>): BoundStatement {
  return { columns: null, empty: false, execute };
}

function done(tag: (rowsSent: number) => string, notices: ReportFields[] = [], statuses: [string, string][] = [], rows: ResultSet | null = null): Outcome {
  return { rows, tag, notices, statuses };
}

function warning(code: string, message: string): ReportFields {
  return { severity: "WARNING", code, message };
}
