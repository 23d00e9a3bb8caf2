import type { AggFn, Expr, ScalarFn } from "../expr/ast.js";
import { literalExpr } from "../expr/literal.js";
import { sessionWindowExpr, windowExpr } from "../expr/window-spec.js";

/**
 * The functions SQL text can call (`expr()` and `session.sql()` alike): Sluice's scalar functions,
 * its aggregates, and the functions of the DataFrame API that build other expression kinds
 * (windows, explode, struct, to_json). Names are case-insensitive, as Spark's; Spark's synonyms
 * map to the same function.
 */

const SCALAR_FNS: ReadonlySet<string> = new Set<ScalarFn>([
  "lower", "upper", "length", "concat", "substring", "to_timestamp", "date_trunc", "hour", "unix_seconds", "unix_millis", "unix_micros",
  "base64", "unbase64", "hex", "timestamp_seconds", "window_time", "split", "negate",
]);
const AGG_FNS: ReadonlySet<string> = new Set<AggFn>(["count", "sum", "avg", "min", "max", "first", "last"]);
const FN_SYNONYMS: Readonly<Record<string, string>> = {
  substr: "substring",
  lcase: "lower",
  ucase: "upper",
  char_length: "length",
  character_length: "length",
  mean: "avg",
  negative: "negate",
};

/** Why a call cannot be built: the SQL front end turns it into Spark's error, at the call. */
export type CallProblem =
  | { readonly problem: "unknownFunction" }
  | { readonly problem: "wrongArgCount"; readonly fn: string; readonly expected: string; readonly got: number }
  | { readonly problem: "notLiteral"; readonly fn: string; readonly what: string };

export function isAggregateFunction(name: string): boolean {
  return AGG_FNS.has(canonicalFunctionName(name));
}

export function canonicalFunctionName(name: string): string {
  const lower = name.toLowerCase();
  return FN_SYNONYMS[lower] ?? lower;
}

/** The expression of `name(args)`, or what is wrong with the call. `count(*)` is `args === "*"`. */
export function callExpr(name: string, args: readonly Expr[] | "*"): Expr | CallProblem {
  const fn = canonicalFunctionName(name);
  if (args === "*") return fn === "count" ? { kind: "agg", fn: "count", child: null } : { problem: "wrongArgCount", fn, expected: "1", got: 0 };
  const arity = (expected: number, max = expected): CallProblem | null =>
    args.length < expected || args.length > max ? { problem: "wrongArgCount", fn, expected: expected === max ? String(expected) : `${expected}-${max}`, got: args.length } : null;
  if (AGG_FNS.has(fn)) return arity(1) ?? { kind: "agg", fn: fn as AggFn, child: args[0]! };
  switch (fn) {
    case "explode":
      return arity(1) ?? { kind: "explode", child: args[0]! };
    case "split":
      return arity(2, 3) ?? { kind: "call", fn: "split", args: args.length === 2 ? [...args, literalExpr(-1)] : args };
    case "window": {
      const bad = arity(2, 4);
      if (bad) return bad;
      const durations = args.slice(1).map(durationOf);
      if (durations.some((d) => d === null)) return { problem: "notLiteral", fn, what: "durations as strings or intervals, e.g. window(ts, '10 minutes', '5 minutes')" };
      const [size, slide, start] = durations as (string | number)[];
      return windowExpr(args[0]!, size!, slide, start);
    }
    case "session_window": {
      const bad = arity(2);
      if (bad) return bad;
      const gap = durationOf(args[1]!);
      if (gap === null) return { problem: "notLiteral", fn, what: "a gap duration as a string or an interval, e.g. session_window(ts, '5 minutes')" };
      return sessionWindowExpr(args[0]!, gap);
    }
    case "struct":
      return { kind: "struct", fields: args };
    case "to_json":
      return arity(1) ?? { kind: "toJson", child: args[0]! };
  }
  if (!SCALAR_FNS.has(fn)) return { problem: "unknownFunction" };
  return { kind: "call", fn: fn as ScalarFn, args };
}

/** A window's duration argument: a string literal ('10 minutes') or an interval literal. */
function durationOf(e: Expr): string | number | null {
  if (e.kind === "lit" && typeof e.value === "string") return e.value;
  if (e.kind === "interval") return e.ms;
  return null;
}
