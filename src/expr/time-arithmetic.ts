import { AnalysisError } from "../errors/errors.js";
import type { ColType } from "../types/dtype.js";
import type { Expr, ExprOf } from "./ast.js";
import type { NumVec } from "./eval-vec.js";

/**
 * `timestamp + interval`, `interval + timestamp` and `timestamp - interval`, as Spark's
 * `TimeAdd` / `TimestampAddInterval`: a time shifted by a fixed number of milliseconds. Any other
 * arithmetic with an interval is refused, naming what is allowed.
 */

/** The shift of an arithmetic node with an interval operand, or null when it has none. */
export function intervalShift(e: ExprOf<"arith">): { time: Expr; ms: number } | null {
  const { left, right } = e;
  if (left.kind !== "interval" && right.kind !== "interval") return null;
  const shape = `${left.kind === "interval" ? "interval" : "x"} ${e.op} ${right.kind === "interval" ? "interval" : "x"}`;
  if (left.kind === "interval" && right.kind === "interval") throw new AnalysisError(`${shape}: Sluice adds an interval to a timestamp only, not to another interval`);
  if (right.kind === "interval" && (e.op === "+" || e.op === "-")) return { time: left, ms: e.op === "+" ? right.ms : -right.ms };
  if (left.kind === "interval" && e.op === "+") return { time: right, ms: left.ms };
  throw new AnalysisError(`"${e.op}" with an interval: only timestamp + interval, interval + timestamp and timestamp - interval are defined`);
}

/** The type of a shifted time: a timestamp, null where the time is. */
export function shiftedTimeType(time: ColType): ColType {
  if (time.type !== "timestamp") throw new AnalysisError(`an interval can only be added to or subtracted from a timestamp, but got ${time.type}`);
  return { type: "timestamp", nullable: time.nullable };
}

/** Each time plus `ms` (negative to subtract), nulls kept. */
export function shiftTimes(time: NumVec, ms: number, n: number): NumVec {
  const out = new Float64Array(n);
  const t = time.values;
  for (let i = 0; i < n; i++) out[i] = t[i] + ms;
  return { kind: "num", values: out, valid: time.valid };
}
