import * as arrow from "apache-arrow";
import { type NumericDType, numberColumn, readInt64, readNumbers } from "../batch/numeric-columns.js";
import { readValidity } from "../batch/validity.js";
import { InternalError } from "../errors/errors.js";
import type { DType } from "../types/dtype.js";
import { boolColumnOf, bytesColumnOf, windowColumnOf } from "./build.js";
import { compareDoubles } from "./compare.js";
import { copyBytes, viewOf as dataViewOf } from "./copy-bytes.js";
import { doubleWords, int64Words, RADIX_MIN_ROWS, radixOrder, sortTies, stringPrefixWords, validityWord } from "./radix-order.js";

/**
 * Typed-array views of columns, the one shape that hashing, grouping, accumulators and state
 * read and write. Reading a column into a view is zero-copy where Arrow's layout allows it, and
 * a view converts back to an Arrow column with the builders of `batch/numeric-columns.ts`.
 *
 * - numbers, timestamps (epoch ms) and booleans (0 / 1) are float64, read and built by the rules
 *   of numeric-columns.ts; a key view of an int64 column with values beyond ±(2^53 - 1) also
 *   carries the exact words (`NumberView.words`), so such keys group, order and come back exactly;
 * - strings are byte ranges `bytes[starts[i], ends[i])`, which covers plain Utf8 (zero-copy:
 *   starts and ends are both windows on the offsets), dictionary-encoded Utf8 and the byte arenas
 *   of the state store alike; binary columns are the same byte ranges (kind "string" names the
 *   layout: bytes group, order and compare alike whether or not they are text), and the column's
 *   type decides whether `viewToArrow` builds Utf8 or Binary;
 * - windows are start / end epoch milliseconds and are never null.
 *
 * `valid` holds one byte per row (1 = valid) and is null when no row is null.
 */
export interface NumberView {
  readonly kind: "number";
  readonly values: Float64Array;
  readonly valid: Uint8Array | null;
  /**
   * Exact int64 values as (low, high) word pairs, present only in key views (`keyViewOf`) of
   * int64 columns holding a valid value beyond ±(2^53 - 1); `values` then holds the nearest
   * doubles. Key encoding, ordering, `takeView` and `viewToArrow` use the words.
   */
  readonly words?: Int32Array;
}

export interface StringView {
  readonly kind: "string";
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly valid: Uint8Array | null;
}

export interface WindowView {
  readonly kind: "window";
  readonly starts: Float64Array;
  readonly ends: Float64Array;
}

export type ColumnView = NumberView | StringView | WindowView;
export type ViewKind = ColumnView["kind"];

export function viewKindOf(type: DType): ViewKind {
  switch (type) {
    case "string":
    case "binary":
      return "string";
    case "window":
      return "window";
    case "float64":
    case "int32":
    case "int64":
    case "boolean":
    case "timestamp":
      return "number";
    case "headers":
      throw new InternalError("a headers column has no key or accumulator view: the analyzer refuses it as a key or an aggregate input");
  }
}

/**
 * A view for computing (accumulators, event times): an int64 beyond ±(2^53 - 1) raises
 * NumericRangeError here rather than be summed or compared rounded. `column` names it.
 */
export function viewOf(data: arrow.Data, type: DType, column?: string): ColumnView {
  switch (viewKindOf(type)) {
    case "number":
      return { kind: "number", values: readNumbers(data, column), valid: readValidity(data) };
    case "window":
      return { kind: "window", starts: readNumbers(data.children[0]!), ends: readNumbers(data.children[1]!) };
    case "string":
      return stringViewOf(data);
  }
}

/**
 * A view for keys (grouping, dropDuplicates) and ordering: as `viewOf`, except that an int64
 * column keeps values beyond ±(2^53 - 1) exact through `NumberView.words`.
 */
export function keyViewOf(data: arrow.Data, type: DType, column?: string): ColumnView {
  if (type !== "int64") return viewOf(data, type, column);
  const { values, words } = readInt64(data, column);
  const valid = readValidity(data);
  return words === null ? { kind: "number", values, valid } : { kind: "number", values, valid, words };
}

/**
 * Arrow JS slices offset and value buffers when it slices `Data` (only validity and boolean bits
 * keep `data.offset`), so offsets here start at the slice's first row.
 */
function stringViewOf(data: arrow.Data): StringView {
  const n = data.length;
  const valid = readValidity(data);
  if (arrow.DataType.isDictionary(data.type)) {
    const chunks = data.dictionary?.data ?? [];
    if (chunks.length !== 1) throw new Error(`dictionary-encoded string column needs one dictionary chunk, got ${chunks.length}`);
    const dict = chunks[0]!;
    const dictOffsets = dict.valueOffsets as Int32Array;
    const indices = data.values as ArrayLike<number>;
    const starts = new Int32Array(n);
    const ends = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      if (valid !== null && valid[i] === 0) continue;
      const e = Number(indices[i]);
      starts[i] = dictOffsets[e]!;
      ends[i] = dictOffsets[e + 1]!;
    }
    return { kind: "string", bytes: dict.values as Uint8Array, starts, ends, valid };
  }
  const offsets = data.valueOffsets as Int32Array;
  return { kind: "string", bytes: data.values as Uint8Array, starts: offsets.subarray(0, n), ends: offsets.subarray(1, n + 1), valid };
}

