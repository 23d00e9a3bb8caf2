import * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { unpackBits } from "../kernels/bits.js";
import {
  firstInexactRow,
  int64BeyondRangeError,
  int64ColumnOfWords,
  int64WordsFromDoubles,
  MAX_EXACT_INTEGER,
  numberColumn,
  readInt64,
  readNumbers,
  wordsToNumbers,
} from "../batch/numeric-columns.js";
import { nullProps, readValidity } from "../batch/validity.js";
import { InternalError } from "../errors/errors.js";
import { boolColumnOf, bytesColumnOf, windowColumnOf } from "../kernels/build.js";
import { materializeStrings, stringsOf, type StringsView } from "../kernels/columns.js";
import { encodeUtf8 } from "../kernels/utf8.js";
import type { ColType, DType } from "../types/dtype.js";
import { assertNever } from "./ast.js";

/**
 * The in-flight representation of an expression's value while a batch is evaluated. Each Sluice
 * type has one shape, chosen so kernels run on plain typed arrays:
 *
 * - numbers and timestamps: float64 values (epoch ms for timestamps; int32 results are kept
 *   wrapped to 32 bits, int64 results are exact within ±(2^53 - 1)); an int64 vector holding a
 *   value beyond that range carries its exact words instead (see `NumVec.words`);
 * - booleans: one byte per row;
 * - strings: offsets + bytes, possibly through dictionary indices (constants are a one-entry
 *   dictionary, so they cost no per-row bytes); binary values have the same shape (`StrVec`),
 *   the expression's type telling bytes from text;
 * - windows: start and end in epoch ms.
 *
 * `valid` holds one byte per row (1 = not null), or null when no row is null. Values at null rows
 * are unspecified. Vectors are immutable once built: kernels always write fresh arrays, because a
 * vector may share its arrays with an input column. `source` is the column a vector was read
 * from, so pass-through columns leave evaluation without a copy.
 */
export type Vec = NumVec | BoolVec | StrVec | WinVec;

interface VecBase {
  readonly valid: Uint8Array | null;
  readonly source?: arrow.Data;
}
export interface NumVec extends VecBase {
  readonly kind: "num";
  readonly values: Float64Array;
  /**
   * The exact int64 values as (low, high) word pairs, present only when some valid value lies
   * beyond ±(2^53 - 1) (numeric-columns.ts). Such a vector's `values` raise NumericRangeError when
   * read, so a kernel that computes with doubles can never use a rounded value; the exact
   * consumers (output, casts, to_json, ordering) read the words.
   */
  readonly words?: Int32Array;
}
export interface BoolVec extends VecBase {
  readonly kind: "bool";
  readonly values: Uint8Array;
}
export interface StrVec extends VecBase {
  readonly kind: "str";
  readonly strings: StringsView;
}
export interface WinVec extends VecBase {
  readonly kind: "win";
  readonly start: Float64Array;
  readonly end: Float64Array;
}

/** A literal's value, already coerced to its node's type (numbers: epoch ms for timestamps). */
export interface Constant {
  readonly value: number | string | boolean | null;
}

/**
 * An expression compiled against one input schema: its type, its value when it is a literal
 * (so operators can pick scalar kernels), and the function that evaluates it over a batch.
 */
export interface Compiled {
  readonly type: ColType;
  readonly constant: Constant | null;
  readonly run: (batch: Batch) => Vec;
  /**
   * For an input column taken as it is (`col`, an alias of it, a cast to its own type): the column,
   * or null when it must be computed after all (a member of a window that has nulls). Lets
   * evaluation hand the column on without reading it into a vector first.
   */
  readonly passThrough?: (batch: Batch) => arrow.Data | null;
}

/**
 * An int64 vector over exact words. When every valid value is within ±(2^53 - 1) it is a plain
 * vector of doubles; otherwise reading `values` raises NumericRangeError for the first valid
 * value beyond, naming `column`.
 */
export function int64Vec(words: Int32Array, valid: Uint8Array | null, column?: string, source?: arrow.Data): NumVec {
  const beyond = firstInexactRow(words, valid);
  if (beyond < 0) return { kind: "num", values: wordsToNumbers(words), valid, source };
  return {
    kind: "num",
    words,
    valid,
    source,
    get values(): Float64Array {
      throw int64BeyondRangeError(words, beyond, column);
    },
  };
}

