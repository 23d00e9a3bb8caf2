import { Column } from "../api/column.js";
import type { JoinHow } from "../api/data-frame.js";
import { mapColumns } from "../expr/ast.js";
import { type JoinType, type LogicalPlan, planChildren } from "../plan/logical.js";
import type { Query, Relation } from "./query-ast.js";
import { atClause, columnExpr, lookupColumn, type ScopeColumn, type Scoped, scopeOf, type SqlContext, sqlError, unresolvedColumn } from "./scope.js";
import { quoteName } from "./sql-errors.js";

/**
 * FROM: a view, a subquery with its alias, or joins of them, as the DataFrame API builds them
 * (`df.join(other, condition, how)`), with the scope SQL names resolve in afterwards.
 */
export function translateRelation(ctx: SqlContext, r: Relation, translateQuery: (q: Query) => Scoped): Scoped {
  switch (r.kind) {
    case "table": {
      const df = ctx.view(r.name);
      if (!df) {
        throw sqlError(
          ctx,
          r.at,
          "TABLE_OR_VIEW_NOT_FOUND",
          `The table or view ${quoteName(r.name)} cannot be found. Verify the spelling and correctness of the schema and catalog. A view is made with df.createOrReplaceTempView(${JSON.stringify(r.name)}), a memory sink's table with writeStream.format("memory").queryName(${JSON.stringify(r.name)}).`,
        );
      }
      return scopeOf(df, r.alias ?? r.name);
    }
    case "subquery": {
      const inner = translateQuery(r.query);
      return { df: inner.df, columns: inner.columns.map((c) => ({ qualifier: r.alias, name: c.column, column: c.column })) };
    }
    case "join":
      return translateJoin(ctx, r, translateQuery);
  }
}

const JOIN_HOW: Readonly<Record<JoinType, JoinHow>> = {
  inner: "inner",
  left: "left",
  right: "right",
  full: "full",
  leftSemi: "left_semi",
  leftAnti: "left_anti",
};

function translateJoin(ctx: SqlContext, r: Relation & { kind: "join" }, translateQuery: (q: Query) => Scoped): Scoped {
  const [left, right] = apart(translateRelation(ctx, r.left, translateQuery), translateRelation(ctx, r.right, translateQuery));
  const both = [...left.columns, ...right.columns];
  // Each column of the condition is bound to its side, as `left.col(name)` / `right.col(name)` bind it.
  const condition = mapColumns(r.condition, (ref) => {
    const found = lookupColumn(ctx, ref, both);
    if (!found) throw unresolvedColumn(ctx, ref, both);
    const side = left.columns.includes(found.entry) ? left.df : right.df;
    return side.col(columnExpr(found).name).expr;
  });
  const df = atClause(ctx, ctx.spans.offsetOf(r.condition) ?? r.at, () => left.df.join(right.df, new Column(condition), JOIN_HOW[r.joinType]));
  if (r.joinType === "leftSemi" || r.joinType === "leftAnti") return { df, columns: left.columns };
  const leftNames = new Set(left.columns.map((c) => c.column));
  const rightColumns = right.columns.map((c): ScopeColumn => (leftNames.has(c.column) ? { ...c, column: `${c.column}_right` } : c));
  return { df, columns: [...left.columns, ...rightColumns] };
}

/**
 * The sides of a join, each with a plan node of its own: a condition column is bound to the side
 * whose plan holds it, so a self-join (`FROM t a JOIN t b`) puts a projection of every column over
 * each side to tell them apart.
 */
function apart(left: Scoped, right: Scoped): [Scoped, Scoped] {
  const seen = new Set<LogicalPlan>();
  const collect = (p: LogicalPlan) => {
    seen.add(p);
    planChildren(p).forEach(collect);
  };
  collect(left.df.plan);
  const shares = (p: LogicalPlan): boolean => seen.has(p) || planChildren(p).some(shares);
  if (!shares(right.df.plan)) return [left, right];
  const fresh = (s: Scoped): Scoped => ({ ...s, df: s.df.select(...s.df.columns) });
  return [fresh(left), fresh(right)];
}
