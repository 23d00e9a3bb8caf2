import { AnalysisError } from "../errors/errors.js";
import type { DType } from "../types/dtype.js";
import type { AggFn, ArithOp, CmpOp, Expr, Literal, ScalarFn } from "./ast.js";
import { intervalExpr } from "./interval.js";
import { literalExpr } from "./literal.js";

/**
 * `expr("...")`: a small recursive-descent parser for the SQL expressions Spark's `expr` is
 * mostly used for. Precedence, lowest first: OR, AND, NOT, comparisons / IS NULL / IN / BETWEEN,
 * + -, * / %, unary minus. Identifiers name columns (`window.start` included, backquotes for
 * other names), calls name Sluice's functions, and a trailing `AS name` aliases the result. A
 * syntax error is an AnalysisError naming the position, with the text and a caret under it, as
 * Spark's ParseException prints them.
 */
export function parseSqlExpression(sql: string): Expr {
  const parser = new Parser(sql, tokenize(sql));
  const e = parser.expression();
  const aliased = parser.accept("kw", "AS") ? { kind: "alias" as const, child: e, name: parser.name() } : e;
  parser.end();
  return aliased;
}

type TokenKind = "num" | "str" | "ident" | "kw" | "op" | "eof";
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly pos: number;
}

const KEYWORDS = new Set(["AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "IN", "BETWEEN", "CAST", "AS", "INTERVAL", "CASE", "WHEN", "THEN", "ELSE", "END"]);
const OPERATORS = ["<=>", "==", "!=", "<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ","];

function syntaxError(sql: string, pos: number, what: string): AnalysisError {
  return new AnalysisError(`expr(): ${what} at position ${pos + 1}:\n${sql}\n${" ".repeat(pos)}^`);
}

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(sql[i + 1] ?? ""))) {
      const m = /^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?[LD]?/i.exec(sql.slice(i))!;
      tokens.push({ kind: "num", text: m[0], pos: start });
      i += m[0].length;
    } else if (c === "'" || c === '"') {
      let text = "";
      i++;
      while (i < sql.length && sql[i] !== c) {
        if (sql[i] === "\\" && i + 1 < sql.length) {
          const next = sql[i + 1]!;
          text += next === "n" ? "\n" : next === "t" ? "\t" : next;
          i += 2;
        } else text += sql[i++];
      }
      if (i >= sql.length) throw syntaxError(sql, start, "unterminated string literal");
      i++;
      tokens.push({ kind: "str", text, pos: start });
    } else if (c === "`") {
      const close = sql.indexOf("`", i + 1);
      if (close < 0) throw syntaxError(sql, start, "unterminated quoted name");
      tokens.push({ kind: "ident", text: sql.slice(i + 1, close), pos: start });
      i = close + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(sql.slice(i))!;
      const upper = m[0].toUpperCase();
      tokens.push(KEYWORDS.has(upper) ? { kind: "kw", text: upper, pos: start } : { kind: "ident", text: m[0], pos: start });
      i += m[0].length;
    } else {
      const op = OPERATORS.find((o) => sql.startsWith(o, i));
      if (!op) throw syntaxError(sql, start, `unexpected character '${c}'`);
      tokens.push({ kind: "op", text: op, pos: start });
      i += op.length;
    }
  }
  tokens.push({ kind: "eof", text: "end of input", pos: sql.length });
  return tokens;
}

const CAST_TYPES: Readonly<Record<string, DType>> = {
  STRING: "string",
  INT: "int32",
  INTEGER: "int32",
  BIGINT: "int64",
  LONG: "int64",
  // Sluice has one floating-point type: FLOAT is read as DOUBLE.
  DOUBLE: "float64",
  FLOAT: "float64",
  BOOLEAN: "boolean",
  TIMESTAMP: "timestamp",
  BINARY: "binary",
};

const SCALAR_FNS: ReadonlySet<string> = new Set<ScalarFn>([
  "lower", "upper", "length", "concat", "substring", "to_timestamp", "date_trunc", "hour", "unix_seconds", "unix_millis", "unix_micros",
  "base64", "unbase64", "hex", "timestamp_seconds", "window_time", "split",
]);
const AGG_FNS: ReadonlySet<string> = new Set<AggFn>(["count", "sum", "avg", "min", "max", "first", "last"]);
const FN_SYNONYMS: Readonly<Record<string, string>> = { substr: "substring", lcase: "lower", ucase: "upper", char_length: "length", mean: "avg" };

