import * as arrow from "apache-arrow";
import { boolColumn, utf8Column } from "../batch/batch.js";
import { float64Column, int32Column, int64ColumnOfWords, timestampColumnOfWords } from "../batch/numeric-columns.js";
import { validityFromBytes } from "../batch/validity.js";
import { AnalysisError } from "../errors/errors.js";
import { copyBytes, ViewCache } from "../kernels/copy-bytes.js";
import type { DType, Fields } from "../types/dtype.js";
import { unescapeInto } from "./json-escapes.js";

/**
 * Growable typed arrays that decoded values are written into, one set per field, turned into
 * Arrow `Data` at the end without per-value work beyond bit packing. Decoders index the arrays by
 * field and row directly; the arrays for a field of another kind are empty placeholders, so
 * each array list holds one typed-array class only.
 *
 * A row is written in place and may be abandoned (`clearRow`) when its record turns out to be bad.
 * Strings of row r start at `offsets[r]`, so writing a string field twice in one record (a
 * duplicate key) simply overwrites the first value.
 */

export const KIND_STRING = 0;
export const KIND_FLOAT64 = 1;
export const KIND_INT32 = 2;
export const KIND_INT64 = 3;
export const KIND_BOOLEAN = 4;
export const KIND_TIMESTAMP = 5;

export function kindOf(type: DType, name: string): number {
  switch (type) {
    case "string":
      return KIND_STRING;
    case "float64":
      return KIND_FLOAT64;
    case "int32":
      return KIND_INT32;
    case "int64":
      return KIND_INT64;
    case "boolean":
      return KIND_BOOLEAN;
    case "timestamp":
      return KIND_TIMESTAMP;
    case "window":
      throw new AnalysisError(`field "${name}" has type window, which cannot be read from JSON; declare it as a string or timestamp`);
    case "binary":
      throw new AnalysisError(`field "${name}" has type binary, which cannot be read from JSON; declare it as a string (z.string()) and decode it with unbase64(col("${name}"))`);
    case "headers":
      throw new AnalysisError(`field "${name}" has type headers, which cannot be read from JSON; Kafka headers come from the Kafka source's includeHeaders option`);
  }
}

const NO_BYTES = new Uint8Array(0);
const NO_FLOATS = new Float64Array(0);
const NO_INTS = new Int32Array(0);
const MIN_ROWS = 16;
/**
 * String bytes start small: the first growth projects the size from the rows decoded so far (see
 * `growStrings`), which guesses better than any size fixed up front, and a column that stays
 * mostly null (such as the corrupt-record column) never grows at all.
 */
const FIRST_STRING_BYTES = 256;

type NumericArray = Uint8Array | Int32Array | Float64Array;

function grown<T extends NumericArray>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}

/**
 * The first `length` elements. A view when little capacity would be wasted (copying costs time
 * and a fresh buffer), a copy otherwise so that a batch does not pin a much larger buffer.
 */
function trimmed<T extends NumericArray>(array: T, length: number): T {
  if (length === array.length) return array;
  return (length >= array.length - (array.length >> 2) ? array.subarray(0, length) : array.slice(0, length)) as T;
}

export class ColumnAccumulators {
  rowCapacity: number;
  readonly kinds: Int32Array;
  readonly valid: Uint8Array[] = [];
  readonly float64s: Float64Array[] = [];
  readonly int32s: Int32Array[] = [];
  /** int64 and timestamp (epoch ms) values as little-endian 32-bit word pairs: no BigInt per value. */
  readonly words: Int32Array[] = [];
  readonly bools: Uint8Array[] = [];
  readonly offsets: Int32Array[] = [];
  readonly stringBytes: Uint8Array[] = [];
  /** Per string field: the view of its bytes for `copyBytes`, made again only when they grow. */
  private readonly stringViews: ViewCache[] = [];
  /** The view of the source `writeRawString` copies from, which changes once per batch, not per value. */
  private readonly sourceView = new ViewCache();
  /** Per string field: where the value written for the current row ends. */
  readonly stringEnd: Int32Array;
  private readonly stringFields: Int32Array;

  constructor(
    private readonly fields: Fields,
    /** Row slots to start with; they double when there are more rows. */
    expectedRows: number,
  ) {
    this.kinds = Int32Array.from(fields, (f) => kindOf(f.type, f.name));
    this.stringFields = Int32Array.from(this.kinds.keys()).filter((i) => this.kinds[i] === KIND_STRING);
    this.stringEnd = new Int32Array(fields.length);
    const rows = Math.max(MIN_ROWS, expectedRows);
    this.rowCapacity = rows;
    for (let f = 0; f < fields.length; f++) {
      const kind = this.kinds[f]!;
      this.valid.push(new Uint8Array(rows));
      this.float64s.push(kind === KIND_FLOAT64 ? new Float64Array(rows) : NO_FLOATS);
      this.int32s.push(kind === KIND_INT32 ? new Int32Array(rows) : NO_INTS);
      this.words.push(kind === KIND_INT64 || kind === KIND_TIMESTAMP ? new Int32Array(rows * 2) : NO_INTS);
      this.bools.push(kind === KIND_BOOLEAN ? new Uint8Array(rows) : NO_BYTES);
      this.offsets.push(kind === KIND_STRING ? new Int32Array(rows + 1) : NO_INTS);
      this.stringBytes.push(kind === KIND_STRING ? new Uint8Array(FIRST_STRING_BYTES) : NO_BYTES);
      this.stringViews.push(new ViewCache());
    }
  }

