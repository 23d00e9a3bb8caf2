/**
 * A lexical pass over the SQL text a client sends, enough to do what the protocol layer must do
 * before Sluice's SQL parser sees a statement: split a simple query at its semicolons, find the
 * `$1` placeholders of an extended query, and read a statement's leading words (SET, SHOW,
 * BEGIN...). Strings, quoted names and comments are skipped as units, as Spark SQL's lexer reads
 * them, so a `;` or a `$1` inside them is left alone. Positions are offsets in the text (UTF-16
 * code units).
 */

export type TokenKind = "word" | "quoted" | "string" | "number" | "param" | "symbol";

export interface Token {
  readonly kind: TokenKind;
  /** The token's text; for a string or quoted identifier, its value without quotes or escapes. */
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

export interface Statement {
  /** The statement's text, from its first token to its last (no semicolon, no comment around it). */
  readonly text: string;
  /** Its offset in the whole query text (an error position inside it is shifted by this). */
  readonly start: number;
  readonly tokens: readonly Token[];
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const DIGIT = /[0-9]/;

/** The tokens of `sql`; comments and white space are dropped, an unterminated quote runs to the end. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const start = i;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "-" && sql[i + 1] === "-") {
      while (i < sql.length && sql[i] !== "\n") i++;
    } else if (c === "/" && sql[i + 1] === "*") {
      i = blockCommentEnd(sql, i);
    } else if (c === "'" || c === '"' || c === "`") {
      const { end, value } = quoted(sql, i, c);
      tokens.push({ kind: c === "`" ? "quoted" : "string", text: value, start, end });
      i = end;
    } else if (c === "$" && DIGIT.test(sql[i + 1] ?? "")) {
      i++;
      while (i < sql.length && DIGIT.test(sql[i]!)) i++;
      tokens.push({ kind: "param", text: sql.slice(start, i), start, end: i });
    } else if (WORD_START.test(c)) {
      while (i < sql.length && WORD_PART.test(sql[i]!)) i++;
      tokens.push({ kind: "word", text: sql.slice(start, i), start, end: i });
    } else if (DIGIT.test(c) || (c === "." && DIGIT.test(sql[i + 1] ?? ""))) {
      while (i < sql.length && /[0-9.eE]/.test(sql[i]!)) i++;
      tokens.push({ kind: "number", text: sql.slice(start, i), start, end: i });
    } else {
      i++;
      tokens.push({ kind: "symbol", text: c, start, end: i });
    }
  }
  return tokens;
}

/** The statements of a simple query, split at semicolons outside quotes and comments; empty ones are dropped. */
export function splitStatements(sql: string): Statement[] {
  const out: Statement[] = [];
  let current: Token[] = [];
  const flush = () => {
    if (current.length > 0) {
      const from = current[0]!.start;
      out.push({ text: sql.slice(from, current[current.length - 1]!.end), start: from, tokens: current });
    }
    current = [];
  };
  for (const t of tokenize(sql)) {
    if (t.kind === "symbol" && t.text === ";") {
      flush();
    } else {
      current.push(t);
    }
  }
  flush();
  return out;
}


/** The highest `$n` a statement uses (the number of parameters it takes when the client gives no types). */
export function parameterCount(tokens: readonly Token[]): number {
  let max = 0;
  for (const t of tokens) if (t.kind === "param") max = Math.max(max, Number(t.text.slice(1)));
  return max;
}

/**
 * The statement with each `$n` replaced by `literals[n - 1]`, and a function that maps a position
 * in the new text back to the original (so an error's position points at what the client wrote).
 */
export function substituteParameters(statement: Statement, literals: readonly string[]): { text: string; originalPosition: (at: number) => number } {
  const shifts: { at: number; originalEnd: number; newEnd: number }[] = [];
  let text = "";
  let from = 0;
  const base = statement.start;
  for (const t of statement.tokens) {
    if (t.kind !== "param") continue;
    text += statement.text.slice(from, t.start - base);
    const start = text.length;
    text += literals[Number(t.text.slice(1)) - 1] ?? "NULL";
    shifts.push({ at: start, originalEnd: t.end - base, newEnd: text.length });
    from = t.end - base;
  }
  text += statement.text.slice(from);
  const originalPosition = (at: number): number => {
    let delta = 0;
    for (const s of shifts) {
      if (at < s.at) break;
      // Inside a substituted literal: point at its placeholder's start.
      if (at < s.newEnd) return s.at - delta;
      delta = s.newEnd - s.originalEnd;
    }
    return at - delta;
  };
  return { text, originalPosition };
}

/** Leading words of a statement, upper-cased ("SET", "TRANSACTION"...), for recognising commands. */
export function leadingWords(tokens: readonly Token[], n: number): string[] {
  const words: string[] = [];
  for (const t of tokens.slice(0, n)) {
    if (t.kind !== "word") break;
    words.push(t.text.toUpperCase());
  }
  return words;
}

function blockCommentEnd(sql: string, i: number): number {
  // Postgres's block comments nest.
  let depth = 0;
  while (i < sql.length) {
    if (sql[i] === "/" && sql[i + 1] === "*") {
      depth++;
      i += 2;
    } else if (sql[i] === "*" && sql[i + 1] === "/") {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return i;
}

/**
 * A string ('...' or "...", as Spark SQL reads both) or a backquoted name from `i`, its opening
 * quote: a doubled quote is one quote, and in strings a backslash escapes the next character.
 */
function quoted(sql: string, i: number, quote: string): { end: number; value: string } {
  let value = "";
  i++;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === quote) {
      if (sql[i + 1] === quote) {
        value += quote;
        i += 2;
        continue;
      }
      return { end: i + 1, value };
    }
    if (c === "\\" && quote !== "`" && i + 1 < sql.length) {
      value += sql[i + 1];
      i += 2;
      continue;
    }
    value += c;
    i++;
  }
  return { end: i, value };
}
