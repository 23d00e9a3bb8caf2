import type * as arrow from "apache-arrow";
import { AnalysisError } from "../errors/errors.js";
import { assertNever } from "../expr/ast.js";
import { binaryColumnOf, boolColumnOf, stringColumnOf, windowColumnOf } from "../kernels/build.js";
import { entryText, stringAt, stringsOf } from "../kernels/columns.js";
import { headersColumn, headersOf, nullBitsOf } from "../kernels/headers.js";
import { parseTimestamp } from "../kernels/temporal.js";
import { Utf8Builder } from "../kernels/utf8.js";
import type { DType, Field, Fields, Header } from "../types/dtype.js";
import { type Batch, makeBatch } from "./batch.js";
import { isExactWords, MAX_TIMESTAMP_MS, numberColumn, readInt64, readNumbers, setInt64FromBigInt, setInt64Words } from "./numeric-columns.js";
import { readValidity } from "./validity.js";

/**
 * Conversion between JavaScript rows and columnar batches, for memory sources, `collect()` and
 * tests. Columns are built straight into typed arrays (no Arrow builders) and every value is
 * checked against its field, so a wrong row fails here with its index rather than deep inside an
 * operator.
 */

const EXPECTED: Readonly<Record<DType, string>> = {
  string: "a string",
  float64: "a number",
  int32: "an integer in the int32 range",
  int64: "a safe integer (within ±(2^53 - 1)) or a bigint within the int64 range",
  boolean: "a boolean",
  timestamp: "a Date, epoch milliseconds within ±8.64e15 or an ISO-8601 string",
  window: "a window { start, end } of Dates",
  binary: "a Uint8Array (or Buffer)",
  headers: "an array of { key: string, value: Uint8Array or null }",
};

function describe(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? "an invalid Date" : `Date ${v.toISOString()}`;
  if (v instanceof Uint8Array) return `a Uint8Array of ${v.length} bytes`;
  if (typeof v === "object") return Array.isArray(v) ? "an array" : "an object";
  return `${typeof v} ${String(v)}`;
}

function badValue(row: number, field: Field, v: unknown): AnalysisError {
  const nullNote = v === null || v === undefined ? " (the column is not nullable)" : "";
  return new AnalysisError(`row ${row}, column "${field.name}": expected ${EXPECTED[field.type]} (${field.type})${nullNote}, got ${describe(v)}`);
}

/** A row's value for a column; `__proto__` is read as an own property only. */
function cell(row: Record<string, unknown>, name: string): unknown {
  return name === "__proto__" && !Object.hasOwn(row, name) ? undefined : row[name];
}

/**
 * Epoch ms of a timestamp input, or null when it is not one. A fraction of a millisecond is floored
 * (numeric-columns.ts: times round toward negative infinity).
 */
function timestampValue(v: unknown): number | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.getTime();
  if (typeof v === "number") return Math.abs(v) <= MAX_TIMESTAMP_MS ? Math.floor(v) : null;
  if (typeof v === "string") return parseTimestamp(v);
  return null;
}

/** The number a float64 or int32 field stores for `v`, or null when `v` does not fit the field. */
function numberValue(v: unknown, type: "float64" | "int32"): number | null {
  if (typeof v !== "number") return null;
  return type === "float64" || (Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) ? v : null;
}

/**
 * Writes an int64 input at row `i`: a safe integer, or a bigint (exact over the whole int64 range,
 * since a number beyond ±(2^53 - 1) may already be rounded). False when `v` is neither.
 */
function writeInt64(words: Int32Array, i: number, v: unknown): boolean {
  if (typeof v === "bigint") return setInt64FromBigInt(words, i, v);
  if (!Number.isSafeInteger(v)) return false;
  setInt64Words(words, i, v as number);
  return true;
}

/** A batch from rows; throws `AnalysisError` naming the row, column and expected type on a bad value. */
export function rowsToBatch(rows: readonly Record<string, unknown>[], fields: Fields): Batch {
  return makeBatch(
    fields,
    fields.map((f) => buildColumn(rows.length, (i) => cell(rows[i], f.name), f, badValue)),
    rows.length,
  );
}

/** Describes a value that does not fit its column: what was expected and what came. */
export type BadValue = (row: number, field: Field, v: unknown) => Error;

/**
 * A column of `n` values of `field`'s type from `valueAt(i)` (null or undefined: null), each checked as
 * rows are (`rowsToBatch`); `bad` makes the error for a value that does not fit.
 */
