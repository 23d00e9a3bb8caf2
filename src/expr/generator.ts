import { AnalysisError } from "../errors/errors.js";
import type { Field, Fields } from "../types/dtype.js";
import { type Expr, type ExprOf, unalias } from "./ast.js";
import { outputField } from "./resolve.js";

/**
 * `explode(split(str, pattern, limit))`, Spark's Generate of one array per row. Sluice has no array
 * column type, so the array `split` gives exists only inside `explode`, and `explode` only at the
 * top level of `select` (a plan node of its own, plan/logical.ts "generate"), where it turns each
 * row into one row per piece.
 */

const EXAMPLE = `select(explode(split(col("line"), " ")).alias("word"))`;

export function explodeOutsideSelect(): AnalysisError {
  return new AnalysisError(`explode() changes the number of rows, so it can only be a top-level column of select(), e.g. ${EXAMPLE}`);
}

export function splitOutsideExplode(): AnalysisError {
  return new AnalysisError(`split() gives an array, which Sluice has no column type for: use it inside explode() at the top level of select(), e.g. ${EXAMPLE}`);
}

/** What a generator splits: the string column, its pattern and its limit (constants, as in Spark's usual calls). */
export interface SplitArgs {
  readonly str: Expr;
  readonly pattern: string;
  readonly limit: number;
}

/** The split under `explode`, checked: a split(...) of a string with a literal pattern and limit. */
export function splitArgs(e: ExprOf<"explode">): SplitArgs {
  const child = unalias(e.child);
  if (child.kind !== "call" || child.fn !== "split") {
    throw new AnalysisError(`explode() takes split(...), the one array Sluice has, e.g. ${EXAMPLE}`);
  }
  const [str, pattern, limit] = child.args;
  if (str === undefined || pattern?.kind !== "lit" || typeof pattern.value !== "string") {
    throw new AnalysisError(`split() needs a string column and its pattern as a string literal, e.g. split(col("line"), " ")`);
  }
  const n = limit === undefined ? -1 : limit.kind === "lit" && typeof limit.value === "number" && Number.isInteger(limit.value) ? limit.value : null;
  if (n === null) throw new AnalysisError("split()'s limit must be an integer literal");
  return { str, pattern: pattern.value, limit: n };
}

/** The top-level `explode` of a select list, or -1; more than one is refused, as Spark allows one generator per select. */
export function generatorIndex(exprs: readonly Expr[]): number {
  const found = exprs.flatMap((e, i) => (unalias(e).kind === "explode" ? [i] : []));
  if (found.length > 1) throw new AnalysisError(`Only one generator allowed per select clause but found ${found.length}: explode(...) may appear once in a select()`);
  return found[0] ?? -1;
}

/** The field an explode of split gives over `fields`: text pieces, never null (a null string gives no rows). */
export function generatedField(e: Expr, fields: Fields): Field {
  const { str } = splitArgs(unalias(e) as ExprOf<"explode">);
  const t = outputField(str, fields);
  if (t.type !== "string") {
    const fix = t.type === "binary" ? `; decode it first with col("${t.name}").cast("string")` : "";
    throw new AnalysisError(`split() needs a string, but ${t.name} is ${t.type}${fix}`);
  }
  return { name: e.kind === "alias" ? e.name : "col", type: "string", nullable: false };
}
