import type { Expr } from "../expr/ast.js";
import type { Token } from "./lexer.js";

/** Where the nodes of a parsed tree came from: offsets into the text, and a column's name parts. */
export class SourceSpans {
  private readonly offsets = new WeakMap<Expr, number>();
  private readonly names = new WeakMap<Expr, readonly string[]>();

  mark<E extends Expr>(e: E, at: Token, parts?: readonly string[]): E {
    this.offsets.set(e, at.pos);
    if (parts) this.names.set(e, parts);
    return e;
  }

  /** `count(DISTINCT x)` and the like, which Sluice cannot run: the translator refuses them as Spark would. */
  readonly distinctAggregates: { readonly agg: Expr; readonly at: number; readonly name: string }[] = [];

  markDistinct(agg: Expr, at: Token): void {
    this.distinctAggregates.push({ agg, at: at.pos, name: at.text });
  }

  isDistinct(agg: Expr): boolean {
    return this.distinctAggregates.some((d) => d.agg === agg);
  }

  offsetOf(e: Expr): number | undefined {
    return this.offsets.get(e);
  }

  /** A column reference's parts as written (`t.amount` is ["t", "amount"]). */
  partsOf(e: Expr & { kind: "col" }): readonly string[] {
    return this.names.get(e) ?? [e.name];
  }
}

/** Why `fn(DISTINCT x)` cannot run on static data: Sluice has no distinct aggregates. */
export function noDistinctAggregates(fn: string): string {
  return `Sluice has no DISTINCT aggregates (${fn}(DISTINCT ...)); deduplicate in a subquery first: SELECT k, count(x) FROM (SELECT DISTINCT k, x FROM t) GROUP BY k.`;
}
