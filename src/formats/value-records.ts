import type { ReadMode } from "./read-mode.js";
import { RecordProblem } from "./record-problem.js";

/**
 * The record loop that every decoder of a column of values (JSON, Avro, Protobuf) runs: one row per
 * record, null records as null rows, and a bad record (a `RecordProblem` thrown by `decode`)
 * handled by the read mode: PERMISSIVE keeps its row (`keepMalformed` may fill it, e.g. a
 * corrupt-record column), DROPMALFORMED drops it, FAILFAST throws `failFast`'s error.
 */

/** A column of values: `offsets` holds n + 1 ascending positions in `bytes`; validity 0 marks a null record. */
export interface ValueColumn {
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
  /** One byte per record, 0 for a null record; null when no record is null. */
  readonly validity: Uint8Array | null;
}

/** Where a decoder writes rows: written in place, abandoned when the record turns out bad. */
export interface RowWriter {
  ensureRow(row: number): void;
  clearRow(row: number): void;
  commitRow(row: number): void;
}

export interface RecordHandlers {
  readonly mode: ReadMode;
  /** Decodes record bytes [start, end) into `row`; throws a RecordProblem for a bad record. */
  decode(row: number, start: number, end: number): void;
  /** The FAILFAST error for record `i`. */
  failFast(problem: RecordProblem, i: number): Error;
  /** PERMISSIVE: fills what a bad record's row keeps besides nulls. */
  keepMalformed?(row: number, start: number, end: number): void;
}

export interface DecodedRows {
  readonly numRows: number;
  /** Input index of each output row, ascending. */
  readonly keptRows: Int32Array;
  /** Input index of each malformed record, ascending. */
  readonly malformedRows: Int32Array;
}

/** The number of records; offsets that leave `bytes` or go backwards are a caller's bug, refused before any record is read. */
export function checkValueColumn({ bytes, offsets, validity }: ValueColumn): number {
  const numRecords = Math.max(0, offsets.length - 1);
  if (validity !== null && validity.length < numRecords) throw new RangeError(`validity has ${validity.length} entries for ${numRecords} records`);
  if (numRecords === 0) return 0;
  let previous = offsets[0]!;
  if (previous < 0) throw new RangeError(`offsets[0] is ${previous}, before the start of the bytes`);
  for (let i = 1; i <= numRecords; i++) {
    const next = offsets[i]!;
    if (next < previous) throw new RangeError(`offsets[${i}] is ${next}, before offsets[${i - 1}] (${previous})`);
    previous = next;
  }
  if (previous > bytes.length) throw new RangeError(`offsets[${numRecords}] is ${previous}, past the end of the ${bytes.length} bytes`);
  return numRecords;
}

/** Runs the records of a checked column (`numRecords` from checkValueColumn) through `handlers` into `rows`. */
export function decodeValueRecords(column: ValueColumn, numRecords: number, rows: RowWriter, handlers: RecordHandlers): DecodedRows {
  const { offsets, validity } = column;
  const keptRows = new Int32Array(numRecords);
  const malformedRows: number[] = [];
  let row = 0;
  for (let i = 0; i < numRecords; i++) {
    rows.ensureRow(row);
    if (validity === null || validity[i] !== 0) {
      const start = offsets[i]!;
      const end = offsets[i + 1]!;
      try {
        handlers.decode(row, start, end);
      } catch (e) {
        if (!(e instanceof RecordProblem)) throw e;
        malformedRows.push(i);
        rows.clearRow(row);
        if (handlers.mode === "FAILFAST") throw handlers.failFast(e, i);
        if (handlers.mode === "DROPMALFORMED") continue;
        handlers.keepMalformed?.(row, start, end);
      }
    }
    rows.commitRow(row);
    keptRows[row++] = i;
  }
  return { numRows: row, keptRows: row === numRecords ? keptRows : keptRows.slice(0, row), malformedRows: Int32Array.from(malformedRows) };
}
