import type { Fields } from "../types/dtype.js";
import type { ColumnAccumulators } from "./column-accumulators.js";
import { KIND_BOOLEAN, KIND_FLOAT64, KIND_INT32, KIND_INT64, KIND_STRING } from "./column-accumulators.js";
import { FieldMatcher, MAX_LEARNED_KEYS, NO_FIELD } from "./field-matcher.js";
import { unescapeInto } from "./json-escapes.js";
import { MAX_TIMESTAMP_MS, setInt64FromText, setInt64Words } from "../batch/numeric-columns.js";
import { asciiText, INT32_MAX, INT32_MIN } from "./json-number.js";
import type { Framing } from "./json-scanner.js";
import { byteAt, CLOSE_BRACE, COLON, COMMA, JsonScanner, NEWLINE, OPEN_BRACE, QUOTE, startsNumber } from "./json-scanner.js";
import { nonNumericFloat } from "./non-numeric-float.js";
import { isoTimestampInto } from "./iso-timestamp.js";
import { describeByte, RecordProblem, schemaProblem, syntaxProblem } from "./record-problem.js";
import { describeJsonValue, jsonStringText } from "./value-description.js";

const SPACE = 0x20;
const LETTER_N = 0x6e;
const LETTER_T = 0x74;
const LETTER_F = 0x66;

/**
 * Decodes one record (one JSON object) straight into column accumulators, guided by the schema:
 * each key is matched to a field by its bytes and its value is parsed by that field's type; other
 * keys' values are skipped (and still validated: a record is malformed for bytes the query never
 * reads, as in Spark). The matcher learns those other keys, so that in the usual stream, where
 * every record lists its keys in one order, an unread key costs one comparison of its bytes.
 * Throws a `RecordProblem` when the record is not
 * a JSON object or does not fit the schema; the caller decides what that means (see
 * `json-lines.ts` for records framed by newlines, `json-values.ts` for records framed by offsets).
 */
export class JsonRecordDecoder {
  private readonly scanner = new JsonScanner();
  private readonly matcher: FieldMatcher;
  private readonly kinds: Int32Array;
  /** Indices from here on are learned keys that name no field: their values are skipped. */
  private readonly fieldCount: number;
  private readonly requiredFields: Int32Array;
  /**
   * `successor[f + 1]`: the field or learned key (an index at or after `fields.length`) whose key
   * followed f's in the last record that had both (`successor[0]`: the first key). The next key
   * is first compared against it.
   */
  private readonly successor: Int32Array;
  /** Per field: the serial number of the last record in which its key appeared. */
  private readonly seenInRecord: Int32Array;
  private recordSerial = 0;
  /** A timestamp's epoch milliseconds, kept in a typed array so that passing it on allocates nothing. */
  private readonly millis = new Float64Array(1);
  /** Unescaped keys and timestamps are decoded here before use. */
  private scratch = new Uint8Array(256);
  /** Where the key being decoded starts (its quote), for messages only; -1 before the first key. */
  private keyQuote = -1;

  /** `decodedFields` are the indices of `fields` read from JSON keys (all but the corrupt-record column). */
  constructor(
    private readonly fields: Fields,
    decodedFields: readonly number[],
    private readonly columns: ColumnAccumulators,
  ) {
    this.matcher = new FieldMatcher(fields.map((f, i) => (decodedFields.includes(i) ? f.name : null)));
    this.fieldCount = fields.length;
    this.successor = new Int32Array(fields.length + MAX_LEARNED_KEYS + 1).fill(NO_FIELD);
    this.kinds = columns.kinds;
    this.requiredFields = Int32Array.from(decodedFields.filter((f) => !fields[f]!.nullable));
    this.seenInRecord = new Int32Array(fields.length);
  }

  reset(src: Uint8Array, framing: Framing): void {
    this.scanner.reset(src, framing);
  }

