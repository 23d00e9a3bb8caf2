import type { AggFn, Expr } from "../expr/ast.js";
import type { JoinType, LogicalPlan, SortKey, SourceDesc } from "../plan/logical.js";
import type { Fields } from "../types/dtype.js";

/**
 * The physical plan. A query splits at its stateful operator:
 *
 *   input pipelines (one per source leaf; run in workers, one task per input split)
 *     -> union of their outputs
 *     -> at most one stateful operator (driver; versioned state)
 *     -> post steps (driver; on the rows the output mode emits)
 *     -> sink
 *
 * Everything here is plain data: a pipeline travels to a worker inside each task.
 */

/** Rows of one aggregate: `input` is the column index, in the pre-aggregation batch, of its argument. */
export interface AggregateCall {
  readonly fn: AggFn;
  /** Column index of the argument in the pre-aggregation batch; -1 for count(*). */
  readonly input: number;
  /** Output column name. */
  readonly name: string;
}

/**
 * Grouped aggregation. The pipeline's `preAggregate` projection lays the batch out as
 * [key columns..., event-time column (windowed only)..., aggregate argument columns...].
 */
export interface AggregateSpec {
  /** Output fields of the key columns (the window column included, where it is a key). */
  readonly keyFields: Fields;
  /** Number of non-window key columns; they are columns [0, numPlainKeys). */
  readonly numPlainKeys: number;
  /**
   * Windowing of the event-time column at index `numPlainKeys`, whose output is the key named
   * `keyFields[windowKeyIndex]`; null when no key is a window.
   */
  readonly window:
    | { readonly kind: "tumbling" | "sliding"; readonly sizeMs: number; readonly slideMs: number; readonly startMs: number; readonly keyIndex: number }
    | { readonly kind: "session"; readonly gapMs: number; readonly keyIndex: number }
    | null;
  readonly aggs: readonly AggregateCall[];
  /** Fields of the aggregate results, in `aggs` order. */
  readonly aggFields: Fields;
  /**
   * Which key carries event time for watermark eviction: a window key (evicted when
   * window.end <= watermark) or a timestamp key column (evicted when value <= watermark).
   * null when the aggregation has no watermarked key (state is kept forever).
   */
  readonly eventTimeKey: { readonly index: number; readonly isWindow: boolean } | null;
}

/** One stateless step run in a worker, in order. */
export type PipelineStep =
  | { readonly op: "filter"; readonly condition: Expr }
  | { readonly op: "project"; readonly exprs: readonly Expr[] }
  /** Records min/max/avg of an event-time column for watermark `watermarkIndex` (no row change). */
  | { readonly op: "observeEventTime"; readonly column: string; readonly watermarkIndex: number }
  | {
      readonly op: "joinStatic";
      readonly tableId: string;
      readonly on: readonly string[];
      readonly joinType: JoinType;
    }
  /** Windows rows and aggregates them within the split; the output is a partial-aggregate batch. */
  | { readonly op: "partialAggregate"; readonly spec: AggregateSpec };

export interface InputPipeline {
  readonly sourceIndex: number;
  readonly source: SourceDesc;
  readonly steps: readonly PipelineStep[];
  /** Fields after the last step. */
  readonly outputFields: Fields;
}

export type StatefulSpec =
  | { readonly kind: "aggregate"; readonly spec: AggregateSpec }
  | {
      readonly kind: "deduplicate";
      readonly keyColumns: readonly string[];
      /** Event-time column of a watermarked dedup (evicted by watermark); null keeps keys forever. */
      readonly eventTimeColumn: string | null;
      /** `dropDuplicatesWithinWatermark`: a key expires `delayMs` after its first event time. */
      readonly withinWatermarkDelayMs: number | null;
    };

export type PostStep =
  | { readonly op: "filter"; readonly condition: Expr }
  | { readonly op: "project"; readonly exprs: readonly Expr[] }
  | { readonly op: "sort"; readonly orders: readonly SortKey[] }
  | { readonly op: "limit"; readonly n: number };

export interface WatermarkSpec {
  readonly column: string;
  readonly delayMs: number;
}

export interface PhysicalPlan {
  readonly inputs: readonly InputPipeline[];
  readonly stateful: StatefulSpec | null;
  readonly post: readonly PostStep[];
  readonly outputFields: Fields;
  readonly watermarks: readonly WatermarkSpec[];
  /** Static tables the pipelines join with, built once per query. */
  readonly staticTables: readonly StaticTableSpec[];
}

/** The static side of a stream-static join: run once at query start, then shared by all tasks. */
export interface StaticTableSpec {
  readonly tableId: string;
  readonly plan: LogicalPlan;
  readonly on: readonly string[];
}
