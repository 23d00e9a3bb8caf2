import { andValidity } from "../kernels/bits.js";
import { entryCount, spreadEntries } from "../kernels/columns.js";
import { compareDoubles } from "../kernels/compare.js";
import { compareUtf8, equalUtf8 } from "../kernels/utf8.js";
import { assertNever, type CmpOp } from "./ast.js";
import type { BoolVec, NumVec, StrVec, WinVec } from "./eval-vec.js";

/**
 * Comparisons. Numbers follow Spark's NaN rules (NaN equals NaN and is larger than every other
 * number) at no cost on the common paths: comparisons with a non-NaN literal get them from the
 * choice of operator, and vectors take plain comparisons unless a batch actually holds NaN.
 * Strings compare as UTF-8 bytes, which is Spark's binary order, without decoding.
 */

/** The operator that gives the same answer with the operands swapped (`1 < x` is `x > 1`). */
export function flipOp(op: CmpOp): CmpOp {
  switch (op) {
    case "<":
      return ">";
    case "<=":
      return ">=";
    case ">":
      return "<";
    case ">=":
      return "<=";
    case "=":
    case "!=":
      return op;
    default:
      return assertNever(op, "comparison");
  }
}

/** `left op right` on numbers, where `right` is a vector or a scalar. */
export function compareNumbers(op: CmpOp, left: NumVec, right: NumVec | number, n: number): BoolVec {
  const out = new Uint8Array(n);
  const a = left.values;
  if (typeof right === "number") {
    if (right === right) compareWithScalar(op, a, right, out, n);
    else compareWithNaN(op, a, out, n);
    return { kind: "bool", values: out, valid: left.valid };
  }
  const b = right.values;
  if (mayHoldNaN(a, n) || mayHoldNaN(b, n)) compareVectorsWithNaN(op, a, b, out, n);
  else compareVectors(op, a, b, out, n);
  return { kind: "bool", values: out, valid: andValidity(left.valid, right.valid) };
}

/**
 * Rows with NaN need Spark's NaN rules; whole columns without NaN (the usual case) take plain
 * comparisons. `x * 0` is NaN exactly for NaN and infinities, so one branch-free sum tells.
 */
function mayHoldNaN(values: Float64Array, n: number): boolean {
  let acc = 0;
  for (let i = 0; i < n; i++) acc += values[i] * 0;
  return acc !== 0;
}

// Comparison loops write `+(condition)` with no `||`: a short-circuit compiles to a branch, which
// mispredicts on real data and costs several times the comparison itself.

function compareVectors(op: CmpOp, a: Float64Array, b: Float64Array, out: Uint8Array, n: number): void {
  switch (op) {
    case "=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] === b[i]);
      return;
    case "!=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] !== b[i]);
      return;
    case "<":
      for (let i = 0; i < n; i++) out[i] = +(a[i] < b[i]);
      return;
    case "<=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] <= b[i]);
      return;
    case ">":
      for (let i = 0; i < n; i++) out[i] = +(a[i] > b[i]);
      return;
    case ">=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] >= b[i]);
      return;
    default:
      return assertNever(op, "comparison");
  }
}

/** Spark's rules row by row: NaN = NaN, and NaN is larger than any other number. */
function compareVectorsWithNaN(op: CmpOp, a: Float64Array, b: Float64Array, out: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) out[i] = +holds(op, compareDoubles(a[i], b[i]));
}

/**
 * Against a non-NaN scalar, Spark's NaN rules come for free from the complementary comparison:
 * NaN > s is true, and `!(NaN <= s)` is true; NaN < s is false, and so is `NaN < s`.
 */
function compareWithScalar(op: CmpOp, a: Float64Array, s: number, out: Uint8Array, n: number): void {
  switch (op) {
    case "=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] === s);
      return;
    case "!=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] !== s);
      return;
    case "<":
      for (let i = 0; i < n; i++) out[i] = +(a[i] < s);
      return;
    case "<=":
      for (let i = 0; i < n; i++) out[i] = +(a[i] <= s);
      return;
    case ">":
      for (let i = 0; i < n; i++) out[i] = +!(a[i] <= s);
      return;
    case ">=":
      for (let i = 0; i < n; i++) out[i] = +!(a[i] < s);
      return;
    default:
      return assertNever(op, "comparison");
  }
}

/** Against a NaN literal: only NaN equals it, and every other number is smaller. */
function compareWithNaN(op: CmpOp, a: Float64Array, out: Uint8Array, n: number): void {
  for (let i = 0; i < n; i++) out[i] = +holds(op, a[i] !== a[i] ? 0 : -1);
}

/** True when a three-way comparison result satisfies the operator. */
function holds(op: CmpOp, c: number): boolean {
  switch (op) {
    case "=":
      return c === 0;
    case "!=":
      return c !== 0;
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    case ">=":
      return c >= 0;
    default:
      return assertNever(op, "comparison");
  }
}

/** `left op literal` on strings; dictionary columns compare each distinct value once. */
export function compareStringWithLiteral(op: CmpOp, left: StrVec, literal: Uint8Array, n: number): BoolVec {
  const view = left.strings;
  const entries = entryCount(view, n);
  const perEntry = new Uint8Array(entries);
  const { offsets, bytes } = view;
  const len = literal.length;
  if (op === "=" || op === "!=") {
    const flip = op === "=" ? 0 : 1;
    // Length and last byte first, inline: they reject almost every row without a call or a loop.
    const last = len > 0 ? literal[len - 1] : 0;
    for (let e = 0; e < entries; e++) {
      const start = offsets[e];
      const end = offsets[e + 1];
      const equal = end - start === len && (len === 0 || bytes[end - 1] === last) && equalUtf8(bytes, start, end, literal, 0, len);
      perEntry[e] = +equal ^ flip;
    }
  } else {
    for (let e = 0; e < entries; e++) perEntry[e] = +holds(op, compareUtf8(bytes, offsets[e], offsets[e + 1], literal, 0, len));
  }
  return { kind: "bool", values: spreadEntries(perEntry, view, n), valid: left.valid };
}

/** `left op right` on two string vectors. */
export function compareStrings(op: CmpOp, left: StrVec, right: StrVec, n: number): BoolVec {
  const l = left.strings;
  const r = right.strings;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = l.indices === null ? i : l.indices[i];
    const y = r.indices === null ? i : r.indices[i];
    out[i] = +holds(op, compareUtf8(l.bytes, l.offsets[x], l.offsets[x + 1], r.bytes, r.offsets[y], r.offsets[y + 1]));
  }
  return { kind: "bool", values: out, valid: andValidity(left.valid, right.valid) };
}

/** Booleans compare as numbers (false < true). */
export function boolsAsNumbers(v: BoolVec): NumVec {
  return { kind: "num", values: Float64Array.from(v.values), valid: v.valid };
}

/** Window equality (`=` / `!=`): both bounds equal, as Spark compares window structs; null when either is null. */
export function compareWindows(op: "=" | "!=", left: WinVec, right: WinVec, n: number): BoolVec {
  const values = new Uint8Array(n);
  const equal = op === "=" ? 1 : 0;
  for (let i = 0; i < n; i++) values[i] = left.start[i] === right.start[i] && left.end[i] === right.end[i] ? equal : 1 - equal;
  return { kind: "bool", values, valid: andValidity(left.valid, right.valid) };
}
