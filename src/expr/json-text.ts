import { entryCount, type StringsView } from "../kernels/columns.js";
import { formatDouble } from "../kernels/number-text.js";
import { civilFromDays, daysFromCivil, MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND } from "../kernels/temporal.js";
import { encodeUtf8, Utf8Builder } from "../kernels/utf8.js";

/**
 * JSON text pieces as Spark's JSON writer (Jackson with Spark's defaults) prints them, as UTF-8
 * bytes: keys and strings escaped, integers, doubles, timestamps. `eval-json.ts` assembles them
 * into one object per row.
 */

export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const HEX = encodeUtf8("0123456789ABCDEF");
export const TRUE = encodeUtf8("true");
export const FALSE = encodeUtf8("false");

// ---------------------------------------------------------------------------------------------
// Strings: Jackson escapes `"`, `\` and control characters only (`\b \t \n \f \r`, the others as
// `\u00XX` in upper-case hex); `/`, DEL and non-ASCII text are written as they are.

/** Bytes each byte takes once escaped: 1, 2 for a short escape (`\n`), 6 for `\u00XX`. */
const ESCAPED_WIDTH = new Uint8Array(256).fill(1);
for (let b = 0; b < 0x20; b++) ESCAPED_WIDTH[b] = 6;
for (const b of [QUOTE, BACKSLASH, 0x08, 0x09, 0x0a, 0x0c, 0x0d]) ESCAPED_WIDTH[b] = 2;

const SHORT_ESCAPES: Readonly<Record<number, number>> = { 0x08: 0x62, 0x09: 0x74, 0x0a: 0x6e, 0x0c: 0x66, 0x0d: 0x72, [QUOTE]: QUOTE, [BACKSLASH]: BACKSLASH };

/** Writes byte b escaped at `p`; returns the position after it. */
function writeEscaped(out: Uint8Array, p: number, b: number): number {
  const width = ESCAPED_WIDTH[b];
  if (width === 1) {
    out[p] = b;
    return p + 1;
  }
  out[p] = BACKSLASH;
  if (width === 2) {
    out[p + 1] = SHORT_ESCAPES[b]!;
    return p + 2;
  }
  out[p + 1] = 0x75; // u
  out[p + 2] = DIGIT_0;
  out[p + 3] = DIGIT_0;
  out[p + 4] = HEX[b >> 4];
  out[p + 5] = HEX[b & 15];
  return p + 6;
}

function escapeBytes(src: Uint8Array): Uint8Array {
  let width = 0;
  for (let i = 0; i < src.length; i++) width += ESCAPED_WIDTH[src[i]];
  const out = new Uint8Array(width);
  let p = 0;
  for (let i = 0; i < src.length; i++) p = writeEscaped(out, p, src[i]);
  return out;
}

/** `"name":` with the name escaped as a JSON string. */
export function jsonKey(name: string): Uint8Array {
  const escaped = escapeBytes(encodeUtf8(name));
  const key = new Uint8Array(escaped.length + 3);
  key[0] = QUOTE;
  key.set(escaped, 1);
  key[escaped.length + 1] = QUOTE;
  key[escaped.length + 2] = COLON;
  return key;
}

/**
 * The strings' JSON-escaped bytes (without quotes). Escaping runs once per entry (per dictionary
 * value for dictionary columns); text that needs no escape, the usual case, is used as it is.
 */
export function escapedStrings(view: StringsView, n: number): StringsView {
  const entries = entryCount(view, n);
  const { offsets, bytes } = view;
  const first = offsets[0];
  const last = offsets[entries];
  let i = first;
  while (i < last && ESCAPED_WIDTH[bytes[i]] === 1) i++;
  if (i === last) return view;
  const outOffsets = new Int32Array(entries + 1);
  let width = 0;
  for (let e = 0; e < entries; e++) {
    for (let k = offsets[e]; k < offsets[e + 1]; k++) width += ESCAPED_WIDTH[bytes[k]];
    outOffsets[e + 1] = width;
  }
  const out = new Uint8Array(width);
  let p = 0;
  for (let k = first; k < last; k++) p = writeEscaped(out, p, bytes[k]);
  return { offsets: outOffsets, bytes: out, indices: view.indices };
}

