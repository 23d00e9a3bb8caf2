import { escapeEnd } from "./json-escapes.js";
import { asciiText, EXACT_MANTISSA_LIMIT, EXACT_POWERS_OF_TEN } from "./json-number.js";
import { plainRunEnd, WordView } from "./plain-run.js";
import type { RecordProblem } from "./record-problem.js";
import { byteCode, describeByte, syntaxProblem } from "./record-problem.js";

/**
 * Token-level JSON scanning over UTF-8 bytes, one record at a time. Methods take a position and
 * return the position after what they read; what they found is left in fields (`str*`, `num*`)
 * rather than returned as objects, so the good path allocates nothing. Bad input throws a
 * `RecordProblem`.
 *
 * Nothing at or after `end` is read: the bytes there belong to the next record, which a
 * truncated record must not swallow. Tokens stop at `end` as at the end of the input, and
 * `peek` gives END for a position there.
 *
 * Records come framed in one of two ways (`Framing`):
 * - "lines": a newline ends a record, so it is not whitespace (a newline inside a record ends it
 *   and is reported as "end of line"). Control characters, newline included, are not allowed
 *   inside strings, so no token ever runs past its line, and `end` can stay at the end of the
 *   input.
 * - "values": `end` is the end of the record and a newline is whitespace like space, tab and
 *   carriage return.
 */

export type Framing = "lines" | "values";

export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const NEWLINE = 0x0a;
/** What `peek` gives at the end of the record; no byte value compares equal to it. */
export const END = -1;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;

/** Deeper nesting is refused rather than risking the call stack (Jackson's default limit too). */
export const MAX_NESTING_DEPTH = 1000;

function badLiteral(word: string): RecordProblem {
  return syntaxProblem(`invalid literal: expected '${word}'`);
}

function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= 0x39;
}

/** `src[p]`, or END when `p` is at (or past) `end`. */
export function byteAt(src: Uint8Array, p: number, end: number): number {
  return p < end ? src[p]! : END;
}

/** True for bytes that may start a JSON number. */
export function startsNumber(c: number): boolean {
  return c === MINUS || (c >= DIGIT_0 && c <= 0x39);
}

export class JsonScanner {
  src: Uint8Array = new Uint8Array(0);
  /** Content of the last string scanned: `src[strStart, strEnd)`, still escaped if `strEscaped`. */
  strStart = 0;
  strEnd = 0;
  strEscaped = false;
  /** The last number scanned; `numIntegral` when it had neither fraction nor exponent. */
  num = 0;
  numIntegral = true;
  /** False when the digits exceeded 2^53, so `num` may be rounded (integers: use the text). */
  numExact = true;

  /** Where the current record ends (exclusive). */
  end = 0;
  /** True for the "values" framing. */
  private newlineIsSpace = false;

  private readonly wordView = new WordView();

  /** Sets the input; `end` is its length until a record sets it. */
  reset(src: Uint8Array, framing: Framing): void {
    this.src = src;
    this.end = src.length;
    this.newlineIsSpace = framing === "values";
    this.wordView.reset(src);
  }

  /** The byte at `p`, or END when `p` is at (or past) the end of the record. */
  peek(p: number): number {
    return byteAt(this.src, p, this.end);
  }

