import * as arrow from "apache-arrow";
import { arrowType } from "../schema/arrow-types.js";
import { boolColumn, float64Column, int32Column, readNumbers, readValidity, utf8Column, validityFromBytes } from "../batch/batch.js";
import type { DType } from "../types/dtype.js";

/**
 * Typed-array views of columns, the one shape that hashing, grouping, accumulators and state
 * read and write. Reading a column into a view is zero-copy where Arrow's layout allows it, and
 * a view converts back to an Arrow column with the builders of `batch/batch.ts`.
 *
 * - numbers, timestamps (epoch ms) and booleans (0 / 1) are float64;
 * - strings are byte ranges `bytes[starts[i], ends[i])`, which covers plain Utf8 (zero-copy:
 *   starts and ends are both windows on the offsets), dictionary-encoded Utf8 and the byte arenas
 *   of the state store alike;
 * - windows are start / end epoch milliseconds and are never null.
 *
 * `valid` holds one byte per row (1 = valid) and is null when no row is null.
 */
export interface NumberView {
  readonly kind: "number";
  readonly values: Float64Array;
  readonly valid: Uint8Array | null;
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
      return "string";
    case "window":
      return "window";
    case "float64":
    case "int32":
    case "int64":
    case "boolean":
    case "timestamp":
      return "number";
  }
}

export function viewOf(data: arrow.Data, type: DType): ColumnView {
  switch (viewKindOf(type)) {
    case "number":
      return { kind: "number", values: readNumbers(data), valid: readValidity(data) };
    case "window":
      return { kind: "window", starts: readNumbers(data.children[0]!), ends: readNumbers(data.children[1]!) };
    case "string":
      return stringViewOf(data);
  }
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
      return { kind: "number", values, valid: anyNull ? valid : null };
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
  for (let j = 0; j < n; j++) {
    if (valid[j] === 0) continue;
    const r = rows[j]!;
    bytes.set(view.bytes.subarray(view.starts[r]!, view.ends[r]!), offsets[j]!);
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
      return numbersToArrow(view.values, view.valid, type);
    case "window":
      return windowOf(view.starts, view.ends);
    case "string": {
      const flat = isContiguous(view) ? view : takeStrings(view, identityRows(view.starts.length));
      const n = flat.starts.length;
      const offsets = new Int32Array(n + 1);
      if (n > 0) offsets.set(flat.ends, 1);
      const { bitmap, nullCount } = flat.valid ? validityFromBytes(flat.valid, n) : { bitmap: undefined, nullCount: 0 };
      return utf8Column(offsets, flat.bytes.subarray(0, offsets[n]), bitmap, nullCount);
    }
  }
}

/** Float64 values (epoch ms for timestamps, 0 / 1 for booleans) as an Arrow column of `type`. */
export function numbersToArrow(values: Float64Array, valid: Uint8Array | null, type: DType): arrow.Data {
  const { bitmap, nullCount } = valid ? validityFromBytes(valid, values.length) : { bitmap: undefined, nullCount: 0 };
  switch (type) {
    case "float64":
      return float64Column(values, bitmap, nullCount);
    case "int32":
      return int32Column(Int32Array.from(values), bitmap, nullCount);
    case "int64":
      return arrow.makeData({ type: new arrow.Int64(), length: values.length, data: int64Of(values), nullBitmap: bitmap, nullCount });
    case "timestamp":
      return timestampOf(values, bitmap, nullCount);
    case "boolean":
      return boolColumn(Uint8Array.from(values, (v) => (v !== 0 ? 1 : 0)), bitmap, nullCount);
    case "string":
    case "window":
      throw new Error(`a ${type} column cannot be built from numbers`);
  }
}

/** Window struct column from start / end epoch ms. */
function windowOf(starts: Float64Array, ends: Float64Array): arrow.Data {
  return arrow.makeData({
    type: arrowType("window") as arrow.Struct,
    length: starts.length,
    nullCount: 0,
    children: [timestampOf(starts, undefined, 0), timestampOf(ends, undefined, 0)],
  });
}

function timestampOf(millis: Float64Array, bitmap: Uint8Array | undefined, nullCount: number): arrow.Data {
  return arrow.makeData({ type: new arrow.TimestampMillisecond(), length: millis.length, data: int64Of(millis), nullBitmap: bitmap, nullCount });
}

/**
 * Integral float64 values as int64, written as two's-complement word pairs: no BigInt per value
 * (which would allocate one object each). Fractions are truncated toward zero.
 */
function int64Of(values: Float64Array): BigInt64Array {
  const out = new BigInt64Array(values.length);
  const words = new Int32Array(out.buffer);
  for (let i = 0; i < values.length; i++) {
    const x = Math.trunc(values[i]!);
    const high = Math.floor(x / 4294967296);
    words[2 * i] = (x - high * 4294967296) | 0;
    words[2 * i + 1] = high | 0;
  }
  return out;
}

// ---- ordering: ascending, nulls first (Spark's default for ascending sorts) ----

/** Numeric order with -0 equal to 0 and NaN above every other value, as Spark orders doubles. */
export function compareNumbers(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  const aNaN = a !== a;
  const bNaN = b !== b;
  return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
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
      return (a, b) => compareNumbers(starts[a]!, starts[b]!) || compareNumbers(ends[a]!, ends[b]!);
    }
    case "number": {
      const { values } = view;
      return nullsFirst(view.valid, (a, b) => compareNumbers(values[a]!, values[b]!));
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

/** The permutation that sorts rows [0, n) by the given views in order, ties keeping row order. */
export function sortedRowOrder(views: readonly ColumnView[], n: number): Int32Array {
  const order = identityRows(n);
  const comparators = views.map(rowComparator);
  order.sort((a, b) => {
    for (let i = 0; i < comparators.length; i++) {
      const c = comparators[i]!(a, b);
      if (c !== 0) return c;
    }
    return a - b;
  });
  return order;
}
