import type { ParseException } from "../errors/errors.js";
import { describeToken, type Token, type TokenKind } from "./lexer.js";
import { parseError, type SqlErrorClass } from "./sql-errors.js";

/** A cursor over the tokens of one SQL text, shared by the expression and the query parser. */
export class TokenStream {
  private i = 0;

  constructor(
    readonly sql: string,
    private readonly tokens: readonly Token[],
  ) {}

  get token(): Token {
    return this.tokens[this.i]!;
  }

  /** The token `n` places ahead (the end-of-input token past the end). */
  peek(n = 1): Token {
    return this.tokens[Math.min(this.i + n, this.tokens.length - 1)]!;
  }

  get previous(): Token {
    return this.tokens[this.i - 1]!;
  }

  next(): Token {
    return this.tokens[this.i++]!;
  }

  back(): void {
    this.i--;
  }

  is(kind: TokenKind, text?: string): boolean {
    const t = this.token;
    return t.kind === kind && (text === undefined || t.text === text);
  }

  /** An unquoted word, keyword or not, case-insensitively (FIRST, LAST, NULLS, SEMI...). */
  isWord(word: string): boolean {
    const t = this.token;
    return (t.kind === "kw" || (t.kind === "ident" && !t.quoted)) && t.text.toUpperCase() === word;
  }

  accept(kind: TokenKind, text?: string): Token | null {
    return this.is(kind, text) ? this.next() : null;
  }

  acceptWord(word: string): Token | null {
    return this.isWord(word) ? this.next() : null;
  }

  expect(kind: TokenKind, text: string): Token {
    const t = this.accept(kind, text);
    if (!t) throw this.syntaxError(`missing '${text}'`);
    return t;
  }

  /** Spark's PARSE_SYNTAX_ERROR at the current token, with an optional hint ("missing ')'"). */
  syntaxError(hint?: string, at: Token = this.token): ParseException {
    return parseError(this.sql, at.pos, "PARSE_SYNTAX_ERROR", `Syntax error at or near ${describeToken(at)}${hint ? `: ${hint}` : ""}.`);
  }

  errorAt(at: Token | number, errorClass: SqlErrorClass, message: string): ParseException {
    return parseError(this.sql, typeof at === "number" ? at : at.pos, errorClass, message);
  }

  /** Fails unless every token was read (a `;` may end the text). */
  end(): void {
    this.accept("op", ";");
    if (this.token.kind !== "eof") throw this.syntaxError(`extra input ${describeToken(this.token)}`);
  }
}
