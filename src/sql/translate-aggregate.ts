import { Column } from "../api/column.js";
import { children, type Expr, withChildren } from "../expr/ast.js";
import { outputName } from "../expr/resolve.js";
import { noDistinctAggregates } from "./source-spans.js";
import type { Select, SortItem } from "./query-ast.js";
import { atClause, columnExpr, displayExpr, lookupColumn, resolveExpr, type ScopeColumn, type Scoped, type SqlContext, sqlError, tryResolveExpr, unresolvedColumn } from "./scope.js";
import { type OutputItem, outputScope, selectItems, sortOrders } from "./select-items.js";

/**
 * A SELECT with GROUP BY or aggregates, as `groupBy(keys).agg(aggregates)` followed by HAVING (a
 * filter), ORDER BY and a projection of the select list over the aggregate's columns. When the
 * select list is the keys and then the aggregates, the projection is left out: the plan is then
 * the one `groupBy(...).agg(...)` builds.
 *
 * After the aggregation an expression may read the keys (by their expression, as Spark matches
 * `GROUP BY window(ts, ...)` with the same call in the select list, or by the key's name, as
 * `window.start`), aggregates of input columns, and, in HAVING and ORDER BY, select aliases.
 */
export function translateAggregateSelect(ctx: SqlContext, sel: Select, input: Scoped, orderBy: readonly SortItem[]): Scoped {
  const parsedItems = sel.items.map((item) => {
    if (item.kind === "star") throw sqlError(ctx, item.at, "MISSING_AGGREGATION", "SELECT * cannot stand with GROUP BY or aggregates: name the grouping columns and aggregates.");
    return item;
  });
  const keys = (sel.groupBy ?? []).map((k) => groupingKey(ctx, k, parsedItems, input));
  const keyNames = keys.map(outputName);
  const keyJson = keys.map((k) => JSON.stringify(k));
  const keyScope: ScopeColumn[] = keyNames.map((n) => ({ qualifier: null, name: n, column: n }));
  const aggs: { expr: Expr; name: string }[] = [];

  const aggColumn = (agg: Expr, preferredName: string | null): Expr => {
    if (ctx.spans.isDistinct(agg)) {
      // Spark refuses distinct aggregates on streams; Sluice has none at all.
      const at = ctx.spans.offsetOf(agg);
      if (input.df.isStreaming) {
        throw sqlError(ctx, at, "UNSUPPORTED_FEATURE", "Distinct aggregations are not supported on streaming DataFrames/Datasets. Consider using approx_count_distinct() instead.");
      }
      throw sqlError(ctx, at, "UNSUPPORTED_FEATURE", noDistinctAggregates(outputName(agg).replace(/\(.*$/, "")));
    }
    const resolved = resolveExpr(ctx, agg, input.columns);
    const json = JSON.stringify(resolved);
    const name = preferredName ?? outputName(resolved);
    const found = aggs.find((a) => JSON.stringify(a.expr) === json && (preferredName === null || a.name === name));
    if (found) return { kind: "col", name: found.name };
    const taken = aggs.some((a) => a.name === name) || keyNames.includes(name);
    const entry = { expr: resolved, name: taken ? `${name}#${aggs.length}` : name };
    aggs.push(entry);
    return { kind: "col", name: entry.name };
  };

  /** `e` over the aggregate's output; `aliases` are select items HAVING and ORDER BY may name. */
  const rewrite = (e: Expr, aliases: readonly OutputItem[]): Expr => {
    if (e.kind === "agg") return aggColumn(e, null);
    const overInput = tryResolveExpr(ctx, e, input.columns);
    if (overInput) {
      const k = keyJson.indexOf(JSON.stringify(overInput));
      if (k >= 0) return { kind: "col", name: keyNames[k]! };
    }
    if (e.kind === "col") {
      const asKey = lookupColumn(ctx, e, keyScope);
      if (asKey) return columnExpr(asKey);
      const parts = ctx.spans.partsOf(e);
      const alias = aliases.filter((a) => parts.length === 1 && a.name.toLowerCase() === parts[0]!.toLowerCase());
      if (alias.length === 1) return alias[0]!.expr;
      if (overInput) {
        throw sqlError(
          ctx,
          ctx.spans.offsetOf(e),
          "MISSING_AGGREGATION",
          `The non-aggregating expression "${parts.join(".")}" is based on columns which are not participating in the GROUP BY clause. Add the columns or the expression to the GROUP BY, aggregate the expression, or use first() if you do not care which of the values within a group is returned.`,
        );
      }
      throw unresolvedColumn(ctx, e, input.columns);
    }
    const kids = children(e);
    return kids.length ? withChildren(e, kids.map((c) => rewrite(c, aliases))) : e;
  };

  // Select items that are exactly an aggregate name their aggregate column, as agg(...).alias does.
  const items: OutputItem[] = parsedItems.map((item) => {
    const expr = item.expr.kind === "agg" ? aggColumn(item.expr, item.alias) : rewrite(item.expr, []);
    const display = displayExpr(ctx, displayExpr(ctx, item.expr, input.columns), keyScope);
    return { expr, name: item.alias ?? (item.expr.kind === "agg" ? (expr as Expr & { kind: "col" }).name : outputName(display)), at: item.at };
  });
  const having = sel.having ? rewrite(sel.having, items) : null;
  const sortKeys = orderBy.map((o) => {
    if (o.expr.kind === "lit" && o.expr.type === "int32") {
      const item = items[(o.expr.value as number) - 1];
      if (!item) throw sqlError(ctx, o.at, "UNSUPPORTED_FEATURE", `ORDER BY position ${String(o.expr.value)} is not in select list (valid range is [1, ${items.length}]).`);
      return sortOrders(item.expr, o);
    }
    return sortOrders(rewrite(o.expr, items), o);
  });

  const aggColumns = aggs.map((a) => new Column(a.name === outputName(a.expr) ? a.expr : { kind: "alias", child: a.expr, name: a.name }));
  let df = atClause(ctx, sel.groupBy?.[0]?.at ?? sel.at, () => input.df.groupBy(...keys.map((k) => new Column(k))).agg(...aggColumns));
  if (having) {
    const grouped = df;
    df = atClause(ctx, ctx.spans.offsetOf(sel.having!), () => grouped.filter(new Column(having)));
  }
  if (sortKeys.length) {
    const filtered = df;
    df = atClause(ctx, orderBy[0]!.at, () => filtered.orderBy(...sortKeys.flat()));
  }
  const aggregateNames = [...keyNames, ...aggs.map((a) => a.name)];
  const identity = items.length === aggregateNames.length && items.every((i, n) => i.expr.kind === "col" && i.expr.name === aggregateNames[n] && i.name === aggregateNames[n]);
  if (!identity) df = selectItems(ctx, df, items);
  if (sel.distinct) df = df.dropDuplicates();
  return outputScope(df);
}

/** A GROUP BY item: an ordinal or a select alias stands for that select item (Spark's groupByOrdinal and groupByAliases). */
function groupingKey(ctx: SqlContext, key: NonNullable<Select["groupBy"]>[number], items: readonly (Select["items"][number] & { kind: "expr" })[], input: Scoped): Expr {
  const e = key.expr;
  if (e.kind === "lit" && e.type === "int32") {
    const item = items[(e.value as number) - 1];
    if (!item) throw sqlError(ctx, key.at, "UNSUPPORTED_FEATURE", `GROUP BY position ${String(e.value)} is not in select list (valid range is [1, ${items.length}]).`);
    return resolveExpr(ctx, item.expr, input.columns);
  }
  const overInput = tryResolveExpr(ctx, e, input.columns);
  if (overInput) return overInput;
  if (e.kind === "col") {
    const parts = ctx.spans.partsOf(e);
    const aliased = items.filter((i) => parts.length === 1 && i.alias?.toLowerCase() === parts[0]!.toLowerCase());
    if (aliased.length === 1) return resolveExpr(ctx, aliased[0]!.expr, input.columns);
  }
  return resolveExpr(ctx, e, input.columns);
}
