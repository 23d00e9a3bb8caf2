import { Utf8Builder } from "../kernels/utf8.js";
import { assertNever, type LogicOp } from "./ast.js";
import type { BoolVec, Vec } from "./eval-vec.js";

/**
 * Boolean logic with SQL's three values: false AND null is false, true OR null is true, any other
 * combination with null is null. Both sides are always evaluated: expressions have no side
 * effects, and whole-column loops beat per-row short-circuits.
 */
export function logic(op: LogicOp, left: BoolVec, right: BoolVec, n: number): BoolVec {
  const a = left.values;
  const b = right.values;
  const out = new Uint8Array(n);
  if (left.valid === null && right.valid === null) {
    if (op === "and") for (let i = 0; i < n; i++) out[i] = a[i] & b[i];
    else for (let i = 0; i < n; i++) out[i] = a[i] | b[i];
    return { kind: "bool", values: out, valid: null };
  }
  const va = left.valid;
  const vb = right.valid;
  const valid = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const knownA = va === null ? 1 : va[i];
    const knownB = vb === null ? 1 : vb[i];
    const x = a[i] & knownA;
    const y = b[i] & knownB;
    switch (op) {
      case "and": {
        // A known false on either side decides the row.
        const decidedFalse = (knownA & (x ^ 1)) | (knownB & (y ^ 1));
        out[i] = x & y;
        valid[i] = (knownA & knownB) | decidedFalse;
        break;
      }
      case "or": {
        // A known true on either side decides the row.
        out[i] = x | y;
        valid[i] = (knownA & knownB) | x | y;
        break;
      }
      default:
        return assertNever(op, "logical operator");
    }
  }
  return { kind: "bool", values: out, valid };
}

export function not(v: BoolVec, n: number): BoolVec {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = v.values[i] ^ 1;
  return { kind: "bool", values: out, valid: v.valid };
}

/** `IS NULL` / `IS NOT NULL`: never null itself. */
export function isNull(v: Pick<Vec, "valid">, negated: boolean, n: number): BoolVec {
  const out = new Uint8Array(n);
  const valid = v.valid;
  if (valid === null) out.fill(negated ? 1 : 0);
  else if (negated) out.set(valid);
  else for (let i = 0; i < n; i++) out[i] = valid[i] ^ 1;
  return { kind: "bool", values: out, valid: null };
}

/**
 * CASE WHEN: for each row, the value of the first branch whose condition is true (null counts as
 * false), else `otherwise`, else null. `values` holds one value per condition, followed by the
 * `otherwise` value when there is one.
 */
export function caseWhen(conditions: readonly BoolVec[], values: readonly Vec[], n: number): Vec {
  // choice[i] = index into `values`, or -1 for null.
  const choice = new Int32Array(n).fill(conditions.length < values.length ? conditions.length : -1);
  for (let c = conditions.length - 1; c >= 0; c--) {
    const { values: when, valid } = conditions[c];
    for (let i = 0; i < n; i++) if (when[i] & (valid === null ? 1 : valid[i])) choice[i] = c;
  }
  const valid = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const k = choice[i];
    valid[i] = k < 0 ? 0 : (values[k].valid?.[i] ?? 1);
  }
  const first = values[0];
  switch (first.kind) {
    case "num":
      return { kind: "num", values: pick(choice, valid, values.map((v) => (v as typeof first).values), new Float64Array(n)), valid };
    case "bool":
      return { kind: "bool", values: pick(choice, valid, values.map((v) => (v as typeof first).values), new Uint8Array(n)), valid };
    case "win":
      return {
        kind: "win",
        start: pick(choice, valid, values.map((v) => (v as typeof first).start), new Float64Array(n)),
        end: pick(choice, valid, values.map((v) => (v as typeof first).end), new Float64Array(n)),
        valid,
      };
    case "str": {
      const builder = new Utf8Builder(n);
      for (let i = 0; i < n; i++) {
        const k = choice[i];
        if (k < 0 || valid[i] === 0) {
          builder.endRow();
          continue;
        }
        const { offsets, bytes, indices } = (values[k] as typeof first).strings;
        const e = indices === null ? i : indices[i];
        builder.appendRange(bytes, offsets[e], offsets[e + 1]);
      }
      const { offsets, bytes } = builder.finish();
      return { kind: "str", strings: { offsets, bytes, indices: null }, valid };
    }
    default:
      return assertNever(first, "vector");
  }
}

/**
 * Each row's value from the branch `choice` names. A row whose chosen value is null is not read: a
 * null literal branch (`otherwise(lit(null))`) may be a vector of another kind, with no values at all.
 */
function pick<T extends Float64Array | Uint8Array>(choice: Int32Array, valid: Uint8Array, sources: readonly ArrayLike<number>[], out: T): T {
  for (let i = 0; i < choice.length; i++) {
    const k = choice[i];
    if (k >= 0 && valid[i] === 1) out[i] = sources[k][i];
  }
  return out;
}
