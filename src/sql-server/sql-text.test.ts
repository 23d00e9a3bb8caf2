import { describe, expect, it } from "vitest";
import { PgError } from "./error-response.js";
import { parameterCount, splitStatements, substituteParameters, tokenize } from "./sql-text.js";
import { statementKind } from "./statement-kind.js";

const kindOf = (sql: string) => statementKind(splitStatements(sql)[0]!.tokens);

function refusal(sql: string): { code: string; message: string } {
  try {
    kindOf(sql);
  } catch (e) {
    if (e instanceof PgError) return { code: e.code, message: e.message };
  }
  throw new Error(`${sql} was not refused`);
}

describe("splitting a simple query into statements", () => {
  it("splits at semicolons outside strings, quoted names and comments, keeping each statement's offset", () => {
    const sql = "SELECT 'a;b' AS `x;y` FROM t; -- one; two\nSELECT 2 /* ; /* nested; */ ; */;;  SELECT \"q;\\\"\"";
    expect(splitStatements(sql).map((s) => [s.text, s.start])).toEqual([
      ["SELECT 'a;b' AS `x;y` FROM t", 0],
      ["SELECT 2", sql.indexOf("SELECT 2")],
      ['SELECT "q;\\""', sql.lastIndexOf("SELECT")],
    ]);
  });

  it("finds no statement in blanks, semicolons and comments", () => {
    expect(splitStatements("")).toEqual([]);
    expect(splitStatements(" ;; -- nothing\n /* here */ ")).toEqual([]);
  });

  it("reads strings as Spark SQL does: backslash escapes, doubled quotes", () => {
    expect(tokenize("'it\\'s' 'a''b' `c``d`").map((t) => [t.kind, t.text])).toEqual([
      ["string", "it's"],
      ["string", "a'b"],
      ["quoted", "c`d"],
    ]);
  });
});

describe("parameters", () => {
  it("counts $n placeholders outside strings", () => {
    expect(parameterCount(tokenize("SELECT * FROM t WHERE a > $1 AND b = '$3' AND c < $2"))).toBe(2);
  });

  it("substitutes literals and maps positions in the result back to the statement", () => {
    const [, statement] = splitStatements("SELECT 1; SELECT a FROM t WHERE b = $1 AND c = $2 ORDER BY x");
    const { text, originalPosition } = substituteParameters(statement!, ["'long literal'", "7"]);
    expect(text).toBe("SELECT a FROM t WHERE b = 'long literal' AND c = 7 ORDER BY x");
    // Before the first placeholder: unchanged; inside a literal: its placeholder; after: shifted back.
    expect(originalPosition(text.indexOf("WHERE"))).toBe("SELECT a FROM t WHERE".indexOf("WHERE"));
    expect(originalPosition(text.indexOf("literal"))).toBe("SELECT a FROM t WHERE b = ".length);
    expect(originalPosition(text.indexOf("ORDER"))).toBe("SELECT a FROM t WHERE b = $1 AND c = $2 ".length);
  });
});

describe("what a statement asks for", () => {
  it("sends queries to the SQL engine", () => {
    for (const sql of ["SELECT * FROM counts", "select 1", "WITH a AS (SELECT 1) SELECT * FROM a", "(SELECT 1)", "VALUES (1)"]) {
      expect(kindOf(sql)).toEqual({ kind: "query" });
    }
  });

  it("answers version(), SHOW, SET, RESET and transaction commands itself", () => {
    expect(kindOf("SELECT version()")).toEqual({ kind: "version" });
    expect(kindOf("select pg_catalog.version ( )".replace("pg_catalog.", ""))).toEqual({ kind: "version" });
    expect(kindOf("SHOW server_version")).toEqual({ kind: "show", name: "server_version" });
    expect(kindOf("SHOW TIME ZONE")).toEqual({ kind: "show", name: "timezone" });
    expect(kindOf("SHOW ALL")).toEqual({ kind: "show", name: "all" });
    expect(kindOf("SET statement_timeout = 5000")).toEqual({ kind: "set", name: "statement_timeout", value: "5000" });
    expect(kindOf("SET SESSION application_name TO 'bi tool'")).toEqual({ kind: "set", name: "application_name", value: "bi tool" });
    expect(kindOf("SET search_path TO a, b")).toEqual({ kind: "set", name: "search_path", value: "a, b" });
    expect(kindOf("SET TIME ZONE 'UTC'")).toEqual({ kind: "set", name: "timezone", value: "UTC" });
    expect(kindOf("SET extra_float_digits = DEFAULT")).toEqual({ kind: "set", name: "extra_float_digits", value: null });
    expect(kindOf("RESET statement_timeout")).toEqual({ kind: "reset", name: "statement_timeout" });
    expect(kindOf("BEGIN")).toEqual({ kind: "transaction", action: "begin", tag: "BEGIN" });
    expect(kindOf("START TRANSACTION READ ONLY")).toEqual({ kind: "transaction", action: "begin", tag: "START TRANSACTION" });
    expect(kindOf("commit")).toEqual({ kind: "transaction", action: "commit", tag: "COMMIT" });
    expect(kindOf("END")).toEqual({ kind: "transaction", action: "commit", tag: "COMMIT" });
    expect(kindOf("ROLLBACK")).toEqual({ kind: "transaction", action: "rollback", tag: "ROLLBACK" });
    expect(kindOf("DEALLOCATE PREPARE s1")).toEqual({ kind: "deallocate", name: "s1" });
  });

  it("refuses writes as a read-only transaction would (25006)", () => {
    expect(refusal("INSERT INTO counts VALUES (1)")).toEqual({
      code: "25006",
      message: "cannot execute INSERT in a read-only transaction: Sluice serves SELECT queries over memory-sink tables and temp views",
    });
    expect(refusal("drop table counts").code).toBe("25006");
    expect(refusal("CREATE TEMP VIEW v AS SELECT 1").code).toBe("25006");
  });

  it("refuses the Postgres catalog and other commands as unsupported features (0A000)", () => {
    expect(refusal("SELECT c.relname FROM pg_catalog.pg_class c")).toEqual({
      code: "0A000",
      message: "Sluice serves SELECT queries over memory-sink tables and temp views; the Postgres catalog (pg_catalog) is not served",
    });
    expect(refusal("select * from information_schema.tables").code).toBe("0A000");
    expect(refusal("LISTEN channel")).toEqual({
      code: "0A000",
      message: "LISTEN is not supported: Sluice serves SELECT queries over memory-sink tables and temp views, and SET, SHOW, BEGIN, COMMIT and ROLLBACK",
    });
    expect(refusal("ROLLBACK TO SAVEPOINT a").code).toBe("0A000");
  });
});