  skipSpace(p: number): number {
    const src = this.src;
    const n = this.end;
    while (p < n) {
      const c = src[p]!;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d && (c !== NEWLINE || !this.newlineIsSpace)) break;
      p++;
    }
    return p;
  }

  /** `p` is at the opening quote. Returns the position after the closing quote. */
  scanString(p: number): number {
    const src = this.src;
    const n = this.end;
    const start = p + 1;
    let escaped = false;
    p = plainRunEnd(src, this.wordView, start, n);
    for (;;) {
      if (p >= n) throw syntaxProblem("unterminated string");
      const c = src[p]!;
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        p = plainRunEnd(src, this.wordView, escapeEnd(src, p, n), n);
        continue;
      }
      if (c < 0x20) {
        if (c === NEWLINE && !this.newlineIsSpace) throw syntaxProblem("unterminated string");
        throw syntaxProblem(`control character ${byteCode(c)} in string (escape it)`);
      }
      p++;
    }
    this.strStart = start;
    this.strEnd = p;
    this.strEscaped = escaped;
    return p + 1;
  }

  /** `p` is at '-' or a digit. Strict JSON grammar: no leading zeros, '+', '.5' or '5.'. */
  scanNumber(p: number): number {
    const src = this.src;
    const n = this.end;
    const start = p;
    const negative = src[p] === MINUS;
    if (negative) p++;
    let mantissa = 0;
    let exponent = 0;
    let integral = true;
    let c = p < n ? src[p]! : -1;
    if (c === DIGIT_0) {
      c = ++p < n ? src[p]! : -1;
    } else if (isDigit(c)) {
      do {
        mantissa = mantissa * 10 + (c - DIGIT_0);
        c = ++p < n ? src[p]! : -1;
      } while (isDigit(c));
    } else {
      throw this.badNumber(start, p);
    }
    if (c === DOT) {
      integral = false;
      c = ++p < n ? src[p]! : -1;
      if (!isDigit(c)) throw this.badNumber(start, p);
      do {
        mantissa = mantissa * 10 + (c - DIGIT_0);
        exponent--;
        c = ++p < n ? src[p]! : -1;
      } while (isDigit(c));
    }
    if (c === 0x65 || c === 0x45) {
      integral = false;
      c = ++p < n ? src[p]! : -1;
      let expSign = 1;
      if (c === MINUS || c === PLUS) {
        expSign = c === MINUS ? -1 : 1;
        c = ++p < n ? src[p]! : -1;
      }
      if (!isDigit(c)) throw this.badNumber(start, p);
      let e = 0;
      do {
        if (e < 1e6) e = e * 10 + (c - DIGIT_0);
        c = ++p < n ? src[p]! : -1;
      } while (isDigit(c));
      exponent += expSign * e;
    }
    // A letter or digit straight after a number ("01", "1x", "1.2.3") is part of a bad token.
    if (c === DOT || isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a)) throw this.badNumber(start, p + 1);
    const exact = mantissa < EXACT_MANTISSA_LIMIT;
    let value: number;
    if (exact && exponent === 0) value = mantissa;
    else if (exact && exponent < 0 && exponent >= -22) value = mantissa / EXACT_POWERS_OF_TEN[-exponent]!;
    else if (exact && exponent > 0 && exponent <= 22) value = mantissa * EXACT_POWERS_OF_TEN[exponent]!;
    else value = Math.abs(Number(asciiText(src, start, p))); // correctly rounded slow path
    this.num = negative ? -value : value;
    this.numIntegral = integral;
    this.numExact = exact;
    return p;
  }

  private badNumber(start: number, end: number): never {
    throw syntaxProblem(`invalid number '${asciiText(this.src, start, Math.min(end, this.end))}'`);
  }

  // The literals: `p` is at their first letter, already checked by the caller.

  expectTrue(p: number): number {
    const src = this.src;
    if (p + 4 > this.end || src[p + 1] !== 0x72 || src[p + 2] !== 0x75 || src[p + 3] !== 0x65) throw badLiteral("true");
    return p + 4;
  }

  expectFalse(p: number): number {
    const src = this.src;
    if (p + 5 > this.end || src[p + 1] !== 0x61 || src[p + 2] !== 0x6c || src[p + 3] !== 0x73 || src[p + 4] !== 0x65) throw badLiteral("false");
    return p + 5;
  }

  expectNull(p: number): number {
    const src = this.src;
    if (p + 4 > this.end || src[p + 1] !== 0x75 || src[p + 2] !== 0x6c || src[p + 3] !== 0x6c) throw badLiteral("null");
    return p + 4;
  }

  /** Skips (and validates) any JSON value at `p`. `depth` counts the enclosing containers. */
  skipValue(p: number, depth: number): number {
    const c = this.peek(p);
    switch (c) {
      case QUOTE:
        return this.scanString(p);
      case OPEN_BRACE:
        return this.skipContainer(p, depth + 1, CLOSE_BRACE);
      case OPEN_BRACKET:
        return this.skipContainer(p, depth + 1, CLOSE_BRACKET);
      case 0x74:
        return this.expectTrue(p);
      case 0x66:
        return this.expectFalse(p);
      case 0x6e:
        return this.expectNull(p);
      default:
        if (startsNumber(c)) return this.scanNumber(p);
        throw syntaxProblem(`expected a value, found ${describeByte(c)}`);
    }
  }

  private skipContainer(p: number, depth: number, close: number): number {
    if (depth > MAX_NESTING_DEPTH) throw syntaxProblem(`nesting deeper than ${MAX_NESTING_DEPTH} levels`);
    const isObject = close === CLOSE_BRACE;
    p = this.skipSpace(p + 1);
    if (this.peek(p) === close) return p + 1;
    for (;;) {
      if (isObject) {
        if (this.peek(p) !== QUOTE) throw syntaxProblem(`expected '"' to start a field name in a nested object, found ${describeByte(this.peek(p))}`);
        p = this.skipSpace(this.scanString(p));
        if (this.peek(p) !== COLON) throw syntaxProblem(`expected ':' after a field name in a nested object, found ${describeByte(this.peek(p))}`);
        p = this.skipSpace(p + 1);
      }
      p = this.skipSpace(this.skipValue(p, depth));
      const c = this.peek(p);
      if (c === close) return p + 1;
      if (c !== COMMA) {
        const expected = isObject ? "',' or '}' in a nested object" : "',' or ']' in an array";
        throw syntaxProblem(`expected ${expected}, found ${describeByte(c)}`);
      }
      p = this.skipSpace(p + 1);
    }
  }
}