  /**
   * Decodes the record starting at `p` (whitespace may come first) into `row`, reading nothing at
   * or after `end`. Returns where the record ends: with the "lines" framing, the position of the
   * newline ending the line, or `end` for a last line without one; with the "values" framing,
   * `end`.
   */
  decode(row: number, p: number, end: number): number {
    const s = this.scanner;
    const src = s.src;
    s.end = end;
    this.recordSerial++;
    this.keyQuote = -1;
    // Each structural byte is read once: compact JSON has none of the spaces that the `<= SPACE`
    // tests look for, so they spare a call on that common path (END passes them too, and then
    // skipSpace returns at once).
    let c = byteAt(src, p, end);
    if (c <= SPACE) {
      p = s.skipSpace(p);
      c = byteAt(src, p, end);
    }
    if (c !== OPEN_BRACE) throw syntaxProblem(`expected a JSON object, ${this.describeTopLevel(p)}`);
    c = byteAt(src, ++p, end);
    if (c <= SPACE) {
      p = s.skipSpace(p);
      c = byteAt(src, p, end);
    }
    if (c !== CLOSE_BRACE) {
      let previous = NO_FIELD;
      for (;;) {
        if (c !== QUOTE) throw syntaxProblem(`expected '"' to start a field name${this.afterKeyText()}, found ${describeByte(c)}`);
        const guess = this.successor[previous + 1]!;
        let field: number;
        this.keyQuote = p;
        if (guess !== NO_FIELD && this.matcher.keyAt(guess, src, p, end)) {
          field = guess;
          p += this.matcher.nameLength(guess) + 2;
        } else {
          p = s.scanString(p);
          if (s.strEscaped) {
            field = this.matchEscapedKey();
          } else {
            field = this.matcher.match(src, s.strStart, s.strEnd);
            if (field === NO_FIELD) field = this.matcher.learn(src, s.strStart, s.strEnd);
          }
          if (field !== NO_FIELD) this.successor[previous + 1] = field;
        }
        if (field !== NO_FIELD) previous = field;
        c = byteAt(src, p, end);
        if (c <= SPACE) {
          p = s.skipSpace(p);
          c = byteAt(src, p, end);
        }
        if (c !== COLON) throw syntaxProblem(`expected ':' after field name ${this.keyText()}, found ${describeByte(c)}`);
        if (byteAt(src, ++p, end) <= SPACE) p = s.skipSpace(p);
        if (field === NO_FIELD || field >= this.fieldCount) {
          p = s.skipValue(p, 1);
        } else {
          this.seenInRecord[field] = this.recordSerial;
          p = this.decodeValue(field, row, p);
        }
        c = byteAt(src, p, end);
        if (c <= SPACE) {
          p = s.skipSpace(p);
          c = byteAt(src, p, end);
        }
        if (c === CLOSE_BRACE) break;
        if (c !== COMMA) throw syntaxProblem(`expected ',' or '}' after field ${this.keyText()}, found ${describeByte(c)}`);
        c = byteAt(src, ++p, end);
        if (c <= SPACE) {
          p = s.skipSpace(p);
          c = byteAt(src, p, end);
        }
      }
    }
    p = s.skipSpace(p + 1);
    // With the "values" framing, skipSpace has passed any newline, so what is left is not blank.
    if (p < end && src[p] !== NEWLINE) throw syntaxProblem(`unexpected ${describeByte(src[p])} after the end of the record`);
    if (this.requiredFields.length > 0) this.checkRequired(row);
    return p;
  }

  private decodeValue(f: number, row: number, p: number): number {
    switch (this.kinds[f]) {
      case KIND_STRING:
        return this.decodeString(f, row, p);
      case KIND_FLOAT64:
        return this.decodeFloat64(f, row, p);
      case KIND_INT32:
        return this.decodeInt32(f, row, p);
      case KIND_INT64:
        return this.decodeInt64(f, row, p);
      case KIND_BOOLEAN:
        return this.decodeBoolean(f, row, p);
      default:
        return this.decodeTimestamp(f, row, p);
    }
  }

  /** JSON null: the field stays (or becomes, for a duplicate key) null. */
  private decodeNull(f: number, row: number, p: number): number {
    const end = this.scanner.expectNull(p);
    this.columns.valid[f]![row] = 0;
    return end;
  }

  private decodeString(f: number, row: number, p: number): number {
    const s = this.scanner;
    const c = s.peek(p);
    if (c === QUOTE) {
      const end = s.scanString(p);
      if (s.strEscaped) this.columns.writeEscapedString(f, row, s.src, s.strStart, s.strEnd);
      else this.columns.writeRawString(f, row, s.src, s.strStart, s.strEnd);
      return end;
    }
    if (c === LETTER_N) return this.decodeNull(f, row, p);
    // A number, boolean, object or array where a string is expected is kept as its JSON text.
    const end = s.skipValue(p, 1);
    this.columns.writeRawString(f, row, s.src, p, end);
    return end;
  }

  private decodeFloat64(f: number, row: number, p: number): number {
    const s = this.scanner;
    const c = s.peek(p);
    let value: number;
    let end: number;
    if (startsNumber(c)) {
      end = s.scanNumber(p);
      value = s.num;
    } else if (c === LETTER_N) {
      return this.decodeNull(f, row, p);
    } else if (c === QUOTE) {
      // Spark's allowNonNumericNumbers: "NaN", "Infinity", "-INF" and the like, as strings.
      end = s.scanString(p);
      const special = s.strEscaped ? undefined : nonNumericFloat(s.src, s.strStart, s.strEnd);
      if (special === undefined) throw this.violation(f, p);
      value = special;
    } else {
      throw this.violation(f, p);
    }
    this.columns.float64s[f]![row] = value;
    this.columns.valid[f]![row] = 1;
    return end;
  }