const CMP: Readonly<Record<string, CmpOp>> = { "=": "=", "==": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=" };

class Parser {
  private i = 0;

  constructor(
    private readonly sql: string,
    private readonly tokens: readonly Token[],
  ) {}

  private get token(): Token {
    return this.tokens[this.i]!;
  }

  accept(kind: TokenKind, text?: string): Token | null {
    const t = this.token;
    if (t.kind !== kind || (text !== undefined && t.text !== text)) return null;
    this.i++;
    return t;
  }

  private expect(kind: TokenKind, text: string): Token {
    const t = this.accept(kind, text);
    if (!t) throw this.unexpected(`'${text}'`);
    return t;
  }

  private unexpected(wanted: string): AnalysisError {
    const t = this.token;
    return syntaxError(this.sql, t.pos, `expected ${wanted} but found ${t.kind === "eof" ? "the end of the text" : `'${t.kind === "str" ? `'${t.text}'` : t.text}'`}`);
  }

  end(): void {
    if (this.token.kind !== "eof") throw this.unexpected("the end of the expression");
  }

  name(): string {
    const t = this.accept("ident");
    if (!t) throw this.unexpected("a name");
    return t.text;
  }

  expression(): Expr {
    let e = this.conjunction();
    while (this.accept("kw", "OR")) e = { kind: "logic", op: "or", left: e, right: this.conjunction() };
    return e;
  }

  private conjunction(): Expr {
    let e = this.negation();
    while (this.accept("kw", "AND")) e = { kind: "logic", op: "and", left: e, right: this.negation() };
    return e;
  }

  private negation(): Expr {
    if (this.accept("kw", "NOT")) return { kind: "not", child: this.negation() };
    return this.predicate();
  }

  private predicate(): Expr {
    const left = this.additive();
    const op = this.token.kind === "op" ? CMP[this.token.text] : undefined;
    if (op) {
      this.i++;
      return { kind: "cmp", op, left, right: this.additive() };
    }
    if (this.accept("kw", "IS")) {
      const negated = this.accept("kw", "NOT") !== null;
      this.expect("kw", "NULL");
      return { kind: "isNull", child: left, negated };
    }
    const not = this.accept("kw", "NOT") !== null;
    let e: Expr | null = null;
    if (this.accept("kw", "IN")) e = { kind: "in", child: left, values: this.literalList() };
    else if (this.accept("kw", "BETWEEN")) {
      const low = this.additive();
      this.expect("kw", "AND");
      const high = this.additive();
      e = { kind: "logic", op: "and", left: { kind: "cmp", op: ">=", left, right: low }, right: { kind: "cmp", op: "<=", left, right: high } };
    }
    if (e === null) {
      if (not) throw this.unexpected("IN or BETWEEN after NOT");
      return left;
    }
    return not ? { kind: "not", child: e } : e;
  }

  private literalList(): Literal[] {
    this.expect("op", "(");
    const values: Literal[] = [];
    do {
      const e = this.unary();
      if (e.kind !== "lit") throw syntaxError(this.sql, this.tokens[this.i - 1]!.pos, "IN takes a list of literals");
      values.push(e.value);
    } while (this.accept("op", ","));
    this.expect("op", ")");
    return values;
  }

  private additive(): Expr {
    let e = this.multiplicative();
    for (let t = this.arithOp("+", "-"); t; t = this.arithOp("+", "-")) e = { kind: "arith", op: t, left: e, right: this.multiplicative() };
    return e;
  }

  private multiplicative(): Expr {
    let e = this.unary();
    for (let t = this.arithOp("*", "/", "%"); t; t = this.arithOp("*", "/", "%")) e = { kind: "arith", op: t, left: e, right: this.unary() };
    return e;
  }

  private arithOp(...ops: ArithOp[]): ArithOp | null {
    const t = this.token;
    if (t.kind !== "op" || !ops.includes(t.text as ArithOp)) return null;
    this.i++;
    return t.text as ArithOp;
  }

  private unary(): Expr {
    if (this.accept("op", "-")) {
      const child = this.unary();
      // A negative number is a literal, as Spark folds it.
      if (child.kind === "lit" && typeof child.value === "number") return literalOfNumber(-child.value, child.type);
      return { kind: "call", fn: "negate", args: [child] };
    }
    if (this.accept("op", "+")) return this.unary();
    return this.primary();
  }

  private primary(): Expr {
    const t = this.token;
    switch (t.kind) {
      case "num":
        this.i++;
        return numberLiteral(t.text);
      case "str":
        this.i++;
        return literalExpr(t.text);
      case "ident":
        this.i++;
        return this.accept("op", "(") ? this.call(t) : { kind: "col", name: t.text };
      case "op":
        if (this.accept("op", "(")) {
          const e = this.expression();
          this.expect("op", ")");
          return e;
        }
        break;
      case "kw":
        return this.keyword(t);
      case "eof":
        break;
    }
    throw this.unexpected("an expression");
  }

  private keyword(t: Token): Expr {
    this.i++;
    switch (t.text) {
      case "NULL":
        return literalExpr(null);
      case "TRUE":
      case "FALSE":
        return literalExpr(t.text === "TRUE");
      case "INTERVAL":
        return this.interval(t);
      case "CAST": {
        this.expect("op", "(");
        const child = this.expression();
        this.expect("kw", "AS");
        const typeToken = this.token;
        const to = typeToken.kind === "ident" ? CAST_TYPES[typeToken.text.toUpperCase()] : undefined;
        if (!to) throw syntaxError(this.sql, typeToken.pos, `unknown type '${typeToken.text}'; Sluice casts to ${Object.keys(CAST_TYPES).join(", ")}`);
        this.i++;
        this.expect("op", ")");
        return { kind: "cast", child, to };
      }
      case "CASE": {
        const branches: { when: Expr; then: Expr }[] = [];
        while (this.accept("kw", "WHEN")) {
          const when = this.expression();
          this.expect("kw", "THEN");
          branches.push({ when, then: this.expression() });
        }
        if (branches.length === 0) throw this.unexpected("WHEN");
        const otherwise = this.accept("kw", "ELSE") ? this.expression() : null;
        this.expect("kw", "END");
        return { kind: "case", branches, otherwise };
      }
    }
    this.i--;
    throw this.unexpected("an expression");
  }

  /** `INTERVAL '1 hour'` or `INTERVAL 1 hour 30 minutes`. */
  private interval(t: Token): Expr {
    const text = this.accept("str");
    if (text) return this.intervalOf(text.text, text.pos);
    const parts: string[] = [];
    while (this.token.kind === "num" || (this.token.kind === "op" && this.token.text === "-")) {
      const sign = this.accept("op", "-") ? "-" : "";
      const n = this.accept("num");
      const unit = n && this.accept("ident");
      if (!unit) throw this.unexpected("a number and a unit, e.g. INTERVAL 10 MINUTES");
      parts.push(`${sign}${n!.text} ${unit.text}`);
    }
    if (parts.length === 0) throw this.unexpected("an interval such as INTERVAL 10 MINUTES or INTERVAL '1 hour'");
    return this.intervalOf(parts.join(" "), t.pos);
  }

  private intervalOf(text: string, pos: number): Expr {
    try {
      return intervalExpr(text);
    } catch (error) {
      throw syntaxError(this.sql, pos, (error as Error).message);
    }
  }

  private call(nameToken: Token): Expr {
    const lower = nameToken.text.toLowerCase();
    const fn = FN_SYNONYMS[lower] ?? lower;
    if (AGG_FNS.has(fn) && this.accept("op", "*")) {
      this.expect("op", ")");
      if (fn !== "count") throw syntaxError(this.sql, nameToken.pos, `${fn}(*) is not defined; only count(*) is`);
      return { kind: "agg", fn: "count", child: null };
    }
    const args: Expr[] = [];
    if (!this.accept("op", ")")) {
      do args.push(this.expression());
      while (this.accept("op", ","));
      this.expect("op", ")");
    }
    if (AGG_FNS.has(fn)) {
      if (args.length !== 1) throw syntaxError(this.sql, nameToken.pos, `${fn}() takes one argument`);
      return { kind: "agg", fn: fn as AggFn, child: args[0]! };
    }
    if (fn === "explode") {
      if (args.length !== 1) throw syntaxError(this.sql, nameToken.pos, "explode() takes one argument");
      return { kind: "explode", child: args[0]! };
    }
    if (fn === "split" && args.length === 2) args.push(literalExpr(-1));
    if (!SCALAR_FNS.has(fn)) throw syntaxError(this.sql, nameToken.pos, `Sluice has no function '${nameToken.text}'`);
    return { kind: "call", fn: fn as ScalarFn, args };
  }
}

/** Spark's numeric literals: integers are INT (BIGINT beyond it, or with L), others DOUBLE (Sluice has no DECIMAL). */
function numberLiteral(text: string): Expr {
  const suffix = text.slice(-1).toUpperCase();
  const digits = suffix === "L" || suffix === "D" ? text.slice(0, -1) : text;
  const value = Number(digits);
  if (suffix === "D" || /[.e]/i.test(digits)) return { kind: "lit", value, type: "float64" };
  if (suffix === "L") return { kind: "lit", value, type: "int64" };
  return literalOfNumber(value, "int32");
}

function literalOfNumber(value: number, type: DType): Expr {
  if (type === "int32" && (value < -(2 ** 31) || value > 2 ** 31 - 1)) return { kind: "lit", value, type: "int64" };
  return { kind: "lit", value, type };
}
