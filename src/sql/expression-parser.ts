import type { DType } from "../types/dtype.js";
import type { ArithOp, CmpOp, Expr, Literal } from "../expr/ast.js";
import { intervalExpr } from "../expr/interval.js";
import { literalExpr } from "../expr/literal.js";
import { callExpr } from "./function-registry.js";
import { tokenize, type Token } from "./lexer.js";
import { CAST_TYPES } from "./cast-types.js";
import { noDistinctAggregates, SourceSpans } from "./source-spans.js";
import { quoteName } from "./sql-errors.js";
import { TokenStream } from "./token-stream.js";

/**
 * SQL expressions, by recursive descent. Precedence, lowest first: OR, AND, NOT, comparisons /
 * IS NULL / IN / BETWEEN, + - ||, * / %, unary minus. Names are columns (`t.col` and `window.start`
 * as dotted parts, backquotes for any other name), calls name the functions of
 * function-registry.ts. The result is Sluice's own expression tree; where each column reference
 * and call stood in the text is kept in `SourceSpans` for the errors of later analysis.
 */

/** `expr("...")`: one expression, optionally `AS name`. */
export function parseSqlExpression(sql: string): Expr {
  const stream = new TokenStream(sql, tokenize(sql));
  const parser = new ExpressionParser(stream, new SourceSpans());
  const e = parser.expression();
  const aliased = stream.accept("kw", "AS") ? { kind: "alias" as const, child: e, name: parser.name() } : e;
  stream.end();
  const distinct = parser.spans.distinctAggregates[0];
  if (distinct) throw stream.errorAt(distinct.at, "UNSUPPORTED_FEATURE", noDistinctAggregates(distinct.name));
  return aliased;
}

