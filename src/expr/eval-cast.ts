import { int64Text, int64WordsFromDoubles, MAX_EXACT_INTEGER, requireExactIntegers, wordsToNumbers } from "../batch/numeric-columns.js";
import { AnalysisError, InternalError } from "../errors/errors.js";
import { entryCount, entryText, spreadEntries } from "../kernels/columns.js";
import { formatDouble, formatIntegral, parseBoolean, parseDouble, parseInt64Into, parseIntegral } from "../kernels/number-text.js";
import { formatTimestamp, parseTimestamp } from "../kernels/temporal.js";
import { Utf8Builder } from "../kernels/utf8.js";
import type { DType } from "../types/dtype.js";
import { assertNever } from "./ast.js";
import { bytesAsText, textAsBytes } from "./eval-binary.js";
import { asNum, asStr, int64Vec, type NumVec, restrictValidity, type StrVec, type Vec } from "./eval-vec.js";

/**
 * CAST with Spark's non-ANSI rules: failures give null, never an error.
 *
 * - string -> number: whitespace trimmed; integers drop a fractional part ("1.9" -> 1) and are
 *   null when out of range; doubles accept NaN / Infinity / inf.
 * - double -> integer: truncates toward zero, saturates at the type's bounds, NaN -> 0 (Java's
 *   conversion); int64 -> int32 wraps to 32 bits.
 * - timestamp <-> number: seconds since the epoch (fractional for float64).
 * - boolean <-> number: true = 1; a number is true when non-zero.
 * - string -> boolean: t/true/y/yes/1 and f/false/n/no/0 in any case.
 * - string <-> timestamp: ISO-8601 in, `yyyy-MM-dd HH:mm:ss[.fraction]` (UTC) out.
 * - boolean -> timestamp: epoch 0 for both values (Spark's one microsecond for true truncates to
 *   Sluice's millisecond precision).
 * - int64 beyond ±(2^53 - 1) (batch/numeric-columns.ts): exact to and from string, to int32 and
 *   to boolean; to float64 the nearest double. A double cast to int64 keeps its integer exactly.
 * - binary <-> string only: bytes decode as UTF-8 (malformed sequences become U+FFFD, as Java's
 *   decoder replaces them), text encodes as its UTF-8 bytes.
 */
export function castVec(v: Vec, from: DType, to: DType, n: number): Vec {
  if (from === to) return v;
  if (from === "window" || to === "window") throw new AnalysisError(`cannot cast ${from} to ${to}`);
  if (from === "binary" || to === "binary") return castBinary(asStr(v), from, to, n);
  if (v.kind === "num" && v.words !== undefined && to !== "timestamp") return castInt64Words(v.words, v.valid, to, n);
  if (to === "string") return toStrings(v, from, n);
  if (from === "string") return fromStrings(asStr(v), to, n);
  const x = v.kind === "bool" ? Float64Array.from(v.values) : asNum(v).values;
  const out = new Float64Array(n);
  switch (to) {
    case "boolean": {
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = +(x[i] !== 0);
      return { kind: "bool", values: bytes, valid: v.valid };
    }
    case "float64":
      for (let i = 0; i < n; i++) out[i] = from === "timestamp" ? x[i] / 1000 : x[i];
      return num(out, v.valid);
    case "int32":
    case "int64": {
      const seconds = from === "timestamp";
      const saturate = from === "float64";
      const [min, max] = to === "int32" ? [-(2 ** 31), 2 ** 31 - 1] : [-(2 ** 63), 2 ** 63];
      for (let i = 0; i < n; i++) {
        const t = seconds ? Math.floor(x[i] / 1000) : x[i];
        // Java: double -> int saturates (NaN -> 0); long -> int keeps the low 32 bits.
        out[i] = saturate ? (t !== t ? 0 : Math.min(max, Math.max(min, Math.trunc(t)))) : to === "int32" ? t | 0 : t;
      }
      // A double beyond ±(2^53 - 1) is an integer already: its words keep it exact.
      if (saturate && to === "int64" && beyondExact(out, v.valid)) return int64Vec(int64WordsFromDoubles(out), v.valid);
      return num(out, v.valid);
    }
    case "timestamp": {
      if (from === "boolean") return num(out, v.valid);
      const finite = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        out[i] = Math.floor(x[i] * 1000);
        finite[i] = +Number.isFinite(x[i]);
      }
      return num(out, from === "float64" ? restrictValidity(v.valid, finite) : v.valid);
    }
    default:
      throw new Error(`internal: cast from ${from} to ${to}`);
  }
}

function castBinary(v: StrVec, from: DType, to: DType, n: number): StrVec {
  if (from === "binary" && to === "string") return bytesAsText(v, n);
  if (from === "string" && to === "binary") return textAsBytes(v);
  throw new AnalysisError(`cannot cast ${from} to ${to}: binary casts to and from string only`);
}

