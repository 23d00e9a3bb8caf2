import type { Batch } from "../batch/batch.js";
import { makeBatch } from "../batch/batch.js";
import { MalformedRecordError } from "../errors/errors.js";
import type { ReadMode } from "./read-mode.js";
import type { Fields } from "../types/dtype.js";
import { setUpDecoder } from "./decoder-setup.js";
import { NEWLINE } from "./json-scanner.js";
import { malformedRecordMessage, RecordProblem } from "./record-problem.js";

/**
 * JSON lines (one JSON object per line) decoded straight into a columnar `Batch`, with Spark's
 * bad-record modes.
 *
 * Lines end with "\n" or "\r\n" (a lone "\r" is whitespace, not a line break). Blank lines (empty
 * or only spaces, tabs and carriage returns) are skipped and are not records; a last line without
 * a newline is a record; a UTF-8 byte order mark at the start is skipped. Bytes are not checked
 * for valid UTF-8: strings without escapes are copied as they are.
 *
 * What each field type accepts:
 * - string: a JSON string (a lone surrogate escape becomes U+FFFD). A number, boolean, object or
 *   array is kept as its JSON text, as Spark does - as written, where Spark re-serializes it, so
 *   spacing and number formatting may differ.
 * - float64: a JSON number, or one of Spark's non-numeric strings "NaN", "Infinity", "+Infinity",
 *   "-Infinity", "+INF", "-INF".
 * - int32, int64: a JSON integer (no fraction, no exponent) within the type's range.
 * - boolean: true or false.
 * - timestamp: an ISO-8601 string (forms in `iso-timestamp.ts`; no zone means UTC), or a JSON
 *   number of epoch milliseconds (a fraction is floored). Spark reads numbers as seconds; Sluice's
 *   contract is milliseconds.
 * `null` or a missing key gives null. Unknown keys are ignored (their values are still checked to
 * be JSON) and a duplicate key's last value wins.
 *
 * A record is malformed when its line is not valid JSON, is not an object, or does not fit the
 * fields (a value of the wrong type, a null or missing non-nullable field). Then, by `mode`:
 * - FAILFAST: throw `MalformedRecordError` naming the file, the 1-based line and the problem.
 * - DROPMALFORMED: drop the line.
 * - PERMISSIVE: keep a row whose fields are all null - non-nullable ones included, since the
 *   record is known to be corrupt - and put the raw line (without its line ending) into the
 *   string column named `columnNameOfCorruptRecord` when `fields` has one. That column is not read
 *   from the JSON (a key of that name is ignored) and is null for good records.
 */

export interface DecodeOptions {
  readonly mode: ReadMode;
  readonly columnNameOfCorruptRecord: string;
  /** Named in FAILFAST messages. */
  readonly file?: string;
  /** Line number of the first line of `bytes` in its file (1-based); 1 when absent. */
  readonly firstLineNumber?: number;
}

export interface DecodeResult {
  readonly batch: Batch;
  /** Malformed records: dropped (DROPMALFORMED) or kept as corrupt rows (PERMISSIVE). */
  readonly numMalformed: number;
  /**
   * Physical lines in the input, blank ones included, so that `firstLineNumber + numLines` is the
   * number of the line after the input.
   */
  readonly numLines: number;
}

/** Bytes looked at to guess the line count, which sizes the first buffers. */
const SAMPLE_BYTES = 64 * 1024;

export function decodeJsonLines(bytes: Uint8Array, fields: Fields, options: DecodeOptions): DecodeResult {
  const { columns, decoder, corruptField } = setUpDecoder(fields, options.columnNameOfCorruptRecord, estimateLineCount(bytes), bytes, "lines");
  const n = bytes.length;
  let row = 0;
  let lineIndex = 0;
  let numMalformed = 0;
  let p = startsWithByteOrderMark(bytes) ? 3 : 0;
  while (p < n) {
    const lineStart = p;
    const first = skipBlank(bytes, p);
    if (first < n && bytes[first] !== NEWLINE) {
      columns.ensureRow(row);
      try {
        p = decoder.decode(row, first, n);
        columns.commitRow(row);
        row++;
      } catch (e) {
        if (!(e instanceof RecordProblem)) throw e;
        numMalformed++;
        columns.clearRow(row);
        p = lineEnd(bytes, lineStart);
        if (options.mode === "FAILFAST") throw failFast(e, lineIndex, options);
        if (options.mode === "PERMISSIVE") {
          if (corruptField >= 0) columns.writeRawString(corruptField, row, bytes, lineStart, withoutCarriageReturn(bytes, lineStart, p));
          columns.commitRow(row);
          row++;
        }
      }
    } else {
      p = first;
    }
    p++; // past the newline
    lineIndex++;
  }
  return { batch: makeBatch(fields, columns.finish(row), row), numMalformed, numLines: lineIndex };
}

/**
 * Line count extrapolated from the lines in a leading sample, slightly generous so that row
 * buffers rarely need to grow (they do, by doubling, when the guess is low).
 */
function estimateLineCount(bytes: Uint8Array): number {
  const sample = Math.min(bytes.length, SAMPLE_BYTES);
  let lines = 0;
  for (let nl = bytes.indexOf(NEWLINE); nl >= 0 && nl < sample; nl = bytes.indexOf(NEWLINE, nl + 1)) lines++;
  if (lines === 0 || sample === bytes.length) return lines + 1;
  return Math.ceil(((bytes.length / sample) * lines * 17) / 16) + 1;
}

/** A UTF-8 byte order mark, which some editors write at the start of a file; skipped as Hadoop's line reader does. */
function startsWithByteOrderMark(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function skipBlank(bytes: Uint8Array, p: number): number {
  const n = bytes.length;
  while (p < n) {
    const c = bytes[p]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
    p++;
  }
  return p;
}

/** Position of the newline ending the line that starts at `p`, or the input length. */
function lineEnd(bytes: Uint8Array, p: number): number {
  const nl = bytes.indexOf(NEWLINE, p);
  return nl < 0 ? bytes.length : nl;
}

function withoutCarriageReturn(bytes: Uint8Array, start: number, end: number): number {
  return end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
}

function failFast(problem: RecordProblem, lineIndex: number, options: DecodeOptions): MalformedRecordError {
  const line = (options.firstLineNumber ?? 1) + lineIndex;
  const where = options.file === undefined ? `line ${line}` : `line ${line} of ${options.file}`;
  return new MalformedRecordError(malformedRecordMessage(problem, where), options.file, line);
}
