import type { Batch } from "../batch/batch.js";
import { makeBatch } from "../batch/batch.js";
import { MalformedRecordError } from "../errors/errors.js";
import type { ReadMode } from "./read-mode.js";
import type { Fields } from "../types/dtype.js";
import { setUpDecoder } from "./decoder-setup.js";
import { malformedRecordMessage, type RecordProblem } from "./record-problem.js";
import { checkValueColumn, decodeValueRecords } from "./value-records.js";

/**
 * JSON values held in a string column (such as Kafka record values) decoded straight into a
 * columnar `Batch`, as Spark's `from_json` with its bad-record modes.
 *
 * Record i is `bytes[offsets[i], offsets[i + 1])`, as in an Arrow string column: records lie back
 * to back, with nothing between them. A record must be exactly one JSON object, with optional
 * whitespace (space, tab, carriage return, newline) around it and between its tokens. Anything
 * else is malformed: an empty or blank record, truncated JSON, a second value or other text after
 * the object. Nothing past a record's end is read, so a truncated record never swallows the next.
 *
 * Fields are read as by `decodeJsonLines` (see `json-lines.ts`), except that a newline is
 * whitespace here and no byte order mark is skipped.
 *
 * A null record (`validity[i] === 0`) is a row whose fields are all null, as `from_json(null)` in
 * Spark; it is not malformed. A malformed record, by `mode`:
 * - FAILFAST: throw `MalformedRecordError` naming the record by `describeRecord(i)` and the
 *   problem.
 * - DROPMALFORMED: drop it.
 * - PERMISSIVE: keep a row whose fields are all null and put the record's bytes into the string
 *   column named `columnNameOfCorruptRecord` when `fields` has one (null for other rows).
 */

export interface JsonValuesOptions {
  readonly mode: ReadMode;
  readonly columnNameOfCorruptRecord: string;
  /** How FAILFAST messages name record i, such as "topic t partition 0 offset 42"; "record i" when absent. */
  readonly describeRecord?: (i: number) => string;
}

export interface JsonValuesResult {
  /** One row per record in input order, less the dropped ones under DROPMALFORMED. */
  readonly batch: Batch;
  /** Malformed records: dropped (DROPMALFORMED) or kept as corrupt rows (PERMISSIVE). */
  readonly numMalformed: number;
  /** Input index of each malformed record, ascending. */
  readonly malformedRows: Int32Array;
  /**
   * Input index of each output row, ascending: 0, 1, 2, ... unless DROPMALFORMED dropped some.
   * Columns that travel with the records (key, offset, timestamp) are gathered by it.
   */
  readonly keptRows: Int32Array;
}

export function decodeJsonValues(
  bytes: Uint8Array,
  /** n + 1 ascending positions in `bytes` for n records. */
  offsets: Int32Array,
  /** One byte per record, 0 for a null record; null when no record is null. */
  validity: Uint8Array | null,
  fields: Fields,
  options: JsonValuesOptions,
): JsonValuesResult {
  const column = { bytes, offsets, validity };
  const numRecords = checkValueColumn(column);
  const { columns, decoder, corruptField } = setUpDecoder(fields, options.columnNameOfCorruptRecord, numRecords, bytes, "values");
  const rows = decodeValueRecords(column, numRecords, columns, {
    mode: options.mode,
    decode: (row, start, end) => decoder.decode(row, start, end),
    failFast: (problem, i) => failFast(problem, i, options),
    keepMalformed: corruptField < 0 ? undefined : (row, start, end) => columns.writeRawString(corruptField, row, bytes, start, end),
  });
  return {
    batch: makeBatch(fields, columns.finish(rows.numRows), rows.numRows),
    numMalformed: rows.malformedRows.length,
    malformedRows: rows.malformedRows,
    keptRows: rows.keptRows,
  };
}

function failFast(problem: RecordProblem, i: number, options: JsonValuesOptions): MalformedRecordError {
  const where = options.describeRecord?.(i) ?? `record ${i}`;
  return new MalformedRecordError(malformedRecordMessage(problem, where), undefined, undefined);
}