function num(values: Float64Array, valid: Uint8Array | null): NumVec {
  return { kind: "num", values, valid };
}

function beyondExact(values: Float64Array, valid: Uint8Array | null): boolean {
  for (let i = 0; i < values.length; i++) if (Math.abs(values[i]) > MAX_EXACT_INTEGER && (valid === null || valid[i] === 1)) return true;
  return false;
}

/** Casts of int64 values held as exact words (some beyond ±(2^53 - 1)); not to timestamp. */
function castInt64Words(words: Int32Array, valid: Uint8Array | null, to: DType, n: number): Vec {
  switch (to) {
    case "string": {
      const builder = new Utf8Builder(n);
      for (let i = 0; i < n; i++) {
        if (valid === null || valid[i]) builder.appendString(int64Text(words[2 * i], words[2 * i + 1]));
        else builder.endRow();
      }
      const { offsets, bytes } = builder.finish();
      return { kind: "str", strings: { offsets, bytes, indices: null }, valid };
    }
    case "float64":
      return num(wordsToNumbers(words), valid);
    case "int32": {
      // Java's long -> int keeps the low 32 bits.
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = words[2 * i];
      return num(out, valid);
    }
    case "boolean": {
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = +((words[2 * i] | words[2 * i + 1]) !== 0);
      return { kind: "bool", values: bytes, valid };
    }
    default:
      throw new InternalError(`cast of int64 words to ${to}`);
  }
}

/** The text form of a non-string value, as Spark's cast to string prints it. */
function textOf(from: DType): (x: number) => string {
  switch (from) {
    case "int32":
    case "int64":
      return formatIntegral;
    case "float64":
      return formatDouble;
    case "boolean":
      return (x) => (x ? "true" : "false");
    case "timestamp":
      return formatTimestamp;
    case "string":
    case "window":
    case "binary":
    case "headers":
      throw new InternalError(`no text form for ${from}`);
    default:
      return assertNever(from, "type");
  }
}

function toStrings(v: Vec, from: DType, n: number): StrVec {
  const x = v.kind === "bool" ? v.values : asNum(v).values;
  // A computed int64 beyond ±(2^53 - 1) may be rounded: no digits are printed for it.
  if (from === "int64") requireExactIntegers(x as Float64Array, v.valid);
  const format = textOf(from);
  const builder = new Utf8Builder(n);
  const valid = v.valid;
  for (let i = 0; i < n; i++) {
    if (valid === null || valid[i]) builder.appendString(format(x[i]));
    else builder.endRow();
  }
  const { offsets, bytes } = builder.finish();
  return { kind: "str", strings: { offsets, bytes, indices: null }, valid };
}

type Parser = (text: string) => number | boolean | null;

function parserFor(to: DType): Parser {
  switch (to) {
    case "float64":
      return parseDouble;
    case "int32":
      return (s) => parseIntegral(s, -(2 ** 31), 2 ** 31 - 1);
    case "int64":
      throw new InternalError("int64 is parsed into words (int64FromStrings)");
    case "boolean":
      return parseBoolean;
    case "timestamp":
      return parseTimestamp;
    case "string":
    case "window":
    case "binary":
    case "headers":
      throw new InternalError(`no parser for ${to}`);
    default:
      return assertNever(to, "type");
  }
}

/** Parses each distinct entry once (dictionary columns parse their dictionary only). */
function fromStrings(s: StrVec, to: DType, n: number): Vec {
  if (to === "int64") return int64FromStrings(s, n);
  const parse = parserFor(to);
  const view = s.strings;
  const entries = entryCount(view, n);
  const values = new Float64Array(entries);
  const parsed = new Uint8Array(entries);
  for (let e = 0; e < entries; e++) {
    const r = parse(entryText(view, e));
    parsed[e] = +(r !== null);
    values[e] = r === null ? 0 : +r;
  }
  const valid = restrictValidity(s.valid, spreadEntries(parsed, view, n));
  const rowValues = spreadEntries(values, view, n);
  if (to === "boolean") return { kind: "bool", values: Uint8Array.from(rowValues), valid };
  return num(rowValues, valid);
}

/** string -> int64, exactly over the whole int64 range (as Spark's `UTF8String.toLong`). */
function int64FromStrings(s: StrVec, n: number): NumVec {
  const view = s.strings;
  const entries = entryCount(view, n);
  const entryWords = new Int32Array(2 * entries);
  const parsed = new Uint8Array(entries);
  for (let e = 0; e < entries; e++) parsed[e] = +parseInt64Into(entryText(view, e), entryWords, e);
  const valid = restrictValidity(s.valid, spreadEntries(parsed, view, n));
  const indices = view.indices;
  if (indices === null) return int64Vec(entryWords.subarray(0, 2 * n), valid);
  const words = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    words[2 * i] = entryWords[2 * indices[i]];
    words[2 * i + 1] = entryWords[2 * indices[i] + 1];
  }
  return int64Vec(words, valid);
}
