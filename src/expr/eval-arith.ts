import { andValidity } from "../kernels/bits.js";
import type { DType } from "../types/dtype.js";
import { assertNever, type ArithOp } from "./ast.js";
import type { NumVec } from "./eval-vec.js";

/**
 * Arithmetic with Spark's non-ANSI semantics. int32 results wrap around at 32 bits (as Java ints
 * do); int64 results are computed in float64, exact within ±(2^53 - 1), and one beyond raises
 * NumericRangeError when it is written (batch/numeric-columns.ts);
 * `/` always yields float64; `/` and `%` by zero yield null instead of failing.
 */
export function arithmetic(op: ArithOp, left: NumVec, right: NumVec, resultType: DType, n: number): NumVec {
  const a = left.values;
  const b = right.values;
  const out = new Float64Array(n);
  const wrap = resultType === "int32";
  const valid = andValidity(left.valid, right.valid);
  // One loop per operator (and per wrap mode) keeps each loop monomorphic and branch-free.
  switch (op) {
    case "+":
      if (wrap) for (let i = 0; i < n; i++) out[i] = (a[i] + b[i]) | 0;
      else for (let i = 0; i < n; i++) out[i] = a[i] + b[i];
      return { kind: "num", values: out, valid };
    case "-":
      if (wrap) for (let i = 0; i < n; i++) out[i] = (a[i] - b[i]) | 0;
      else for (let i = 0; i < n; i++) out[i] = a[i] - b[i];
      return { kind: "num", values: out, valid };
    case "*":
      if (wrap) for (let i = 0; i < n; i++) out[i] = Math.imul(a[i], b[i]);
      else for (let i = 0; i < n; i++) out[i] = a[i] * b[i];
      return { kind: "num", values: out, valid };
    case "/":
      for (let i = 0; i < n; i++) out[i] = a[i] / b[i];
      return { kind: "num", values: out, valid: nullWhereZero(valid, b, n) };
    case "%":
      if (wrap) for (let i = 0; i < n; i++) out[i] = (a[i] % b[i]) | 0;
      else for (let i = 0; i < n; i++) out[i] = a[i] % b[i];
      return { kind: "num", values: out, valid: nullWhereZero(valid, b, n) };
    default:
      return assertNever(op, "arithmetic operator");
  }
}

/** Marks rows whose divisor is zero as null (fresh array; inputs are never written). */
function nullWhereZero(valid: Uint8Array | null, divisor: Float64Array, n: number): Uint8Array | null {
  let zeros = 0;
  for (let i = 0; i < n; i++) zeros += divisor[i] === 0 ? 1 : 0;
  if (zeros === 0) return valid;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (valid === null ? 1 : valid[i]) & (divisor[i] === 0 ? 0 : 1);
  return out;
}

/** Arithmetic negation; int32 wraps (the negation of -2^31 is itself, as in Java). */
export function negate(v: NumVec, type: DType, n: number): NumVec {
  const a = v.values;
  const out = new Float64Array(n);
  if (type === "int32") for (let i = 0; i < n; i++) out[i] = -a[i] | 0;
  else for (let i = 0; i < n; i++) out[i] = -a[i];
  return { kind: "num", values: out, valid: v.valid };
}