  /** Makes room for row `row` (called once per record, before it is decoded). */
  ensureRow(row: number): void {
    if (row < this.rowCapacity) return;
    const rows = this.rowCapacity * 2;
    for (let f = 0; f < this.fields.length; f++) {
      const kind = this.kinds[f]!;
      this.valid[f] = grown(this.valid[f]!, rows);
      if (kind === KIND_FLOAT64) this.float64s[f] = grown(this.float64s[f]!, rows);
      else if (kind === KIND_INT32) this.int32s[f] = grown(this.int32s[f]!, rows);
      else if (kind === KIND_INT64 || kind === KIND_TIMESTAMP) this.words[f] = grown(this.words[f]!, rows * 2);
      else if (kind === KIND_BOOLEAN) this.bools[f] = grown(this.bools[f]!, rows);
      else this.offsets[f] = grown(this.offsets[f]!, rows + 1);
    }
    this.rowCapacity = rows;
  }

  /** The byte array of string field `f`, with room for `extra` more bytes after row `row`'s start. */
  private reserve(f: number, row: number, extra: number): Uint8Array {
    const needed = this.offsets[f]![row]! + extra;
    const bytes = this.stringBytes[f]!;
    return needed <= bytes.length ? bytes : this.growStrings(f, row, needed);
  }

  /**
   * Grows string field f's bytes to what the rows so far suggest all rows will need (the row
   * capacity is an estimate of the row count), so that long strings cost one or two copies rather
   * than a doubling series; never by less than half, so growth stays amortized.
   */
  private growStrings(f: number, row: number, needed: number): Uint8Array {
    const current = this.stringBytes[f]!;
    const projected = Math.ceil((needed / (row + 1)) * this.rowCapacity * 1.1);
    const bytes = grown(current, Math.max(needed, projected, current.length + (current.length >> 1)));
    this.stringBytes[f] = bytes;
    return bytes;
  }

  /** Sets string field `f` of `row` to the raw bytes `src[start, end)`. */
  writeRawString(f: number, row: number, src: Uint8Array, start: number, end: number): void {
    const length = end - start;
    const dst = this.reserve(f, row, length);
    const at = this.offsets[f]![row]!;
    copyBytes(src, this.sourceView.of(src), start, dst, this.stringViews[f]!.of(dst), at, length);
    this.stringEnd[f] = at + length;
    this.valid[f]![row] = 1;
  }

  /** Sets string field `f` of `row` to the JSON string content `src[start, end)`, unescaping it. */
  writeEscapedString(f: number, row: number, src: Uint8Array, start: number, end: number): void {
    const dst = this.reserve(f, row, end - start);
    this.stringEnd[f] = unescapeInto(src, start, end, dst, this.offsets[f]![row]!);
    this.valid[f]![row] = 1;
  }

  /** Closes `row`: string fields left unset (missing or null) get an empty slot. */
  commitRow(row: number): void {
    const strings = this.stringFields;
    for (let i = 0; i < strings.length; i++) {
      const f = strings[i]!;
      const offsets = this.offsets[f]!;
      offsets[row + 1] = this.valid[f]![row] ? this.stringEnd[f]! : offsets[row]!;
    }
  }

  /** Forgets whatever a bad record wrote into `row`: every field is null again. */
  clearRow(row: number): void {
    for (let f = 0; f < this.fields.length; f++) {
      this.valid[f]![row] = 0;
      const kind = this.kinds[f]!;
      if (kind === KIND_FLOAT64) this.float64s[f]![row] = 0;
      else if (kind === KIND_INT32) this.int32s[f]![row] = 0;
      else if (kind === KIND_INT64 || kind === KIND_TIMESTAMP) this.words[f]!.fill(0, 2 * row, 2 * row + 2);
      else if (kind === KIND_BOOLEAN) this.bools[f]![row] = 0;
    }
  }

  /** Arrow columns holding rows [0, numRows). */
  finish(numRows: number): arrow.Data[] {
    return this.fields.map((field, f) => {
      const { bitmap, nullCount } = validityFromBytes(this.valid[f]!, numRows);
      switch (this.kinds[f]) {
        case KIND_STRING: {
          const offsets = trimmed(this.offsets[f]!, numRows + 1);
          return utf8Column(offsets, trimmed(this.stringBytes[f]!, offsets[numRows]!), bitmap, nullCount);
        }
        case KIND_FLOAT64:
          return float64Column(trimmed(this.float64s[f]!, numRows), bitmap, nullCount);
        case KIND_INT32:
          return int32Column(trimmed(this.int32s[f]!, numRows), bitmap, nullCount);
        case KIND_INT64:
          return int64ColumnOfWords(trimmed(this.words[f]!, numRows * 2), numRows, bitmap, nullCount);
        case KIND_BOOLEAN:
          return boolColumn(this.bools[f]!.subarray(0, numRows), bitmap, nullCount);
        default:
          return timestampColumnOfWords(trimmed(this.words[f]!, numRows * 2), numRows, bitmap, nullCount);
      }
    });
  }
}