export function columnFromValues(n: number, valueAt: (i: number) => unknown, field: Field, bad: BadValue): arrow.Data {
  return buildColumn(n, valueAt, field, bad);
}

/** What a column of this type accepts, in words, for errors. */
export function expectedValue(field: Field, v: unknown): string {
  const nullNote = v === null || v === undefined ? " (the column is not nullable)" : "";
  return `expected ${EXPECTED[field.type]} (${field.type})${nullNote}, got ${describe(v)}`;
}

function buildColumn(n: number, valueAt: (i: number) => unknown, field: Field, badValue: BadValue): arrow.Data {
  const valid = new Uint8Array(n);
  let nulls = 0;
  // Calls `convert` with each present value; absent values are nulls (checked against nullability).
  const each = (convert: (v: unknown, i: number) => void, onNull: () => void = () => {}): void => {
    for (let i = 0; i < n; i++) {
      const v = valueAt(i);
      if (v === null || v === undefined) {
        if (!field.nullable) throw badValue(i, field, v);
        nulls++;
        onNull();
        continue;
      }
      valid[i] = 1;
      convert(v, i);
    }
  };
  const validity = (): Uint8Array | null => (nulls === 0 ? null : valid);
  switch (field.type) {
    case "string": {
      const builder = new Utf8Builder(n);
      each(
        (v, i) => {
          if (typeof v !== "string") throw badValue(i, field, v);
          builder.appendString(v);
        },
        () => builder.endRow(),
      );
      const { offsets, bytes } = builder.finish();
      return stringColumnOf(offsets, bytes, validity());
    }
    case "boolean": {
      const values = new Uint8Array(n);
      each((v, i) => {
        if (typeof v !== "boolean") throw badValue(i, field, v);
        values[i] = +v;
      });
      return boolColumnOf(values, validity());
    }
    case "float64":
    case "int32":
    case "timestamp": {
      const values = new Float64Array(n);
      const type = field.type;
      each((v, i) => {
        const x = type === "timestamp" ? timestampValue(v) : numberValue(v, type);
        if (x === null) throw badValue(i, field, v);
        values[i] = x;
      });
      return numberColumn(type, values, validity());
    }
    case "int64": {
      const words = new Int32Array(2 * n);
      each((v, i) => {
        if (!writeInt64(words, i, v)) throw badValue(i, field, v);
      });
      return numberColumn("int64", new Float64Array(n), validity(), words);
    }
    case "binary": {
      const builder = new Utf8Builder(n);
      each(
        (v, i) => {
          if (!(v instanceof Uint8Array)) throw badValue(i, field, v);
          builder.appendRange(v, 0, v.length);
        },
        () => builder.endRow(),
      );
      const { offsets, bytes } = builder.finish();
      return binaryColumnOf(offsets, bytes, validity());
    }
    case "headers":
      return headersFromRows(n, field, each, validity, badValue);
    case "window": {
      const starts = new Float64Array(n);
      const ends = new Float64Array(n);
      each((v, i) => {
        const w = v as { start?: unknown; end?: unknown };
        const start = typeof v === "object" ? timestampValue(w.start) : null;
        const end = typeof v === "object" ? timestampValue(w.end) : null;
        if (start === null || end === null) throw badValue(i, field, v);
        starts[i] = start;
        ends[i] = end;
      });
      return windowColumnOf(starts, ends, validity());
    }
    default:
      return assertNever(field.type, "type");
  }
}

type EachValue = (convert: (v: unknown, i: number) => void, onNull?: () => void) => void;

/** A headers column from rows' arrays of `{ key, value }` (an absent value is a header without one). */
function headersFromRows(n: number, field: Field, each: EachValue, validity: () => Uint8Array | null, badValue: BadValue): arrow.Data {
  const offsets = new Int32Array(n + 1);
  const headers: { key: string; value: Uint8Array | null }[] = [];
  each((v, i) => {
    if (!Array.isArray(v)) throw badValue(i, field, v);
    for (const h of v as unknown[]) {
      const { key, value } = (h ?? {}) as { key?: unknown; value?: unknown };
      if (typeof key !== "string" || !(value === null || value === undefined || value instanceof Uint8Array)) throw badValue(i, field, v);
      headers.push({ key, value: value ?? null });
    }
    offsets[i + 1] = headers.length;
  });
  // A null row holds no headers: it ends where the row before it ended.
  for (let i = 1; i <= n; i++) if (offsets[i] < offsets[i - 1]) offsets[i] = offsets[i - 1];
  const keys = new Utf8Builder(headers.length);
  const values = new Utf8Builder(headers.length);
  const valueValid = new Uint8Array(headers.length);
  headers.forEach(({ key, value }, e) => {
    keys.appendString(key);
    if (value === null) values.endRow();
    else values.appendRange(value, 0, value.length);
    valueValid[e] = value === null ? 0 : 1;
  });
  const key = keys.finish();
  const value = values.finish();
  return headersColumn({
    length: n,
    offsets,
    rowNulls: nullBitsOf(validity(), n),
    keyOffsets: key.offsets,
    keyBytes: key.bytes,
    valueOffsets: value.offsets,
    valueBytes: value.bytes,
    valueNulls: nullBitsOf(valueValid, headers.length),
  });
}

