import type { Expr } from "../expr/ast.js";
import type { JoinType } from "../plan/logical.js";

/**
 * The SQL query tree the parser gives and the translator reads. Expressions inside are Sluice's
 * own expression tree (expr/ast.ts); `at` fields are offsets into the text, for errors.
 */

export type SelectItem =
  /** `*` or `t.*`. */
  | { readonly kind: "star"; readonly qualifier: string | null; readonly at: number }
  | { readonly kind: "expr"; readonly expr: Expr; readonly alias: string | null; readonly at: number };

export type Relation =
  | { readonly kind: "table"; readonly name: string; readonly alias: string | null; readonly at: number }
  | { readonly kind: "subquery"; readonly query: Query; readonly alias: string | null; readonly at: number }
  | {
      readonly kind: "join";
      readonly left: Relation;
      readonly right: Relation;
      readonly joinType: JoinType;
      readonly condition: Expr;
      readonly at: number;
    };

export interface SortItem {
  readonly expr: Expr;
  readonly ascending: boolean;
  /** Spark's default: NULLS FIRST when ascending, NULLS LAST when descending. */
  readonly nullsFirst: boolean;
  readonly at: number;
}

export interface Select {
  readonly kind: "select";
  readonly distinct: boolean;
  readonly items: readonly SelectItem[];
  readonly from: Relation | null;
  readonly where: Expr | null;
  readonly groupBy: readonly { readonly expr: Expr; readonly at: number }[] | null;
  readonly having: Expr | null;
  readonly at: number;
}

export type QueryBody =
  | Select
  | { readonly kind: "setOp"; readonly op: "union"; readonly all: boolean; readonly left: QueryBody; readonly right: QueryBody; readonly at: number }
  | { readonly kind: "nested"; readonly query: Query };

/** A common table expression: `WITH name AS (query)`. */
export interface CommonTable {
  readonly name: string;
  readonly query: Query;
  readonly at: number;
}

/** A query: `WITH` tables, a SELECT or a UNION of them, then ORDER BY and LIMIT over the whole. */
export interface Query {
  readonly kind: "query";
  readonly with: readonly CommonTable[];
  readonly body: QueryBody;
  readonly orderBy: readonly SortItem[];
  readonly limit: { readonly n: number; readonly at: number } | null;
}