  private decodeInt32(f: number, row: number, p: number): number {
    const s = this.scanner;
    const c = s.peek(p);
    if (!startsNumber(c)) return c === LETTER_N ? this.decodeNull(f, row, p) : this.violation(f, p);
    const end = s.scanNumber(p);
    const value = s.num;
    if (!s.numIntegral) throw this.violation(f, p);
    if (value < INT32_MIN || value > INT32_MAX) throw this.violation(f, p, " (out of range)");
    this.columns.int32s[f]![row] = value;
    this.columns.valid[f]![row] = 1;
    return end;
  }

  private decodeInt64(f: number, row: number, p: number): number {
    const s = this.scanner;
    const c = s.peek(p);
    if (!startsNumber(c)) return c === LETTER_N ? this.decodeNull(f, row, p) : this.violation(f, p);
    const end = s.scanNumber(p);
    if (!s.numIntegral) throw this.violation(f, p);
    const words = this.columns.words[f]!;
    if (s.numExact) setInt64Words(words, row, s.num);
    else if (!setInt64FromText(words, row, asciiText(s.src, p, end))) throw this.violation(f, p, " (out of range)");
    this.columns.valid[f]![row] = 1;
    return end;
  }

  private decodeBoolean(f: number, row: number, p: number): number {
    const s = this.scanner;
    const c = s.peek(p);
    let end: number;
    if (c === LETTER_T) end = s.expectTrue(p);
    else if (c === LETTER_F) end = s.expectFalse(p);
    else return c === LETTER_N ? this.decodeNull(f, row, p) : this.violation(f, p);
    this.columns.bools[f]![row] = c === LETTER_T ? 1 : 0;
    this.columns.valid[f]![row] = 1;
    return end;
  }

  /** ISO-8601 text, or a JSON number of epoch milliseconds (a fraction is floored). */
  private decodeTimestamp(f: number, row: number, p: number): number {
    const s = this.scanner;
    const c = s.peek(p);
    let end: number;
    if (c === QUOTE) {
      end = s.scanString(p);
      const parsed = s.strEscaped
        ? isoTimestampInto(this.scratch, 0, this.unescapeToScratch(), this.millis, 0)
        : isoTimestampInto(s.src, s.strStart, s.strEnd, this.millis, 0);
      if (!parsed) throw this.violation(f, p);
    } else if (startsNumber(c)) {
      end = s.scanNumber(p);
      this.millis[0] = Math.floor(s.num);
      // Beyond JavaScript's Date range, Sluice's timestamp range: refused rather than wrapped.
      if (!(Math.abs(this.millis[0]) <= MAX_TIMESTAMP_MS)) throw this.violation(f, p, " (out of range)");
    } else {
      return c === LETTER_N ? this.decodeNull(f, row, p) : this.violation(f, p);
    }
    setInt64Words(this.columns.words[f]!, row, this.millis[0]!);
    this.columns.valid[f]![row] = 1;
    return end;
  }

  /** Unescapes the last string scanned into `scratch`; returns its length. */
  private unescapeToScratch(): number {
    const s = this.scanner;
    return unescapeInto(s.src, s.strStart, s.strEnd, this.scratchFor(s.strEnd - s.strStart), 0);
  }

  private matchEscapedKey(): number {
    const end = this.unescapeToScratch();
    return this.matcher.match(this.scratch, 0, end);
  }

  private scratchFor(length: number): Uint8Array {
    if (this.scratch.length < length) this.scratch = new Uint8Array(Math.max(length, this.scratch.length * 2));
    return this.scratch;
  }

  private checkRequired(row: number): void {
    const required = this.requiredFields;
    for (let i = 0; i < required.length; i++) {
      const f = required[i]!;
      if (this.columns.valid[f]![row]) continue;
      const name = JSON.stringify(this.fields[f]!.name);
      throw schemaProblem(
        this.seenInRecord[f] === this.recordSerial ? `field ${name} is not nullable, got null` : `required field ${name} is missing`,
      );
    }
  }

  // ---- messages (error path only) ----

  /** A schema violation for the value at `p`; throws instead when the value is not even JSON. */
  private violation(f: number, p: number, note = ""): never {
    const field = this.fields[f]!;
    throw schemaProblem(`field ${JSON.stringify(field.name)} expects ${field.type}, got ${describeJsonValue(this.scanner, p)}${note}`);
  }

  private keyText(): string {
    const s = this.scanner;
    s.scanString(this.keyQuote); // already scanned once, so it cannot fail
    return JSON.stringify(jsonStringText(s.src, s.strStart, s.strEnd, s.strEscaped));
  }

  private afterKeyText(): string {
    return this.keyQuote >= 0 ? ` after field ${this.keyText()}` : "";
  }

  /** "got array", "got number 5", or "found 'x'" when the line does not even start a JSON value. */
  private describeTopLevel(p: number): string {
    try {
      return `got ${describeJsonValue(this.scanner, p)}`;
    } catch (e) {
      if (e instanceof RecordProblem) return `found ${describeByte(this.scanner.peek(p))}`;
      throw e;
    }
  }
}