/** Reads a column of Sluice type `type` (zero-copy where the Arrow layout allows); `column` names it in errors. */
export function vecOf(data: arrow.Data, type: DType, column?: string): Vec {
  const valid = readValidity(data);
  switch (type) {
    case "int64": {
      const { values, words } = readInt64(data, column);
      return words === null ? { kind: "num", values, valid, source: data } : int64Vec(words, valid, column, data);
    }
    case "float64":
    case "int32":
    case "timestamp":
      return { kind: "num", values: readNumbers(data, column), valid, source: data };
    case "boolean":
      return { kind: "bool", values: boolBytes(data), valid, source: data };
    case "string":
    case "binary":
      return { kind: "str", strings: stringsOf(data), valid, source: data };
    case "window":
      return { kind: "win", start: readNumbers(data.children[0], column), end: readNumbers(data.children[1], column), valid, source: data };
    case "headers":
      // No kernel computes with headers: the analyzer lets them through only as whole columns.
      throw new InternalError(`headers column${column === undefined ? "" : ` "${column}"`} read as a vector; it can only pass through, be tested for null or become JSON`);
    default:
      return assertNever(type, "type");
  }
}

function boolBytes(data: arrow.Data): Uint8Array {
  return unpackBits(data.values as Uint8Array, data.offset, data.length);
}

/** Builds the column of Sluice type `type` holding a vector's `n` rows. */
export function dataOf(vec: Vec, type: DType, n: number): arrow.Data {
  if (vec.source) return vec.source;
  switch (vec.kind) {
    case "num":
      if (type === "boolean" || type === "string" || type === "window" || type === "binary" || type === "headers") throw new InternalError(`numbers for a ${type} column`);
      if (vec.words !== undefined) {
        if (type !== "int64") throw new InternalError(`int64 words for a ${type} column`);
        const { nullBitmap, nullCount } = nullProps(vec.valid, n);
        return int64ColumnOfWords(vec.words, n, nullBitmap, nullCount);
      }
      return numberColumn(type, vec.values.length === n ? vec.values : vec.values.subarray(0, n), vec.valid);
    case "bool":
      return boolColumnOf(vec.values, vec.valid);
    case "str": {
      const { offsets, bytes } = materializeStrings(vec.strings, n);
      return bytesColumnOf(type === "binary" ? "binary" : "string", offsets, bytes, vec.valid);
    }
    case "win":
      return windowColumnOf(vec.start, vec.end, vec.valid);
    default:
      return assertNever(vec, "vector");
  }
}

/** A vector holding the same value on each of `n` rows (all null when the value is null). */
export function constantVec(constant: Constant, type: DType, n: number): Vec {
  const { value } = constant;
  const valid = value === null ? new Uint8Array(n) : null;
  switch (type) {
    case "int64":
      if (typeof value === "number" && Math.abs(value) > MAX_EXACT_INTEGER) {
        // Literals are clamped to the int64 range already; the words hold the integer exactly.
        const one = int64WordsFromDoubles(Float64Array.of(value));
        const words = new Int32Array(2 * n);
        for (let i = 0; i < n; i++) words.set(one, 2 * i);
        return int64Vec(words, valid);
      }
      return { kind: "num", values: new Float64Array(n).fill(typeof value === "number" ? value : 0), valid };
    case "float64":
    case "int32":
    case "timestamp":
      return { kind: "num", values: new Float64Array(n).fill(typeof value === "number" ? value : 0), valid };
    case "boolean":
      return { kind: "bool", values: new Uint8Array(n).fill(value === true ? 1 : 0), valid };
    case "string":
    case "binary": {
      // A binary constant comes from a string literal (compared with or cast to binary): its UTF-8 bytes.
      const bytes = typeof value === "string" ? encodeUtf8(value) : new Uint8Array(0);
      return { kind: "str", strings: { offsets: Int32Array.of(0, bytes.length), bytes, indices: new Int32Array(n) }, valid };
    }
    case "window":
      return { kind: "win", start: new Float64Array(n), end: new Float64Array(n), valid: new Uint8Array(n) };
    case "headers":
      throw new InternalError("a headers constant");
    default:
      return assertNever(type, "type");
  }
}

/** Narrowing helpers: the compiler checked the types, so a mismatch is an internal error. */
export function asNum(v: Vec): NumVec {
  if (v.kind !== "num") throw new Error(`internal: expected numbers, got ${v.kind}`);
  return v;
}
export function asBool(v: Vec): BoolVec {
  if (v.kind !== "bool") throw new Error(`internal: expected booleans, got ${v.kind}`);
  return v;
}
export function asStr(v: Vec): StrVec {
  if (v.kind !== "str") throw new Error(`internal: expected strings, got ${v.kind}`);
  return v;
}
export function asWin(v: Vec): WinVec {
  if (v.kind !== "win") throw new Error(`internal: expected windows, got ${v.kind}`);
  return v;
}

/** A validity vector with the rows of `valid` (or all rows) that also satisfy `keep` (fresh). */
export function restrictValidity(valid: Uint8Array | null, keep: Uint8Array): Uint8Array {
  const out = new Uint8Array(keep.length);
  if (valid === null) out.set(keep);
  else for (let i = 0; i < keep.length; i++) out[i] = valid[i] & keep[i];
  return out;
}
