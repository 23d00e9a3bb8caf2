import type { Expr } from "../expr/ast.js";
import type { JoinType } from "../plan/logical.js";
import { ExpressionParser } from "./expression-parser.js";
import { SourceSpans } from "./source-spans.js";
import { tokenize } from "./lexer.js";
import type { CommonTable, Query, QueryBody, Relation, Select, SelectItem, SortItem } from "./query-ast.js";
import { TokenStream } from "./token-stream.js";

/**
 * The queries `session.sql()` reads, by recursive descent over the same tokens and expression
 * parser as `expr()`:
 *
 * ```
 * query    := [WITH name AS '(' query ')', ...] body [ORDER BY sortItem, ...] [LIMIT n]
 * body     := term (UNION [ALL | DISTINCT] term)*
 * term     := select | '(' query ')'
 * select   := SELECT [DISTINCT | ALL] item, ... [FROM relation] [WHERE e] [GROUP BY e, ...] [HAVING e]
 * item     := '*' | name '.' '*' | e [[AS] alias]
 * relation := primary (joinType JOIN primary ON e)*
 * primary  := name [[AS] alias] | '(' query ')' [[AS] alias] | '(' relation ')'
 * ```
 */
export interface ParsedQuery {
  readonly query: Query;
  readonly spans: SourceSpans;
}

export function parseSqlQuery(sql: string): ParsedQuery {
  const stream = new TokenStream(sql, tokenize(sql));
  const parser = new QueryParser(stream);
  const query = parser.query();
  stream.end();
  return { query, spans: parser.spans };
}

class QueryParser {
  readonly spans = new SourceSpans();
  private readonly e: ExpressionParser;

  constructor(private readonly s: TokenStream) {
    this.e = new ExpressionParser(s, this.spans);
  }

  query(): Query {
    const commonTables: CommonTable[] = [];
    if (this.s.accept("kw", "WITH")) {
      do {
        const at = this.s.token;
        const name = this.e.name();
        this.s.expect("kw", "AS");
        this.s.expect("op", "(");
        commonTables.push({ name, query: this.query(), at: at.pos });
        this.s.expect("op", ")");
      } while (this.s.accept("op", ","));
    }
    const body = this.body();
    const orderBy: SortItem[] = [];
    if (this.s.accept("kw", "ORDER")) {
      this.s.expect("kw", "BY");
      do orderBy.push(this.sortItem());
      while (this.s.accept("op", ","));
    }
    let limit: Query["limit"] = null;
    const limitToken = this.s.accept("kw", "LIMIT");
    if (limitToken) {
      const n = this.s.accept("num");
      if (!n || !/^\d+$/.test(n.text)) throw this.s.syntaxError(undefined, n ?? this.s.token);
      limit = { n: Number(n.text), at: limitToken.pos };
    }
    return { kind: "query", with: commonTables, body, orderBy, limit };
  }

  private body(): QueryBody {
    let left = this.term();
    for (let op = this.s.accept("kw", "UNION"); op; op = this.s.accept("kw", "UNION")) {
      const all = this.s.accept("kw", "ALL") !== null;
      if (!all) this.s.accept("kw", "DISTINCT");
      left = { kind: "setOp", op: "union", all, left, right: this.term(), at: op.pos };
    }
    if (this.s.is("kw", "EXCEPT") || this.s.is("kw", "INTERSECT")) {
      throw this.s.errorAt(this.s.token, "UNSUPPORTED_FEATURE", `Sluice has no ${this.s.token.text}; UNION [ALL] combines queries.`);
    }
    return left;
  }

  private term(): QueryBody {
    if (this.s.is("op", "(")) {
      this.s.next();
      const query = this.query();
      this.s.expect("op", ")");
      return { kind: "nested", query };
    }
    return this.select();
  }

  /** `e [ASC | DESC] [NULLS FIRST | NULLS LAST]`. */
  private sortItem(): SortItem {
    const at = this.s.token.pos;
    const expr = this.e.expression();
    const ascending = this.s.accept("kw", "DESC") === null;
    if (ascending) this.s.accept("kw", "ASC");
    let nullsFirst = ascending;
    if (this.s.acceptWord("NULLS")) {
      if (this.s.acceptWord("FIRST")) nullsFirst = true;
      else if (this.s.acceptWord("LAST")) nullsFirst = false;
      else throw this.s.syntaxError("missing FIRST or LAST");
    }
    return { expr, ascending, nullsFirst, at };
  }