// ---------------------------------------------------------------------------------------------
// Integers: plain digits.

/** Decimal digits of an integer in [0, 10^8). */
function smallDigits(v: number): number {
  if (v < 10000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4;
  return v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7 : 8;
}

/** Bytes of an integer (|x| <= 2^53) in plain digits. */
export function integerWidth(x: number): number {
  const v = x < 0 ? -x : x;
  const sign = x < 0 ? 1 : 0;
  return sign + (v < 1e8 ? smallDigits(v) : 8 + smallDigits(Math.floor(v / 1e8)));
}

/** "00", "01", ... "99": two digits per table lookup. */
const DIGIT_PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  DIGIT_PAIRS[2 * i] = DIGIT_0 + ((i / 10) | 0);
  DIGIT_PAIRS[2 * i + 1] = DIGIT_0 + (i % 10);
}

/**
 * Writes the `digits` last digits of an integer in [0, 10^8) ending before `end` (leading zeros
 * included), two at a time with 32-bit arithmetic (a division by a constant becomes a multiply).
 */
function writeDigits(out: Uint8Array, end: number, value: number, digits: number): void {
  let v = value | 0;
  let q = end;
  const stop = end - digits;
  while (q - 2 >= stop) {
    const next = (v / 100) | 0;
    const pair = (v - next * 100) << 1;
    out[q - 1] = DIGIT_PAIRS[pair + 1];
    out[q - 2] = DIGIT_PAIRS[pair];
    q -= 2;
    v = next;
  }
  if (q > stop) out[q - 1] = DIGIT_0 + v;
}

/**
 * Writes an integer (|x| <= 2^53) in plain digits at `p`; returns the position after it. Values of
 * 10^8 and more are split into two parts below 10^8 (exactly: both parts and the product are below
 * 2^53), so every digit comes from 32-bit arithmetic rather than a float64 modulo.
 */
export function writeInteger(out: Uint8Array, p: number, x: number): number {
  let v = x;
  if (v < 0) {
    out[p++] = MINUS;
    v = -v;
  }
  if (v < 1e8) {
    const d = smallDigits(v);
    writeDigits(out, p + d, v, d);
    return p + d;
  }
  const high = Math.floor(v / 1e8);
  const d = smallDigits(high);
  writeDigits(out, p + d, high, d);
  writeDigits(out, p + d + 8, v - high * 1e8, 8);
  return p + d + 8;
}

/** Text pieces from a per-value formatter (for the rare values the fast paths do not cover). */
export function formatEach(values: Float64Array, valid: Uint8Array | null, n: number, format: (x: number) => string): StringsView {
  return formatRows(valid, n, (i) => format(values[i]));
}

/** Text pieces from a per-row formatter, called for valid rows only. */
export function formatRows(valid: Uint8Array | null, n: number, format: (row: number) => string): StringsView {
  const builder = new Utf8Builder(n, n * 16);
  for (let i = 0; i < n; i++) {
    if (valid === null || valid[i]) builder.appendString(format(i));
    else builder.endRow();
  }
  return { ...builder.finish(), indices: null };
}

// ---------------------------------------------------------------------------------------------
// Doubles: Java's `Double.toString` ("1.0", "1.0E7"); NaN and the infinities as the strings
// "NaN", "Infinity", "-Infinity" (Jackson's QUOTE_NON_NUMERIC_NUMBERS, on by default).

const NAN_TEXT = encodeUtf8('"NaN"');
const INFINITY_TEXT = encodeUtf8('"Infinity"');
const MINUS_INFINITY_TEXT = encodeUtf8('"-Infinity"');

