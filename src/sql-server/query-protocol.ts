import { errorReport, PgError, SQLSTATE } from "./error-response.js";
import { decodeParameter, parameterReadings } from "./parameters.js";
import { pgTypeOf } from "./pg-types.js";
import { parameterCount, splitStatements, type Statement } from "./sql-text.js";
import { statementKind, type StatementKind } from "./statement-kind.js";
import { bindStatement, type BoundStatement, type Outcome, type SessionState } from "./statement-runner.js";
import { FieldReader, ProtocolViolation } from "./wire-reader.js";
import type { ColumnDescription, MessageWriter } from "./wire-writer.js";

/**
 * The query phase of a connection: the simple query protocol (Query: one or more statements,
 * results in text) and the extended one (Parse, Bind, Describe, Execute, Close, Sync, Flush;
 * named and unnamed statements and portals, `$n` parameters, text or binary results per column,
 * Execute with a row limit and PortalSuspended).
 *
 * https://www.postgresql.org/docs/current/protocol-flow.html
 */

interface PreparedStatement {
  readonly query: string;
  readonly statement: Statement | null;
  readonly kind: StatementKind | null;
  /** Parameter type OIDs, 0 where the client left the type open. */
  readonly parameterTypes: readonly number[];
}

interface Portal {
  readonly bound: BoundStatement;
  readonly formats: readonly (0 | 1)[];
  outcome: Outcome | null;
  cursor: number;
}

/** What the query phase needs from its connection. */
export interface QueryHost {
  readonly out: MessageWriter;
  readonly session: SessionState;
  /** Writes what `out` holds to the socket (waits while the socket is full). */
  flush(): Promise<void>;
  /** Runs a statement's work under the statement timeout and cancel requests. */
  guard<T>(work: () => Promise<T>): Promise<T>;
}

/** DataRows written between two flushes to the socket. */
const FLUSH_BYTES = 256 * 1024;

export class QueryProtocol {
  private readonly statements = new Map<string, PreparedStatement>();
  private readonly portals = new Map<string, Portal>();
  /** After an error in an extended-query exchange, messages are skipped until Sync. */
  private skipUntilSync = false;

  constructor(private readonly host: QueryHost) {}

  /** Handles one message of the query phase; false when the client asked to close (Terminate). */
  async handle(type: string, body: Uint8Array): Promise<boolean> {
    const out = this.host.out;
    const r = new FieldReader(body);
    if (type === "X") return false;
    if (type === "Q") {
      await this.simpleQuery(r.cstring());
      return true;
    }
    if (type === "S") {
      this.skipUntilSync = false;
      this.portals.delete("");
      out.readyForQuery(this.host.session.transaction);
      await this.host.flush();
      return true;
    }
    if (type === "H") {
      await this.host.flush();
      return true;
    }
    // COPY messages outside a COPY are ignored, as the protocol says.
    if (type === "d" || type === "c" || type === "f") return true;
    if (this.skipUntilSync) return true;
    try {
      switch (type) {
        case "P":
          this.parse(r);
          out.bare("1");
          break;
        case "B":
          await this.bind(r);
          out.bare("2");
          break;
        case "D":
          await this.describe(r);
          break;
        case "E":
          await this.execute(r.cstring(), r.int32());
          break;
        case "C":
          this.close(r);
          out.bare("3");
          break;
        case "F":
          throw new PgError(SQLSTATE.featureNotSupported, "function calls (the FunctionCall message) are not supported");
        default:
          throw new ProtocolViolation(`invalid frontend message type ${type.charCodeAt(0)}`);
      }
    } catch (e) {
      if (e instanceof ProtocolViolation) throw e;
      this.fail(e);
      this.skipUntilSync = true;
    }
    if (out.length > FLUSH_BYTES) await this.host.flush();
    return true;
  }

  /**
   * Reports an error. Inside a transaction block the block fails (commands are refused until it
   * ends); outside one, the statement's implicit transaction ends with it and nothing persists.
   */
  private fail(e: unknown): void {
    this.host.out.errorResponse(errorReport(e));
    if (this.host.session.transaction === "T") this.host.session.transaction = "E";
  }

