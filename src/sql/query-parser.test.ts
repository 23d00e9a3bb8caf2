import { describe, expect, it } from "vitest";
import { ParseException } from "../errors/errors.js";
import { tokenize } from "./lexer.js";
import { parseSqlQuery } from "./query-parser.js";

const col = (name: string) => ({ kind: "col", name });
const int = (value: number) => ({ kind: "lit", value, type: "int32" });

describe("the SQL lexer", () => {
  it("gives each token its offset, 1-based line and 0-based column, skipping comments", () => {
    const tokens = tokenize("SELECT a -- the key\n  FROM /* a view */ `my ``t```;");
    expect(tokens.map((t) => [t.kind, t.text, t.pos, t.line, t.column])).toEqual([
      ["kw", "SELECT", 0, 1, 0],
      ["ident", "a", 7, 1, 7],
      ["kw", "FROM", 22, 2, 2],
      ["ident", "my `t`", 40, 2, 20],
      ["op", ";", 50, 2, 30],
      ["eof", "end of input", 51, 2, 31],
    ]);
  });

  it("reads reserved words as keywords in any case, and other words as names", () => {
    expect(tokenize("select First from Events").map((t) => [t.kind, t.text])).toEqual([
      ["kw", "SELECT"],
      ["ident", "First"],
      ["kw", "FROM"],
      ["ident", "Events"],
      ["eof", "end of input"],
    ]);
  });
});

describe("the SQL query parser", () => {
  it("reads a SELECT with every clause", () => {
    const { query } = parseSqlQuery("SELECT DISTINCT a, b AS c, t.d e, * FROM t WHERE a > 1 GROUP BY a, 2 HAVING count(*) > 1 ORDER BY c DESC NULLS FIRST, a LIMIT 5;");
    expect(query).toEqual({
      kind: "query",
      with: [],
      body: {
        kind: "select",
        distinct: true,
        items: [
          { kind: "expr", expr: col("a"), alias: null, at: 16 },
          { kind: "expr", expr: col("b"), alias: "c", at: 19 },
          { kind: "expr", expr: col("t.d"), alias: "e", at: 27 },
          { kind: "star", qualifier: null, at: 34 },
        ],
        from: { kind: "table", name: "t", alias: null, at: 41 },
        where: { kind: "cmp", op: ">", left: col("a"), right: int(1) },
        groupBy: [
          { expr: col("a"), at: 64 },
          { expr: int(2), at: 67 },
        ],
        having: { kind: "cmp", op: ">", left: { kind: "agg", fn: "count", child: null }, right: int(1) },
        at: 0,
      },
      orderBy: [
        { expr: col("c"), ascending: false, nullsFirst: true, at: 98 },
        { expr: col("a"), ascending: true, nullsFirst: true, at: 118 },
      ],
      limit: { n: 5, at: 120 },
    });
  });

  it("reads joins left to right, with every join type, aliases and subqueries", () => {
    const { query } = parseSqlQuery("SELECT * FROM a x LEFT OUTER JOIN (SELECT k FROM b) AS y ON x.k = y.k LEFT SEMI JOIN c ON c.k = x.k");
    const from = (query.body as { from: unknown }).from as Record<string, any>;
    expect(from.kind).toBe("join");
    expect(from.joinType).toBe("leftSemi");
    expect(from.right).toEqual({ kind: "table", name: "c", alias: null, at: 85 });
    expect(from.left.joinType).toBe("left");
    expect(from.left.left).toEqual({ kind: "table", name: "a", alias: "x", at: 14 });
    expect(from.left.right.kind).toBe("subquery");
    expect(from.left.right.alias).toBe("y");
    expect(from.left.condition).toEqual({ kind: "cmp", op: "=", left: col("x.k"), right: col("y.k") });
    for (const [sql, type] of [
      ["JOIN", "inner"],
      ["INNER JOIN", "inner"],
      ["RIGHT JOIN", "right"],
      ["FULL OUTER JOIN", "full"],
      ["ANTI JOIN", "leftAnti"],
      ["LEFT ANTI JOIN", "leftAnti"],
    ]) {
      expect((parseSqlQuery(`SELECT * FROM a ${sql} b ON a.k = b.k`).query.body as { from: { joinType: string } }).from.joinType).toBe(type);
    }
  });

  it("reads UNION chains left-associatively, with ORDER BY and LIMIT over the whole", () => {
    const { query } = parseSqlQuery("SELECT a FROM t UNION ALL SELECT a FROM u UNION SELECT a FROM v ORDER BY a LIMIT 1");
    expect(query.body.kind).toBe("setOp");
    const body = query.body as Record<string, any>;
    expect([body.all, body.left.kind, body.left.all, body.right.kind]).toEqual([false, "setOp", true, "select"]);
    expect(query.orderBy.length).toBe(1);
    expect(query.limit?.n).toBe(1);
  });

  it("reads WITH tables before the query", () => {
    const { query } = parseSqlQuery("WITH big AS (SELECT * FROM t WHERE v > 1), top AS (SELECT k FROM big) SELECT k FROM top");
    expect(query.with.map((t) => [t.name, t.at, t.query.body.kind])).toEqual([
      ["big", 5, "select"],
      ["top", 43, "select"],
    ]);
    expect((query.body as { from: unknown }).from).toEqual({ kind: "table", name: "top", alias: null, at: 84 });
  });

  it("keeps where each column reference stood and its parts", () => {
    const { query, spans } = parseSqlQuery("SELECT\n  t.`window`.end FROM t");
    const ref = (query.body as unknown as { items: { expr: any }[] }).items[0]!.expr;
    expect(ref).toEqual(col("t.window.end"));
    expect(spans.partsOf(ref)).toEqual(["t", "window", "end"]);
    expect(spans.offsetOf(ref)).toBe(9);
  });

  it.each([
    ["SELECT a FROM t JOIN u", "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input: missing 'ON'. SQLSTATE: 42601 (line 1, pos 22)"],
    ["SELECT a FROM t, u", "[UNSUPPORTED_FEATURE] Sluice joins with JOIN ... ON; a comma-separated FROM list (a cross join) is not supported. SQLSTATE: 0A000 (line 1, pos 15)"],
    ["SELECT a FROM t EXCEPT SELECT a FROM u", "[UNSUPPORTED_FEATURE] Sluice has no EXCEPT; UNION [ALL] combines queries. SQLSTATE: 0A000 (line 1, pos 16)"],
    ["SELECT a FROM t LIMIT x", "[PARSE_SYNTAX_ERROR] Syntax error at or near 'x'. SQLSTATE: 42601 (line 1, pos 22)"],
    ["SELECT a FROM t ORDER BY a NULLS", "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input: missing FIRST or LAST. SQLSTATE: 42601 (line 1, pos 32)"],
    ["SELECT window(t, 5) FROM t", "[INVALID_SQL_SYNTAX] window() takes durations as strings or intervals, e.g. window(ts, '10 minutes', '5 minutes'). SQLSTATE: 42000 (line 1, pos 7)"],
    ["SELECT sum(a, b) FROM t", "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `sum` requires 1 parameters but the actual number is 2. SQLSTATE: 42605 (line 1, pos 7)"],
    ["SELECT a FROM (SELECT a FROM t", "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input: missing ')'. SQLSTATE: 42601 (line 1, pos 30)"],
  ])("refuses %s", (sql, message) => {
    expect(() => parseSqlQuery(sql)).toThrow(ParseException);
    expect(() => parseSqlQuery(sql)).toThrow(message);
  });
});