/** Each double's text; whole numbers below 10^7 (the common case) are written without a string. */
export function doubleTexts(values: Float64Array, valid: Uint8Array | null, n: number): StringsView {
  const builder = new Utf8Builder(n, n * 8);
  const scratch = new Uint8Array(16);
  for (let i = 0; i < n; i++) {
    if (valid !== null && !valid[i]) {
      builder.endRow();
      continue;
    }
    const x = values[i];
    if (Number.isInteger(x) && x > -1e7 && x < 1e7 && !Object.is(x, -0)) {
      let p = writeInteger(scratch, 0, x);
      scratch[p++] = 0x2e; // .
      scratch[p++] = DIGIT_0;
      builder.appendRange(scratch, 0, p);
    } else if (x !== x) builder.appendRange(NAN_TEXT, 0, NAN_TEXT.length);
    else if (x === Infinity) builder.appendRange(INFINITY_TEXT, 0, INFINITY_TEXT.length);
    else if (x === -Infinity) builder.appendRange(MINUS_INFINITY_TEXT, 0, MINUS_INFINITY_TEXT.length);
    else builder.appendString(formatDouble(x));
  }
  return { ...builder.finish(), indices: null };
}

// ---------------------------------------------------------------------------------------------
// Timestamps: Spark's JSON write format `yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]` in the session time
// zone (UTC), which prints as "2026-01-01T12:00:00.000Z".

/** Timestamps in [0000-01-01, 10000-01-01) print as `"yyyy-MM-ddTHH:mm:ss.SSSZ"`, quotes included: 26 bytes. */
export const FOUR_DIGIT_YEARS_FROM = daysFromCivil(0, 1, 1) * MS_PER_DAY;
export const FOUR_DIGIT_YEARS_TO = daysFromCivil(10000, 1, 1) * MS_PER_DAY;
export const TIME_WIDTH = 26;

function pad(x: number, width: number): string {
  return String(x).padStart(width, "0");
}

/**
 * A timestamp's text (without quotes) for the rows the fast path does not take: years beyond four
 * digits carry a sign, as java.time prints them.
 */
export function jsonTimestampText(ms: number): string {
  const t = Math.floor(ms);
  const days = Math.floor(t / MS_PER_DAY);
  const inDay = t - days * MS_PER_DAY;
  const [year, month, day] = civilFromDays(days);
  const yearText = year < 0 ? `-${pad(-year, 4)}` : year > 9999 ? `+${year}` : pad(year, 4);
  const h = Math.floor(inDay / MS_PER_HOUR);
  const m = Math.floor(inDay / MS_PER_MINUTE) % 60;
  const s = Math.floor(inDay / MS_PER_SECOND) % 60;
  return `${yearText}-${pad(month, 2)}-${pad(day, 2)}T${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(inDay % MS_PER_SECOND, 3)}Z`;
}

function two(out: Uint8Array, p: number, v: number): void {
  out[p] = DIGIT_0 + ((v / 10) | 0);
  out[p + 1] = DIGIT_0 + (v % 10);
}

/**
 * Writes timestamps with four-digit years, quoted, `TIME_WIDTH` bytes each. The calendar date is
 * recomputed only when the day changes from one written value to the next (rare in event data), so
 * no array is made per value.
 */
export class TimestampWriter {
  private days = NaN;
  private year = 0;
  private month = 0;
  private day = 0;

  /** Writes the timestamp `ms` at `p`; returns the position after it. */
  write(out: Uint8Array, p: number, ms: number): number {
    const t = Math.floor(ms);
    const days = Math.floor(t / MS_PER_DAY);
    if (days !== this.days) {
      [this.year, this.month, this.day] = civilFromDays(days);
      this.days = days;
    }
    const inDay = t - days * MS_PER_DAY;
    const seconds = Math.floor(inDay / MS_PER_SECOND);
    const millis = inDay - seconds * MS_PER_SECOND;
    out[p] = QUOTE;
    two(out, p + 1, (this.year / 100) | 0);
    two(out, p + 3, this.year % 100);
    out[p + 5] = MINUS;
    two(out, p + 6, this.month);
    out[p + 8] = MINUS;
    two(out, p + 9, this.day);
    out[p + 11] = 0x54; // T
    two(out, p + 12, (seconds / 3600) | 0);
    out[p + 14] = COLON;
    two(out, p + 15, ((seconds / 60) | 0) % 60);
    out[p + 17] = COLON;
    two(out, p + 18, seconds % 60);
    out[p + 20] = 0x2e; // .
    out[p + 21] = DIGIT_0 + ((millis / 100) | 0);
    two(out, p + 22, millis % 100);
    out[p + 24] = 0x5a; // Z
    out[p + 25] = QUOTE;
    return p + TIME_WIDTH;
  }
}