const CMP: Readonly<Record<string, CmpOp>> = { "=": "=", "==": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=" };

export class ExpressionParser {
  constructor(
    private readonly s: TokenStream,
    readonly spans: SourceSpans,
  ) {}

  /** A name: an identifier, or a backquoted one. */
  name(): string {
    const t = this.s.accept("ident");
    if (!t) throw this.s.syntaxError();
    return t.text;
  }

  expression(): Expr {
    const start = this.s.token;
    let e = this.conjunction();
    while (this.s.accept("kw", "OR")) e = { kind: "logic", op: "or", left: e, right: this.conjunction() };
    return this.spans.offsetOf(e) === undefined ? this.spans.mark(e, start) : e;
  }

  private conjunction(): Expr {
    let e = this.negation();
    while (this.s.accept("kw", "AND")) e = { kind: "logic", op: "and", left: e, right: this.negation() };
    return e;
  }

  private negation(): Expr {
    if (this.s.accept("kw", "NOT")) return { kind: "not", child: this.negation() };
    return this.predicate();
  }

  private predicate(): Expr {
    const left = this.additive();
    const op = this.s.token.kind === "op" ? CMP[this.s.token.text] : undefined;
    if (op) {
      this.s.next();
      return { kind: "cmp", op, left, right: this.additive() };
    }
    if (this.s.accept("kw", "IS")) {
      const negated = this.s.accept("kw", "NOT") !== null;
      if (!this.s.accept("kw", "NULL")) throw this.s.syntaxError();
      return { kind: "isNull", child: left, negated };
    }
    const not = this.s.accept("kw", "NOT") !== null;
    let e: Expr | null = null;
    if (this.s.accept("kw", "IN")) e = { kind: "in", child: left, values: this.literalList() };
    else if (this.s.accept("kw", "BETWEEN")) {
      const low = this.additive();
      this.s.expect("kw", "AND");
      const high = this.additive();
      e = { kind: "logic", op: "and", left: { kind: "cmp", op: ">=", left, right: low }, right: { kind: "cmp", op: "<=", left, right: high } };
    }
    if (e === null) {
      if (not) throw this.s.syntaxError();
      return left;
    }
    return not ? { kind: "not", child: e } : e;
  }

  private literalList(): Literal[] {
    this.s.expect("op", "(");
    const values: Literal[] = [];
    do {
      const at = this.s.token;
      const e = this.unary();
      if (e.kind !== "lit") throw this.s.errorAt(at, "UNSUPPORTED_FEATURE", "IN takes a list of literals in Sluice.");
      values.push(e.value);
    } while (this.s.accept("op", ","));
    this.s.expect("op", ")");
    return values;
  }

  /** `+`, `-` and `||` (Spark's string concatenation, at the same level), left to right. */
  private additive(): Expr {
    let e = this.multiplicative();
    for (;;) {
      if (this.s.accept("op", "||")) e = { kind: "call", fn: "concat", args: [e, this.multiplicative()] };
      else {
        const op = this.arithOp("+", "-");
        if (!op) return e;
        e = { kind: "arith", op, left: e, right: this.multiplicative() };
      }
    }
  }

  private multiplicative(): Expr {
    let e = this.unary();
    for (let t = this.arithOp("*", "/", "%"); t; t = this.arithOp("*", "/", "%")) e = { kind: "arith", op: t, left: e, right: this.unary() };
    return e;
  }

  private arithOp(...ops: ArithOp[]): ArithOp | null {
    const t = this.s.token;
    if (t.kind !== "op" || !ops.includes(t.text as ArithOp)) return null;
    this.s.next();
    return t.text as ArithOp;
  }

  private unary(): Expr {
    if (this.s.accept("op", "-")) {
      const child = this.unary();
      // A negative number is a literal, as Spark folds it.
      if (child.kind === "lit" && typeof child.value === "number") return literalOfNumber(-child.value, child.type);
      return { kind: "call", fn: "negate", args: [child] };
    }
    if (this.s.accept("op", "+")) return this.unary();
    return this.primary();
  }

  private primary(): Expr {
    const t = this.s.token;
    switch (t.kind) {
      case "num":
        this.s.next();
        return numberLiteral(t.text);
      case "str":
        this.s.next();
        return literalExpr(t.text);
      case "ident":
        if (!t.quoted && this.s.peek().kind === "op" && this.s.peek().text === "(") {
          this.s.next();
          this.s.next();
          return this.call(t);
        }
        return this.columnReference();
      case "op":
        if (this.s.accept("op", "(")) {
          const e = this.expression();
          this.s.expect("op", ")");
          return e;
        }
        break;
      case "kw":
        return this.keyword(t);
      case "eof":
        break;
    }
    throw this.s.syntaxError();
  }

  /** `a`, `t.a`, `window.start`, `` `my col` ``: dotted parts, joined by "." in the column's name. */
  columnReference(): Expr {
    const first = this.s.token;
    const parts = [this.name()];
    // After a dot any word is a name, keywords included (`window.end`).
    while (this.s.is("op", ".") && (this.s.peek().kind === "ident" || this.s.peek().kind === "kw")) {
      this.s.next();
      const part = this.s.next();
      parts.push(part.raw ?? part.text);
    }
    return this.spans.mark({ kind: "col", name: parts.join(".") }, first, parts);
  }

  private keyword(t: Token): Expr {
    this.s.next();
    switch (t.text) {
      case "NULL":
        return literalExpr(null);
      case "TRUE":
      case "FALSE":
        return literalExpr(t.text === "TRUE");
      case "INTERVAL":
        return this.interval(t);
      case "CAST": {
        this.s.expect("op", "(");
        const child = this.expression();
        this.s.expect("kw", "AS");
        const typeToken = this.s.token;
        if (typeToken.kind !== "ident") throw this.s.syntaxError();
        const to = CAST_TYPES[typeToken.text.toUpperCase()];
        if (!to) {
          throw this.s.errorAt(typeToken, "UNSUPPORTED_DATATYPE", `Unsupported data type "${typeToken.text.toUpperCase()}"; Sluice casts to ${Object.keys(CAST_TYPES).join(", ")}.`);
        }
        this.s.next();
        this.s.expect("op", ")");
        return { kind: "cast", child, to };
      }
      case "CASE":
        return this.caseWhen();
    }
    this.s.back();
    throw this.s.syntaxError();
  }

  /** `CASE WHEN c THEN v ... [ELSE v] END`, and the simple form `CASE x WHEN v THEN r ... END`. */
  private caseWhen(): Expr {
    const subject = this.s.is("kw", "WHEN") ? null : this.expression();
    const branches: { when: Expr; then: Expr }[] = [];
    while (this.s.accept("kw", "WHEN")) {
      const value = this.expression();
      const when: Expr = subject ? { kind: "cmp", op: "=", left: subject, right: value } : value;
      this.s.expect("kw", "THEN");
      branches.push({ when, then: this.expression() });
    }
    if (branches.length === 0) throw this.s.syntaxError("missing 'WHEN'");
    const otherwise = this.s.accept("kw", "ELSE") ? this.expression() : null;
    this.s.expect("kw", "END");
    return { kind: "case", branches, otherwise };
  }

  /** `INTERVAL '1 hour'`, `INTERVAL '10' MINUTE`, or `INTERVAL 1 hour 30 minutes`. */
  private interval(t: Token): Expr {
    const text = this.s.accept("str");
    if (text) {
      const unit = this.s.token.kind === "ident" && !this.s.token.quoted ? this.s.next().text : null;
      return this.intervalOf(unit ? `${text.text} ${unit}` : text.text, text);
    }
    const parts: string[] = [];
    while (this.s.is("num") || this.s.is("op", "-")) {
      const sign = this.s.accept("op", "-") ? "-" : "";
      const n = this.s.accept("num");
      if (!n) throw this.s.syntaxError();
      const unit = this.s.accept("ident");
      if (!unit) throw this.s.syntaxError("missing a unit, e.g. INTERVAL 10 MINUTES");
      parts.push(`${sign}${n.text} ${unit.text}`);
    }
    if (parts.length === 0) throw this.s.syntaxError("missing an interval such as INTERVAL 10 MINUTES or INTERVAL '1 hour'");
    return this.intervalOf(parts.join(" "), t);
  }

  private intervalOf(text: string, at: Token): Expr {
    try {
      return intervalExpr(text);
    } catch (error) {
      throw this.s.errorAt(at, "INVALID_INTERVAL_FORMAT", (error as Error).message.replace(/[^.]$/, "$&."));
    }
  }

  private call(nameToken: Token): Expr {
    const distinct = this.s.accept("kw", "DISTINCT") !== null;
    let args: Expr[] | "*";
    if (this.s.is("op", "*") && this.s.peek().text === ")") {
      this.s.next();
      args = "*";
    } else {
      args = [];
      if (!this.s.is("op", ")")) {
        do args.push(this.expression());
        while (this.s.accept("op", ","));
      }
    }
    this.s.expect("op", ")");
    let result: ReturnType<typeof callExpr>;
    try {
      result = callExpr(nameToken.text, args);
    } catch (error) {
      // A window's duration that does not parse: the message names the argument.
      throw this.s.errorAt(nameToken, "INVALID_SQL_SYNTAX", `${(error as Error).message.replace(/[^.]$/, "$&.")}`);
    }
    if (!("problem" in result)) {
      if (distinct) {
        if (result.kind !== "agg" || result.child === null) throw this.s.syntaxError(undefined, nameToken);
        this.spans.markDistinct(result, nameToken);
      }
      return this.spans.mark(result, nameToken);
    }
    switch (result.problem) {
      case "unknownFunction":
        throw this.s.errorAt(nameToken, "UNRESOLVED_ROUTINE", `Cannot resolve routine ${quoteName(nameToken.text)} on search path [\`system\`.\`builtin\`, \`system\`.\`session\`].`);
      case "wrongArgCount":
        throw this.s.errorAt(
          nameToken,
          "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
          `The ${quoteName(result.fn)} requires ${result.expected} parameters but the actual number is ${result.got}.`,
        );
      case "notLiteral":
        throw this.s.errorAt(nameToken, "INVALID_SQL_SYNTAX", `${result.fn}() takes ${result.what}.`);
    }
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