/** Rows `rows[j]` of a view, in that order; a row index of -1 yields null (not for windows). */
export function takeView(view: ColumnView, rows: Int32Array): ColumnView {
  const n = rows.length;
  switch (view.kind) {
    case "number": {
      const values = new Float64Array(n);
      const valid = new Uint8Array(n);
      let anyNull = false;
      for (let j = 0; j < n; j++) {
        const r = rows[j]!;
        if (r >= 0 && (view.valid === null || view.valid[r] === 1)) {
          values[j] = view.values[r]!;
          valid[j] = 1;
        } else anyNull = true;
      }
      const taken: NumberView = { kind: "number", values, valid: anyNull ? valid : null };
      return view.words === undefined ? taken : { ...taken, words: takeWords(view.words, rows, valid) };
    }
    case "string":
      return takeStrings(view, rows);
    case "window": {
      const starts = new Float64Array(n);
      const ends = new Float64Array(n);
      for (let j = 0; j < n; j++) {
        starts[j] = view.starts[rows[j]!]!;
        ends[j] = view.ends[rows[j]!]!;
      }
      return { kind: "window", starts, ends };
    }
  }
}

/** Word pairs of `rows` (0 where `valid` is 0). */
function takeWords(words: Int32Array, rows: Int32Array, valid: Uint8Array): Int32Array {
  const out = new Int32Array(2 * rows.length);
  for (let j = 0; j < rows.length; j++) {
    if (valid[j] === 0) continue;
    const r = rows[j]!;
    out[2 * j] = words[2 * r]!;
    out[2 * j + 1] = words[2 * r + 1]!;
  }
  return out;
}

function takeStrings(view: StringView, rows: Int32Array): StringView {
  const n = rows.length;
  const offsets = new Int32Array(n + 1);
  const valid = new Uint8Array(n);
  let anyNull = false;
  let total = 0;
  for (let j = 0; j < n; j++) {
    const r = rows[j]!;
    if (r >= 0 && (view.valid === null || view.valid[r] === 1)) {
      valid[j] = 1;
      total += view.ends[r]! - view.starts[r]!;
    } else anyNull = true;
    offsets[j + 1] = total;
  }
  const bytes = new Uint8Array(total);
  const srcView = dataViewOf(view.bytes);
  const outView = dataViewOf(bytes);
  for (let j = 0; j < n; j++) {
    if (valid[j] === 0) continue;
    const r = rows[j]!;
    copyBytes(view.bytes, srcView, view.starts[r]!, bytes, outView, offsets[j]!, view.ends[r]! - view.starts[r]!);
  }
  return { kind: "string", bytes, starts: offsets.subarray(0, n), ends: offsets.subarray(1), valid: anyNull ? valid : null };
}

/** True when the string view is laid out as Arrow Utf8 expects: consecutive ranges from 0. */
function isContiguous(view: StringView): boolean {
  const n = view.starts.length;
  if (n === 0) return true;
  if (view.starts[0] !== 0) return false;
  if (view.starts.buffer === view.ends.buffer && view.ends.byteOffset === view.starts.byteOffset + 4) return true;
  for (let i = 1; i < n; i++) if (view.starts[i] !== view.ends[i - 1]) return false;
  return true;
}

function identityRows(n: number): Int32Array {
  const rows = new Int32Array(n);
  for (let i = 0; i < n; i++) rows[i] = i;
  return rows;
}

/** The Arrow column of a view, typed as `type`. */
export function viewToArrow(view: ColumnView, type: DType): arrow.Data {
  switch (view.kind) {
    case "number":
      return numbersToArrow(view.values, view.valid, type, view.words ?? null);
    case "window":
      return windowColumnOf(view.starts, view.ends, null);
    case "string": {
      const flat = isContiguous(view) ? view : takeStrings(view, identityRows(view.starts.length));
      const n = flat.starts.length;
      const offsets = new Int32Array(n + 1);
      if (n > 0) offsets.set(flat.ends, 1);
      return bytesColumnOf(type === "binary" ? "binary" : "string", offsets, flat.bytes.subarray(0, offsets[n]), flat.valid);
    }
  }
}

/**
 * Float64 values (epoch ms for timestamps, 0 / 1 for booleans) as an Arrow column of `type`, by
 * the rules of numeric-columns.ts; `words` (int64 only) are exact values that take precedence.
 */
export function numbersToArrow(values: Float64Array, valid: Uint8Array | null, type: DType, words: Int32Array | null = null): arrow.Data {
  switch (type) {
    case "float64":
    case "int32":
    case "int64":
    case "timestamp":
      return numberColumn(type satisfies NumericDType, values, valid, type === "int64" ? words : null);
    case "boolean":
      return boolColumnOf(Uint8Array.from(values, (v) => (v !== 0 ? 1 : 0)), valid);
    case "string":
    case "window":
    case "binary":
    case "headers":
      throw new Error(`a ${type} column cannot be built from numbers`);
  }
}