  // ---- simple query ----

  private async simpleQuery(query: string): Promise<void> {
    const out = this.host.out;
    const session = this.host.session;
    this.portals.delete("");
    const statements = splitStatements(query);
    if (statements.length === 0) out.bare("I");
    // Several statements run as one implicit transaction: an error skips the rest.
    try {
      for (const statement of statements) {
        const bound = await bindStatement(session, query, statement, statementKind(statement.tokens), []);
        if (bound.columns) out.rowDescription(describeColumns(bound, []));
        await this.run(bound, [], 0);
      }
    } catch (e) {
      this.fail(e);
    }
    out.readyForQuery(session.transaction);
    await this.host.flush();
  }

  // ---- extended query ----

  private parse(r: FieldReader): void {
    const name = r.cstring();
    const query = r.cstring();
    const declared = r.int32List();
    if (name !== "" && this.statements.has(name)) throw new PgError("42P05", `prepared statement "${name}" already exists`);
    const statements = splitStatements(query);
    if (statements.length > 1) throw new PgError(SQLSTATE.syntaxError, "cannot insert multiple commands into a prepared statement");
    const statement = statements[0] ?? null;
    const kind = statement === null ? null : statementKind(statement.tokens);
    const count = Math.max(declared.length, statement === null ? 0 : parameterCount(statement.tokens));
    const parameterTypes = Array.from({ length: count }, (_, i) => declared[i] ?? 0);
    this.statements.set(name, { query, statement, kind, parameterTypes });
  }

  private async bind(r: FieldReader): Promise<void> {
    const portalName = r.cstring();
    const statementName = r.cstring();
    const paramFormats = r.int16List();
    const values = Array.from({ length: Math.max(0, r.int16()) }, () => {
      const length = r.int32();
      return length === -1 ? null : r.bytes(length);
    });
    const resultFormats = r.int16List();
    const prepared = this.statement(statementName);
    if (values.length !== prepared.parameterTypes.length) {
      throw new PgError(SQLSTATE.protocolViolation, `bind message supplies ${values.length} parameters, but prepared statement "${statementName}" requires ${prepared.parameterTypes.length}`);
    }
    if (paramFormats.length > 1 && paramFormats.length !== values.length) {
      throw new PgError(SQLSTATE.protocolViolation, `bind message has ${paramFormats.length} parameter formats but ${values.length} parameters`);
    }
    if (portalName !== "" && this.portals.has(portalName)) throw new PgError("42P03", `cursor "${portalName}" already exists`);
    const readings = values.map((v, i) => parameterReadings(decodeParameter(v, prepared.parameterTypes[i]!, paramFormats.length === 1 ? paramFormats[0]! : (paramFormats[i] ?? 0), i)));
    const bound = await this.host.guard(() => bindStatement(this.host.session, prepared.query, prepared.statement, prepared.kind, readings));
    this.portals.set(portalName, { bound, formats: resultFormatsOf(resultFormats, bound), outcome: null, cursor: 0 });
  }

  private async describe(r: FieldReader): Promise<void> {
    const what = String.fromCharCode(r.bytes(1)[0]!);
    const name = r.cstring();
    const out = this.host.out;
    if (what === "S") {
      const prepared = this.statement(name);
      out.parameterDescription(prepared.parameterTypes.map((t) => (t === 0 ? pgTypeOf("string").oid : t)));
      // Columns of a statement not yet bound: planned with every parameter NULL.
      const nulls = prepared.parameterTypes.map(() => ["NULL"]);
      const bound = await this.host.guard(() => bindStatement(this.host.session, prepared.query, prepared.statement, prepared.kind, nulls));
      if (bound.columns) out.rowDescription(describeColumns(bound, []));
      else out.bare("n");
    } else if (what === "P") {
      const portal = this.portal(name);
      if (portal.bound.columns) out.rowDescription(describeColumns(portal.bound, portal.formats));
      else out.bare("n");
    } else {
      throw new PgError(SQLSTATE.protocolViolation, `invalid DESCRIBE message subtype ${what.charCodeAt(0)}`);
    }
  }

