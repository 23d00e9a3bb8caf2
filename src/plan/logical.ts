import type { Expr, ProcessorRef } from "../expr/ast.js";
import type { TimeMode } from "../operators/stateful-processor.js";
import type { SourceDesc } from "../sources/source-desc.js";
import type { Fields } from "../types/dtype.js";

/**
 * Logical plan nodes: plain nouns with a literal `kind`, built by the DataFrame API and never
 * mutated. A node holds data only, so a plan can be printed, compared, sent to a worker and
 * recorded in a checkpoint.
 */

export interface SortKey {
  readonly expr: Expr;
  readonly ascending: boolean;
}

/**
 * Spark's join types Sluice runs: `left` and `right` are the outer joins, `leftSemi` keeps the left
 * rows that match, `leftAnti` those that do not.
 */
export type JoinType = "inner" | "left" | "right" | "full" | "leftSemi" | "leftAnti";

/** A join type as Spark names it in plans and messages (its JoinType objects' names). */
export function joinTypeName(t: JoinType): string {
  switch (t) {
    case "inner":
      return "Inner";
    case "left":
      return "LeftOuter";
    case "right":
      return "RightOuter";
    case "full":
      return "FullOuter";
    case "leftSemi":
      return "LeftSemi";
    case "leftAnti":
      return "LeftAnti";
  }
}

export type LogicalPlan =
  | { readonly kind: "source"; readonly streaming: boolean; readonly source: SourceDesc; readonly fields: Fields }
  /** Each expression yields one output column named by `outputName`. */
  | { readonly kind: "project"; readonly input: LogicalPlan; readonly exprs: readonly Expr[] }
  | { readonly kind: "filter"; readonly input: LogicalPlan; readonly condition: Expr }
  /**
   * A select with one top-level `explode(split(...))`, as Spark's Generate under a Project: each
   * input row gives one output row per piece, the other expressions repeated on each.
   */
  | { readonly kind: "generate"; readonly input: LogicalPlan; readonly exprs: readonly Expr[] }
  | { readonly kind: "union"; readonly inputs: readonly LogicalPlan[] }
  | { readonly kind: "watermark"; readonly input: LogicalPlan; readonly column: string; readonly delayMs: number }
  | {
      readonly kind: "aggregate";
      readonly input: LogicalPlan;
      readonly keys: readonly Expr[];
      readonly aggs: readonly Expr[];
    }
  | {
      readonly kind: "deduplicate";
      readonly input: LogicalPlan;
      /** Columns that identify a duplicate; all columns when `dropDuplicates()` got none. */
      readonly columns: readonly string[];
      readonly withinWatermark: boolean;
    }
  | { readonly kind: "sort"; readonly input: LogicalPlan; readonly orders: readonly SortKey[] }
  | { readonly kind: "limit"; readonly input: LogicalPlan; readonly n: number }
  /**
   * A join: on columns of the same name (`on`, Spark's `join(right, usingColumns, how)`: each key
   * appears once in the output) or on a condition over both sides' columns (`condition`, with `on`
   * empty; the output has every column of both sides, names unique).
   */
  | {
      readonly kind: "join";
      readonly left: LogicalPlan;
      readonly right: LogicalPlan;
      readonly on: readonly string[];
      readonly condition: Expr | null;
      readonly joinType: JoinType;
    }
  /**
   * `groupByKey(keys).transformWithState(processor, timeMode, outputMode, { initialState })`: the
   * processor's rows, of the declared `fields`. The initial state is a static plan read once, in
   * the first batch, keyed by `initialState.keys`; it is not a child (nothing of the query runs over it).
   */
  | {
      readonly kind: "transformWithState";
      readonly input: LogicalPlan;
      readonly keys: readonly string[];
      readonly processor: ProcessorRef;
      readonly timeMode: TimeMode;
      readonly outputMode: "append" | "update";
      readonly fields: Fields;
      readonly initialState: { readonly plan: LogicalPlan; readonly keys: readonly string[] } | null;
    };

export type PlanKind = LogicalPlan["kind"];

export function planChildren(p: LogicalPlan): readonly LogicalPlan[] {
  switch (p.kind) {
    case "source":
      return [];
    case "union":
      return p.inputs;
    case "join":
      return [p.left, p.right];
    default:
      return [p.input];
  }
}

/** True when any leaf of the plan is a streaming source. */
export function isStreamingPlan(p: LogicalPlan): boolean {
  return p.kind === "source" ? p.streaming : planChildren(p).some(isStreamingPlan);
}