// ---- ordering: ascending, nulls first (Spark's default for ascending sorts) ----

/** Order of the int64 values at rows a and b of `words`: high words signed, then low words unsigned. */
export function compareInt64Words(words: Int32Array, a: number, b: number): number {
  const ha = words[2 * a + 1]!;
  const hb = words[2 * b + 1]!;
  if (ha !== hb) return ha < hb ? -1 : 1;
  const la = words[2 * a]! >>> 0;
  const lb = words[2 * b]! >>> 0;
  return la < lb ? -1 : la > lb ? 1 : 0;
}

/** Unsigned byte order, which for UTF-8 is code point order (Spark's string order). */
export function compareBytes(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  const n = Math.min(aEnd - aStart, bEnd - bStart);
  for (let k = 0; k < n; k++) {
    const d = a[aStart + k]! - b[bStart + k]!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  const d = aEnd - aStart - (bEnd - bStart);
  return d < 0 ? -1 : d > 0 ? 1 : 0;
}

/** Compares rows a and b of one view: nulls first, then values ascending. */
type RowComparator = (a: number, b: number) => number;

/** A comparator specialised to one view, so that sorting does not re-dispatch per comparison. */
function rowComparator(view: ColumnView): RowComparator {
  switch (view.kind) {
    case "window": {
      const { starts, ends } = view;
      return (a, b) => compareDoubles(starts[a]!, starts[b]!) || compareDoubles(ends[a]!, ends[b]!);
    }
    case "number": {
      const { values, words } = view;
      if (words !== undefined) return nullsFirst(view.valid, (a, b) => compareInt64Words(words, a, b));
      return nullsFirst(view.valid, (a, b) => compareDoubles(values[a]!, values[b]!));
    }
    case "string": {
      const { bytes, starts, ends } = view;
      return nullsFirst(view.valid, (a, b) => compareBytes(bytes, starts[a]!, ends[a]!, bytes, starts[b]!, ends[b]!));
    }
  }
}

function nullsFirst(valid: Uint8Array | null, compareValues: RowComparator): RowComparator {
  if (valid === null) return compareValues;
  return (a, b) => {
    const va = valid[a]!;
    const vb = valid[b]!;
    if (va !== vb) return va - vb;
    return va === 0 ? 0 : compareValues(a, b);
  };
}

/**
 * The permutation that sorts rows [0, n) by the given views in order, ties keeping row order. From
 * RADIX_MIN_ROWS rows on, a radix sort orders the rows by their key words (radix-order.ts); only
 * strings too long for their words to tell apart go on to a comparator, within each tie.
 */
export function sortedRowOrder(views: readonly ColumnView[], n: number): Int32Array {
  if (n < RADIX_MIN_ROWS) return comparatorRowOrder(views, n);
  const words: Uint32Array[] = [];
  for (const view of views) {
    // A view every row shares (an append-mode close's one window) orders nothing.
    if (isConstant(view, n)) continue;
    const key = sortWords(view, n);
    words.push(...key.words);
    // Views after an inexact one are left to the comparator: their words would order rows the
    // inexact view has not finished ordering.
    if (!key.exact) {
      const order = radixOrder(words, n);
      sortTies(order, words, rowsComparator(views));
      return order;
    }
  }
  return radixOrder(words, n);
}

/** The same order by a comparator sort (small inputs, and the reference the radix sort is tested against). */
export function comparatorRowOrder(views: readonly ColumnView[], n: number): Int32Array {
  return identityRows(n).sort(rowsComparator(views));
}

function rowsComparator(views: readonly ColumnView[]): RowComparator {
  const comparators = views.map(rowComparator);
  return (a, b) => {
    for (let i = 0; i < comparators.length; i++) {
      const c = comparators[i]!(a, b);
      if (c !== 0) return c;
    }
    return a - b;
  };
}

function isConstant(view: ColumnView, n: number): boolean {
  const compare = rowComparator(view);
  for (let i = 1; i < n; i++) if (compare(0, i) !== 0) return false;
  return true;
}

/** A view's key words (radix-order.ts): validity first where the view has nulls, then the values. */
function sortWords(view: ColumnView, n: number): { readonly words: Uint32Array[]; readonly exact: boolean } {
  switch (view.kind) {
    case "window":
      return { words: [...doubleWords(view.starts, null, n), ...doubleWords(view.ends, null, n)], exact: true };
    case "number": {
      const values = view.words !== undefined ? int64Words(view.words, n) : doubleWords(view.values, view.valid, n);
      return { words: view.valid === null ? values : [validityWord(view.valid, n), ...values], exact: true };
    }
    case "string": {
      const prefix = stringPrefixWords(view.bytes, view.starts, view.ends, view.valid, n);
      return { words: view.valid === null ? prefix.words : [validityWord(view.valid, n), ...prefix.words], exact: prefix.exact };
    }
  }
}