  private select(): Select {
    const at = this.s.token;
    if (!this.s.accept("kw", "SELECT")) throw this.s.syntaxError();
    const distinct = this.s.accept("kw", "DISTINCT") !== null;
    if (!distinct) this.s.accept("kw", "ALL");
    const items: SelectItem[] = [];
    do items.push(this.selectItem());
    while (this.s.accept("op", ","));
    const from = this.s.accept("kw", "FROM") ? this.relation() : null;
    if (this.s.is("op", ",")) {
      throw this.s.errorAt(this.s.token, "UNSUPPORTED_FEATURE", "Sluice joins with JOIN ... ON; a comma-separated FROM list (a cross join) is not supported.");
    }
    const where = this.s.accept("kw", "WHERE") ? this.e.expression() : null;
    let groupBy: Select["groupBy"] = null;
    if (this.s.accept("kw", "GROUP")) {
      this.s.expect("kw", "BY");
      const keys: { expr: Expr; at: number }[] = [];
      do {
        const keyAt = this.s.token.pos;
        keys.push({ expr: this.e.expression(), at: keyAt });
      } while (this.s.accept("op", ","));
      groupBy = keys;
    }
    const having = this.s.accept("kw", "HAVING") ? this.e.expression() : null;
    return { kind: "select", distinct, items, from, where, groupBy, having, at: at.pos };
  }

  private selectItem(): SelectItem {
    const at = this.s.token;
    if (this.s.accept("op", "*")) return { kind: "star", qualifier: null, at: at.pos };
    if (at.kind === "ident" && this.s.peek().text === "." && this.s.peek(2).kind === "op" && this.s.peek(2).text === "*") {
      this.s.next();
      this.s.next();
      this.s.next();
      return { kind: "star", qualifier: at.text, at: at.pos };
    }
    const expr = this.e.expression();
    return { kind: "expr", expr, alias: this.alias(), at: at.pos };
  }

  /** `AS name` or a bare name (no keyword can be one, so `FROM t WHERE` has no alias). */
  private alias(): string | null {
    if (this.s.accept("kw", "AS")) return this.e.name();
    return this.s.is("ident") ? this.e.name() : null;
  }

  private relation(): Relation {
    let left = this.relationPrimary();
    for (let joinType = this.joinType(); joinType; joinType = this.joinType()) {
      const at = this.s.previous;
      const right = this.relationPrimary();
      if (!this.s.accept("kw", "ON")) {
        if (this.s.is("kw", "USING")) throw this.s.errorAt(this.s.token, "UNSUPPORTED_FEATURE", "Sluice joins with JOIN ... ON <condition>; JOIN ... USING is not supported.");
        throw this.s.syntaxError("missing 'ON'");
      }
      left = { kind: "join", left, right, joinType, condition: this.e.expression(), at: at.pos };
    }
    return left;
  }

  /** `[INNER] JOIN`, `LEFT [OUTER] JOIN`, `RIGHT [OUTER]`, `FULL [OUTER]`, `[LEFT] SEMI`, `[LEFT] ANTI`; null when none follows. */
  private joinType(): JoinType | null {
    const s = this.s;
    let type: JoinType | null = null;
    if (s.accept("kw", "JOIN")) return "inner";
    if (s.accept("kw", "INNER")) type = "inner";
    else if (s.accept("kw", "LEFT")) {
      if (s.accept("kw", "SEMI")) type = "leftSemi";
      else if (s.accept("kw", "ANTI")) type = "leftAnti";
      else {
        s.accept("kw", "OUTER");
        type = "left";
      }
    } else if (s.accept("kw", "RIGHT")) {
      s.accept("kw", "OUTER");
      type = "right";
    } else if (s.accept("kw", "FULL")) {
      s.accept("kw", "OUTER");
      type = "full";
    } else if (s.accept("kw", "SEMI")) type = "leftSemi";
    else if (s.accept("kw", "ANTI")) type = "leftAnti";
    else if (s.is("kw", "CROSS")) throw s.errorAt(s.token, "UNSUPPORTED_FEATURE", "Sluice has no CROSS JOIN; join with JOIN ... ON <condition>.");
    else return null;
    s.expect("kw", "JOIN");
    return type;
  }

  private relationPrimary(): Relation {
    const at = this.s.token;
    if (this.s.accept("op", "(")) {
      if (this.s.is("kw", "SELECT") || this.s.is("op", "(")) {
        // A parenthesised query, or a parenthesised relation: tell them apart by what the parenthesis holds.
        if (this.s.is("kw", "SELECT") || this.startsQuery()) {
          const query = this.query();
          this.s.expect("op", ")");
          return { kind: "subquery", query, alias: this.alias(), at: at.pos };
        }
      }
      const inner = this.relation();
      this.s.expect("op", ")");
      return inner;
    }
    const name = this.s.token;
    if (name.kind !== "ident") throw this.s.syntaxError();
    this.s.next();
    return { kind: "table", name: name.text, alias: this.alias(), at: name.pos };
  }

  /** After '(' followed by more '(': whether the first non-'(' token starts a SELECT. */
  private startsQuery(): boolean {
    let n = 0;
    while (this.s.peek(n).kind === "op" && this.s.peek(n).text === "(") n++;
    return this.s.peek(n).kind === "kw" && this.s.peek(n).text === "SELECT";
  }
}
