import { Column } from "../api/column.js";
import type { DataFrame } from "../api/data-frame.js";
import { containsKind, type Expr } from "../expr/ast.js";
import { translateAggregateSelect } from "./translate-aggregate.js";
import type { ParsedQuery } from "./query-parser.js";
import type { Query, QueryBody, Select, SortItem } from "./query-ast.js";
import { translateRelation } from "./translate-relation.js";
import { atClause, resolveExpr, type ScopeColumn, type Scoped, type SqlContext, sqlError, tryResolveExpr } from "./scope.js";
import { expandItems, type OutputItem, outputScope, selectItems, sortOrders } from "./select-items.js";

/**
 * A parsed query as a DataFrame, built with the DataFrame API's own methods (`filter`, `select`,
 * `groupBy(...).agg`, `join`, `union`, `orderBy`, `limit`, `dropDuplicates`), so SQL and the API
 * give the same plans, the same names and the same streaming rules.
 */
export function translateQuery(ctx: SqlContext, parsed: ParsedQuery): DataFrame<any> {
  return new Translator(ctx).query(parsed.query).df;
}

class Translator {
  private readonly ctx: SqlContext;
  /** The WITH tables in scope, innermost last: they hide views of the same name. */
  private readonly commonTables: Map<string, DataFrame<any>>[] = [];

  constructor(base: SqlContext) {
    this.ctx = { ...base, view: (name) => this.commonTable(name) ?? base.view(name) };
  }

  private commonTable(name: string): DataFrame<any> | undefined {
    for (let i = this.commonTables.length - 1; i >= 0; i--) {
      const found = this.commonTables[i]!.get(name.toLowerCase());
      if (found) return found;
    }
    return undefined;
  }

  query(q: Query): Scoped {
    if (q.with.length === 0) return this.queryBody(q);
    const tables = new Map<string, DataFrame<any>>();
    this.commonTables.push(tables);
    try {
      // Each table sees the ones before it, as Spark's WITH does.
      for (const t of q.with) tables.set(t.name.toLowerCase(), this.query(t.query).df);
      return this.queryBody(q);
    } finally {
      this.commonTables.pop();
    }
  }

  private queryBody(q: Query): Scoped {
    if (q.body.kind === "select") return this.select(q.body, q.orderBy, q.limit);
    let out = this.body(q.body);
    if (q.orderBy.length) {
      const orders = q.orderBy.flatMap((o) => sortOrders(resolveExpr(this.ctx, this.ordinal(o, out.columns), out.columns), o));
      out = { ...out, df: atClause(this.ctx, q.orderBy[0]!.at, () => out.df.orderBy(...orders)) };
    }
    return q.limit ? { ...out, df: out.df.limit(q.limit.n) } : out;
  }

  private body(b: QueryBody): Scoped {
    switch (b.kind) {
      case "select":
        return this.select(b, [], null);
      case "nested":
        return this.query(b.query);
      case "setOp": {
        const left = this.body(b.left);
        const right = this.body(b.right);
        if (left.columns.length !== right.columns.length) {
          throw sqlError(
            this.ctx,
            b.at,
            "NUM_COLUMNS_MISMATCH",
            `UNION can only be performed on inputs with the same number of columns, but the first input has ${left.columns.length} columns and the second input has ${right.columns.length} columns.`,
          );
        }
        const union = atClause(this.ctx, b.at, () => left.df.union(right.df));
        return outputScope(b.all ? union : union.dropDuplicates());
      }
    }
  }

  /** An ORDER BY ordinal (`ORDER BY 2`) as the output column it names. */
  private ordinal(o: SortItem, columns: readonly ScopeColumn[]): Expr {
    if (o.expr.kind !== "lit" || o.expr.type !== "int32") return o.expr;
    const c = columns[(o.expr.value as number) - 1];
    if (!c) throw sqlError(this.ctx, o.at, "UNSUPPORTED_FEATURE", `ORDER BY position ${String(o.expr.value)} is not in select list (valid range is [1, ${columns.length}]).`);
    return { kind: "col", name: c.column };
  }

  private select(sel: Select, orderBy: readonly SortItem[], limit: Query["limit"]): Scoped {
    let input: Scoped = sel.from ? translateRelation(this.ctx, sel.from, (q) => this.query(q)) : { df: this.ctx.oneRow(), columns: [] };
    if (sel.where) {
      const condition = new Column(resolveExpr(this.ctx, sel.where, input.columns));
      input = { ...input, df: atClause(this.ctx, this.ctx.spans.offsetOf(sel.where), () => input.df.filter(condition)) };
    }
    const aggregated = sel.groupBy !== null || sel.having !== null || sel.items.some((i) => i.kind === "expr" && containsKind(i.expr, "agg"));
    let out = aggregated ? translateAggregateSelect(this.ctx, sel, input, orderBy) : this.project(sel, input, orderBy);
    if (limit) out = { ...out, df: out.df.limit(limit.n) };
    return out;
  }

  /** A SELECT without aggregates: ORDER BY over the output's names where it can, else over the input before the projection. */
  private project(sel: Select, input: Scoped, orderBy: readonly SortItem[]): Scoped {
    const items = expandItems(this.ctx, sel.items, input);
    const identity = sel.items.length === 1 && sel.items[0]!.kind === "star" && sel.items[0]!.qualifier === null;
    const outputColumns: ScopeColumn[] = items.map((i) => ({ qualifier: null, name: i.name, column: i.name }));
    const afterKeys = orderBy.map((o) => tryResolveExpr(this.ctx, this.ordinal(o, outputColumns), outputColumns));
    const sortAfter = orderBy.length > 0 && (sel.distinct || afterKeys.every((k) => k !== null));
    let df = input.df;
    if (orderBy.length > 0 && !sortAfter) {
      const orders = orderBy.flatMap((o) => sortOrders(this.inputSortKey(o, items, input), o));
      df = atClause(this.ctx, orderBy[0]!.at, () => df.orderBy(...orders));
    }
    if (!identity) df = selectItems(this.ctx, df, items);
    if (sel.distinct) df = df.dropDuplicates();
    if (sortAfter) {
      const orders = orderBy.flatMap((o, k) => sortOrders(afterKeys[k] ?? resolveExpr(this.ctx, o.expr, outputColumns), o));
      const projected = df;
      df = atClause(this.ctx, orderBy[0]!.at, () => projected.orderBy(...orders));
    }
    return outputScope(df);
  }

  /** A sort key over the input: a select alias or ordinal stands for its expression. */
  private inputSortKey(o: SortItem, items: readonly OutputItem[], input: Scoped): Expr {
    if (o.expr.kind === "lit" && o.expr.type === "int32") return items[(o.expr.value as number) - 1]?.expr ?? this.ordinal(o, []);
    if (o.expr.kind === "col") {
      const parts = this.ctx.spans.partsOf(o.expr);
      const named = items.filter((i) => parts.length === 1 && i.name.toLowerCase() === parts[0]!.toLowerCase());
      if (named.length === 1) return named[0]!.expr;
    }
    return resolveExpr(this.ctx, o.expr, input.columns);
  }
}