  private async execute(portalName: string, maxRows: number): Promise<void> {
    const portal = this.portal(portalName);
    await this.run(portal.bound, portal.formats, maxRows, portal);
  }

  private close(r: FieldReader): void {
    const what = String.fromCharCode(r.bytes(1)[0]!);
    const name = r.cstring();
    if (what === "S") this.statements.delete(name);
    else if (what === "P") this.portals.delete(name);
    else throw new PgError(SQLSTATE.protocolViolation, `invalid CLOSE message subtype ${what.charCodeAt(0)}`);
  }

  /** Forgets a named prepared statement (DEALLOCATE); null: all of them. */
  deallocate(name: string | null): void {
    if (name === null) {
      for (const key of [...this.statements.keys()]) if (key !== "") this.statements.delete(key);
    } else if (!this.statements.delete(name)) {
      throw new PgError(SQLSTATE.undefinedPreparedStatement, `prepared statement "${name}" does not exist`);
    }
  }

  /**
   * Runs a bound statement (once per portal) and writes up to `maxRows` of its rows (0: all) from
   * the portal's cursor, then CommandComplete, or PortalSuspended when rows remain.
   */
  private async run(bound: BoundStatement, formats: readonly (0 | 1)[], maxRows: number, portal?: Portal): Promise<void> {
    const out = this.host.out;
    if (bound.empty) {
      out.bare("I");
      return;
    }
    const outcome = portal?.outcome ?? (await this.host.guard(() => bound.execute()));
    if (portal) portal.outcome = outcome;
    for (const notice of outcome.notices) out.noticeResponse(notice);
    for (const [name, value] of outcome.statuses) out.parameterStatus(name, value);
    const rows = outcome.rows;
    let sent = 0;
    if (rows) {
      const start = portal?.cursor ?? 0;
      const end = maxRows > 0 ? Math.min(rows.rowCount, start + maxRows) : rows.rowCount;
      const columns = bound.columns!.map((_, c) => rows.cells(c, formats[c] ?? 0));
      for (let i = start; i < end; i++) {
        out.begin("D").int16(columns.length);
        for (const cells of columns) out.value(cells(i));
        out.end();
        if (out.length > FLUSH_BYTES) await this.host.flush();
      }
      sent = end - start;
      if (portal) portal.cursor = end;
      if (end < rows.rowCount) {
        out.bare("s");
        return;
      }
    }
    out.commandComplete(outcome.tag(sent));
  }

  private statement(name: string): PreparedStatement {
    const s = this.statements.get(name);
    if (!s) throw new PgError(SQLSTATE.undefinedPreparedStatement, `prepared statement "${name}" does not exist`);
    return s;
  }

  private portal(name: string): Portal {
    const p = this.portals.get(name);
    if (!p) throw new PgError(SQLSTATE.undefinedCursor, `portal "${name}" does not exist`);
    return p;
  }
}

/** Bind's result format codes: none (all text), one for every column, or one per column. */
function resultFormatsOf(codes: readonly number[], bound: BoundStatement): (0 | 1)[] {
  const n = bound.columns?.length ?? 0;
  for (const c of codes) if (c !== 0 && c !== 1) throw new PgError(SQLSTATE.invalidParameterValue, `unsupported format code: ${c}`);
  if (codes.length > 1 && codes.length !== n) {
    throw new PgError(SQLSTATE.protocolViolation, `bind message has ${codes.length} result formats but query has ${n} columns`);
  }
  return Array.from({ length: n }, (_, i) => (codes.length === 1 ? codes[0] : (codes[i] ?? 0)) as 0 | 1);
}

function describeColumns(bound: BoundStatement, formats: readonly (0 | 1)[]): ColumnDescription[] {
  return bound.columns!.map((c, i) => ({ name: c.name, typeOid: c.type.oid, typeSize: c.type.size, format: formats[i] ?? 0 }));
}
