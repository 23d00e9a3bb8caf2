import { Column, type SortOrder } from "../api/column.js";
import type { DataFrame } from "../api/data-frame.js";
import type { Expr } from "../expr/ast.js";
import { outputName } from "../expr/resolve.js";
import type { SelectItem, SortItem } from "./query-ast.js";
import { atClause, displayExpr, resolveExpr, type Scoped, type SqlContext, sqlError } from "./scope.js";
import { quoteName } from "./sql-errors.js";

/** Select lists and sort orders, shared by plain and aggregating SELECTs. */

/** A select item after resolution: its expression over the input and the name it outputs. */
export interface OutputItem {
  readonly expr: Expr;
  readonly name: string;
  readonly at: number;
}

/** The scope of a query's output: its columns, unqualified. */
export function outputScope(df: DataFrame<any>): Scoped {
  return { df, columns: df.schema.map((f) => ({ qualifier: null, name: f.name, column: f.name })) };
}

/** The select list with stars expanded and every expression resolved over the input. */
export function expandItems(ctx: SqlContext, items: readonly SelectItem[], input: Scoped, resolve = (e: Expr) => resolveExpr(ctx, e, input.columns)): OutputItem[] {
  return items.flatMap((item): OutputItem[] => {
    if (item.kind === "star") {
      const columns = item.qualifier === null ? input.columns : input.columns.filter((c) => c.qualifier?.toLowerCase() === item.qualifier!.toLowerCase());
      if (columns.length === 0 && item.qualifier !== null) {
        throw sqlError(ctx, item.at, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", `A column, variable, or function parameter with name ${quoteName(item.qualifier)} cannot be resolved: no relation in FROM is named so.`);
      }
      return columns.map((c) => ({ expr: { kind: "col", name: c.column }, name: c.column, at: item.at }));
    }
    const expr = resolve(item.expr);
    return [{ expr, name: item.alias ?? outputName(displayExpr(ctx, item.expr, input.columns)), at: item.at }];
  });
}

/**
 * The sort orders of one ORDER BY item. Sluice sorts nulls first ascending and last descending
 * (Spark's default); the other placement sorts by `x IS NULL` first.
 */
export function sortOrders(expr: Expr, o: SortItem): SortOrder[] {
  const key: SortOrder = { expr, ascending: o.ascending };
  if (o.nullsFirst === o.ascending) return [key];
  return [{ expr: { kind: "isNull", child: expr, negated: false }, ascending: !o.nullsFirst }, key];
}

/** `df.select(items)`, each named as SQL names it; an analysis error points at the item it is about. */
export function selectItems(ctx: SqlContext, df: DataFrame<any>, items: readonly OutputItem[]): DataFrame<any> {
  const columns = items.map((i) => new Column(outputName(i.expr) === i.name ? i.expr : { kind: "alias", child: i.expr, name: i.name }));
  try {
    return df.select(...columns);
  } catch (error) {
    // Find the item at fault: each one alone over the same input.
    items.forEach((item, n) => atClause(ctx, item.at, () => df.select(columns[n]!)));
    throw error;
  }
}
