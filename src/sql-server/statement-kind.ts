import { PgError, SQLSTATE } from "./error-response.js";
import { leadingWords, type Token } from "./sql-text.js";

/**
 * What a statement asks for, read from its leading words: a query for Sluice's SQL engine, or one
 * of the session commands Postgres clients send (SET, SHOW, BEGIN, `SELECT version()`), which the
 * server answers itself. Writes, DDL and the Postgres catalog are refused here with Postgres's
 * SQLSTATEs and a message that says what Sluice serves.
 */
export type StatementKind =
  | { readonly kind: "query" }
  | { readonly kind: "version" }
  | { readonly kind: "show"; readonly name: string }
  | { readonly kind: "set"; readonly name: string; readonly value: string | null }
  | { readonly kind: "reset"; readonly name: string }
  | { readonly kind: "transaction"; readonly action: "begin" | "commit" | "rollback"; readonly tag: string }
  | { readonly kind: "deallocate"; readonly name: string | null };

export const SERVES = "Sluice serves SELECT queries over memory-sink tables and temp views";

const QUERY_STARTS = new Set(["SELECT", "WITH", "VALUES", "TABLE", "FROM", "EXPLAIN", "DESCRIBE", "DESC"]);
const WRITES = new Set([
  "INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "TRUNCATE", "COPY", "CREATE", "DROP", "ALTER", "GRANT", "REVOKE",
  "COMMENT", "VACUUM", "ANALYZE", "CLUSTER", "REINDEX", "REFRESH", "LOCK", "CACHE", "UNCACHE", "LOAD", "MSCK", "REPLACE",
]);
const CATALOG_SCHEMAS = new Set(["pg_catalog", "information_schema"]);

/** The statement's kind; throws PgError for what the server refuses. */
export function statementKind(tokens: readonly Token[]): StatementKind {
  const catalog = tokens.find((t) => (t.kind === "word" || t.kind === "quoted") && isCatalogName(t.text));
  if (catalog) {
    throw new PgError(SQLSTATE.featureNotSupported, `${SERVES}; the Postgres catalog (${catalog.text}) is not served`, {
      hint: "Query the tables by name: a memory sink's queryName, or a name given to createOrReplaceTempView().",
    });
  }
  const first = tokens[0]!;
  if (first.kind === "symbol" && first.text === "(") return { kind: "query" };
  const words = leadingWords(tokens, 4);
  const head = words[0] ?? first.text;
  if (isVersionCall(tokens)) return { kind: "version" };
  if (QUERY_STARTS.has(head)) return { kind: "query" };
  switch (head) {
    case "SHOW":
      return { kind: "show", name: settingName(tokens.slice(1), "SHOW") };
    case "SET":
      return setStatement(tokens.slice(1));
    case "RESET":
      return { kind: "reset", name: settingName(tokens.slice(1), "RESET") };
    case "BEGIN":
      return { kind: "transaction", action: "begin", tag: "BEGIN" };
    case "START":
      if (words[1] === "TRANSACTION") return { kind: "transaction", action: "begin", tag: "START TRANSACTION" };
      break;
    case "COMMIT":
    case "END":
      return { kind: "transaction", action: "commit", tag: "COMMIT" };
    case "ROLLBACK":
    case "ABORT":
      if (words[1] === "TO") break; // ROLLBACK TO SAVEPOINT: no savepoints
      return { kind: "transaction", action: "rollback", tag: "ROLLBACK" };
    case "DEALLOCATE": {
      const rest = tokens.slice(1).filter((t) => !(t.kind === "word" && t.text.toUpperCase() === "PREPARE"));
      const name = rest[0];
      if (!name) break;
      return { kind: "deallocate", name: name.kind === "word" && name.text.toUpperCase() === "ALL" ? null : name.text };
    }
  }
  if (WRITES.has(head)) {
    throw new PgError(SQLSTATE.readOnlySqlTransaction, `cannot execute ${head} in a read-only transaction: ${SERVES}`);
  }
  throw new PgError(SQLSTATE.featureNotSupported, `${head} is not supported: ${SERVES}, and SET, SHOW, BEGIN, COMMIT and ROLLBACK`);
}

function isCatalogName(name: string): boolean {
  const lower = name.toLowerCase();
  return CATALOG_SCHEMAS.has(lower) || lower.startsWith("pg_");
}

/** `SELECT version()`, as clients ask which server they talk to. */
function isVersionCall(tokens: readonly Token[]): boolean {
  const text = tokens.map((t) => t.text.toLowerCase()).join(" ");
  return text === "select version ( )";
}

/** A setting's name: `a`, `a.b`, `ALL`, or Postgres's spelled-out names (TIME ZONE, TRANSACTION ISOLATION LEVEL). */
function settingName(tokens: readonly Token[], command: string): string {
  const words = tokens.map((t) => t.text.toLowerCase());
  const joined = words.join(" ");
  if (joined === "time zone") return "timezone";
  if (joined === "transaction isolation level") return "transaction_isolation";
  if (joined === "session authorization") return "session_authorization";
  const name = words.join("");
  if (name === "" || !/^[a-z_][a-z0-9_$]*(\.[a-z_][a-z0-9_$]*)?$/.test(name)) {
    throw new PgError(SQLSTATE.syntaxError, `syntax error: ${command} expects a setting's name`);
  }
  return name;
}

/** `SET [SESSION | LOCAL] name { TO | = } value [, ...]`, `SET TIME ZONE value`, `SET TRANSACTION ...`. */
function setStatement(tokens: readonly Token[]): StatementKind {
  let rest = tokens;
  const scope = rest[0]?.text.toUpperCase();
  if (rest[0]?.kind === "word" && (scope === "SESSION" || scope === "LOCAL") && rest[1]?.text.toUpperCase() !== "AUTHORIZATION") rest = rest.slice(1);
  const lead = leadingWords(rest, 2);
  // Transaction characteristics (READ ONLY, an isolation level): every transaction here is read-only.
  if (lead[0] === "TRANSACTION" || (lead[0] === "CHARACTERISTICS" && lead[1] === "AS")) return { kind: "set", name: "transaction", value: null };
  if (lead[0] === "TIME" && lead[1] === "ZONE") return { kind: "set", name: "timezone", value: settingValue(rest.slice(2)) };
  if (lead[0] === "NAMES") return { kind: "set", name: "client_encoding", value: settingValue(rest.slice(1)) };
  const to = rest.findIndex((t) => (t.kind === "symbol" && t.text === "=") || (t.kind === "word" && t.text.toUpperCase() === "TO"));
  if (to <= 0) throw new PgError(SQLSTATE.syntaxError, "syntax error: SET expects name = value or name TO value");
  return { kind: "set", name: settingName(rest.slice(0, to), "SET"), value: settingValue(rest.slice(to + 1)) };
}

/** A setting's value as text (list items joined by ", "); null for DEFAULT. */
function settingValue(tokens: readonly Token[]): string | null {
  if (tokens.length === 1 && tokens[0]!.kind === "word" && tokens[0]!.text.toUpperCase() === "DEFAULT") return null;
  if (tokens.length === 0) throw new PgError(SQLSTATE.syntaxError, "syntax error: SET expects a value");
  let out = "";
  for (const t of tokens) {
    if (t.kind === "symbol" && t.text === ",") out += ", ";
    else if (t.kind === "symbol" && t.text === "-") out += "-";
    else out += t.text;
  }
  return out;
}