export interface RowOptions {
  /**
   * An int64 beyond ±(2^53 - 1) as a bigint rather than a NumericRangeError (for display, where
   * the exact digits matter more than the row type).
   */
  readonly bigintBeyondExact?: boolean;
}

/**
 * Rows from a batch: timestamps as `Date`, windows as `{ start: Date, end: Date }`, int64 as
 * number, binary as a `Uint8Array` of its own, headers as `{ key, value }[]`, nulls as null. Keys follow the field order. An int64 beyond ±(2^53 - 1), which a number
 * cannot hold, raises NumericRangeError naming the column (`toArrow()` keeps it exact), unless
 * `bigintBeyondExact` asks for a bigint.
 */
export function batchToRows(batch: Batch, options: RowOptions = {}): Record<string, unknown>[] {
  const n = batch.numRows;
  const columns = batch.fields.map((f, c) => columnValues(batch.columns[c], f, n, options));
  const names = batch.fields.map((f) => f.name);
  // A column named "__proto__" must become an own property, not the row's prototype.
  const plainNames = !names.includes("__proto__");
  const rows: Record<string, unknown>[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) {
      if (plainNames) row[names[c]] = columns[c][i];
      else Object.defineProperty(row, names[c], { value: columns[c][i], enumerable: true, writable: true, configurable: true });
    }
    rows[i] = row;
  }
  return rows;
}

/** The JavaScript values of a column's `n` rows, as `batchToRows` gives them. */
export function columnValues(data: arrow.Data, field: Field, n: number, options: RowOptions = {}): unknown[] {
  const { type, name } = field;
  const valid = readValidity(data);
  const out: unknown[] = new Array(n);
  const fill = (value: (i: number) => unknown): unknown[] => {
    for (let i = 0; i < n; i++) out[i] = valid === null || valid[i] ? value(i) : null;
    return out;
  };
  switch (type) {
    case "string": {
      const view = stringsOf(data);
      return fill((i) => stringAt(view, i));
    }
    case "boolean": {
      const values = readNumbers(data);
      return fill((i) => values[i] === 1);
    }
    case "float64":
    case "int32": {
      const values = readNumbers(data, name);
      return fill((i) => values[i]);
    }
    case "int64": {
      if (!options.bigintBeyondExact) {
        const values = readNumbers(data, name);
        return fill((i) => values[i]);
      }
      const { values, words } = readInt64(data, name);
      if (words === null) return fill((i) => values[i]);
      return fill((i) => (isExactWords(words[2 * i], words[2 * i + 1]) ? values[i] : (BigInt(words[2 * i + 1]) << 32n) + BigInt(words[2 * i] >>> 0)));
    }
    case "timestamp": {
      const values = readNumbers(data, name);
      return fill((i) => new Date(values[i]));
    }
    case "binary": {
      // A copy per value: rows must not alias (or let users change) the batch's buffers.
      const { offsets, bytes, indices } = stringsOf(data);
      return fill((i) => {
        const e = indices === null ? i : indices[i];
        return bytes.slice(offsets[e], offsets[e + 1]);
      });
    }
    case "headers": {
      const { offsets, keys, values, valueValid } = headersOf(data);
      return fill((i) => {
        const list: Header[] = [];
        for (let e = offsets[i]; e < offsets[i + 1]; e++) {
          const value = valueValid === null || valueValid[e] ? values.bytes.slice(values.offsets[e], values.offsets[e + 1]) : null;
          list.push({ key: entryText(keys, e), value });
        }
        return list;
      });
    }
    case "window": {
      const starts = readNumbers(data.children[0], `${name}.start`);
      const ends = readNumbers(data.children[1], `${name}.end`);
      return fill((i) => ({ start: new Date(starts[i]), end: new Date(ends[i]) }));
    }
    default:
      return assertNever(type, "type");
  }
}
