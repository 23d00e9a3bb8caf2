import { parseError } from "./sql-errors.js";

/**
 * Splits SQL text into tokens, each with its offset, 1-based line and 0-based column (Spark's
 * `pos`), so that every error can point at the token it is about. Words that SQL reserves come
 * out as `kw` tokens (upper-cased); other words, and any name in backquotes, as `ident`.
 */

export type TokenKind = "num" | "str" | "ident" | "kw" | "op" | "eof";

export interface Token {
  readonly kind: TokenKind;
  /** Upper-cased for keywords; the unquoted text for strings and backquoted names. */
  readonly text: string;
  /** Offset of the token's first character in the text. */
  readonly pos: number;
  readonly line: number;
  readonly column: number;
  /** For `ident`: written in backquotes (never a keyword, case kept). */
  readonly quoted?: boolean;
  /** For `kw`: the word as written (a keyword after a dot is a name: `window.end`). */
  readonly raw?: string;
}

/**
 * Words that cannot stand as a bare name: they start or end clauses, so reading them as a column
 * or an alias would make queries ambiguous. Others (FIRST, LAST, NULLS, ...) are keywords only where
 * the grammar expects them, as in Spark's default (non-ANSI) mode.
 */
const RESERVED = new Set([
  "ALL", "AND", "ANTI", "AS", "ASC", "BETWEEN", "BY", "CASE", "CAST", "CROSS", "DESC", "DISTINCT", "ELSE", "END", "EXCEPT",
  "FALSE", "FROM", "FULL", "GROUP", "HAVING", "IN", "INNER", "INTERSECT", "INTERVAL", "IS", "JOIN", "LEFT", "LIMIT", "NOT",
  "NULL", "ON", "OR", "ORDER", "OUTER", "RIGHT", "SELECT", "SEMI", "THEN", "TRUE", "UNION", "USING", "WHEN", "WHERE", "WITH",
]);

// Sticky patterns read at an offset without copying the rest of the text.
const NUMBER = /(\d+\.?\d*|\.\d+)(e[+-]?\d+)?[LD]?/iy;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;

const OPERATORS = ["<=>", "||", "==", "!=", "<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ".", ";"];

const SYNTAX_ERROR = "PARSE_SYNTAX_ERROR" as const;

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const push = (kind: TokenKind, text: string, start: number, extra: { quoted?: boolean; raw?: string } = {}) =>
    tokens.push({ kind, text, pos: start, line, column: start - lineStart, ...extra });
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "\n") {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (sql.startsWith("--", i)) {
      while (i < sql.length && sql[i] !== "\n") i++;
      continue;
    }
    if (sql.startsWith("/*", i)) {
      const close = sql.indexOf("*/", i + 2);
      if (close < 0) throw parseError(sql, i, SYNTAX_ERROR, "Syntax error at or near '/*': unclosed bracketed comment.");
      for (let j = i; j < close; j++) {
        if (sql[j] === "\n") {
          line++;
          lineStart = j + 1;
        }
      }
      i = close + 2;
      continue;
    }
    const start = i;
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(sql[i + 1] ?? ""))) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(sql)!;
      push("num", m[0], start);
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
      if (i >= sql.length) throw parseError(sql, start, SYNTAX_ERROR, `Syntax error at or near '${c}': unclosed string literal.`);
      i++;
      push("str", text, start);
    } else if (c === "`") {
      let text = "";
      i++;
      // A backquote inside a quoted name is written twice, as Spark reads it.
      while (i < sql.length && (sql[i] !== "`" || sql[i + 1] === "`")) {
        text += sql[i]!;
        i += sql[i] === "`" ? 2 : 1;
      }
      if (i >= sql.length) throw parseError(sql, start, SYNTAX_ERROR, "Syntax error at or near '`': unclosed quoted name.");
      i++;
      push("ident", text, start, { quoted: true });
    } else if (/[A-Za-z_]/.test(c)) {
      WORD.lastIndex = i;
      const word = WORD.exec(sql)![0];
      const upper = word.toUpperCase();
      if (RESERVED.has(upper)) push("kw", upper, start, { raw: word });
      else push("ident", word, start);
      i += word.length;
    } else {
      const op = OPERATORS.find((o) => sql.startsWith(o, i));
      if (!op) throw parseError(sql, start, SYNTAX_ERROR, `Syntax error at or near '${c}'.`);
      push("op", op, start);
      i += op.length;
    }
  }
  push("eof", "end of input", sql.length);
  return tokens;
}

/** A token as Spark's "Syntax error at or near ..." names it. */
export function describeToken(t: Token): string {
  switch (t.kind) {
    case "eof":
      return "end of input";
    case "str":
      return `''${t.text}''`;
    case "ident":
      return t.quoted ? `'\`${t.text}\`'` : `'${t.text}'`;
    default:
      return `'${t.text}'`;
  }
}
