import type { AggFn, Expr, ProcessorRef } from "../expr/ast.js";
import type { TimeMode } from "../operators/stateful-processor.js";
import type { JoinType, LogicalPlan, SortKey } from "../plan/logical.js";
import type { SourceDesc } from "../sources/source-desc.js";
import type { Fields } from "../types/dtype.js";

/**
 * The physical plan: two stages, split where rows must meet in one place (state, sort, limit).
 *
 *   input pipelines (one per source leaf; run in workers, one task per input split)
 *     -> union of their outputs
 *     -> driver operators, as a tree: stateful operators (versioned state), what follows them,
 *        and the joins and unions of their outputs
 *     -> sink
 *
 * Both stages are lists of `OperatorSpec`s that one dispatcher (operators/run-operators.ts) turns
 * into `*Exec`s and runs. Everything here is plain data: a pipeline travels to a worker inside
 * each task.
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

/**
 * How a join side's state is bounded by the watermark W (Spark's join state watermarks):
 * - key: key `keyIndex` carries event time (a watermarked column or a window of one): rows whose
 *   key time (a window's end) is at or before W can no longer match and leave state;
 * - value: a time-range condition bounds what the other side can still match: rows whose
 *   event-time `column` is at or before W + offsetMs leave state.
 */
export type JoinStateWatermark =
  | { readonly kind: "key"; readonly keyIndex: number }
  | { readonly kind: "value"; readonly column: string; readonly offsetMs: number };

/**
 * A symmetric hash join (Spark's StreamingSymmetricHashJoinExec): both sides' rows are kept in
 * state, each new row is matched with the other side's state. `leftKeys`/`rightKeys` are the
 * equality keys over each side's fields; `leftCondition`/`rightCondition` read one side only
 * (a row failing it is neither stored nor matched); `pairCondition` reads a pair of rows laid
 * out as the left fields then the right ones under `rightPairNames`.
 */
export interface StreamJoinSpec {
  readonly op: "streamJoin";
  readonly operatorId: number;
  readonly joinType: JoinType;
  readonly leftFields: Fields;
  readonly rightFields: Fields;
  readonly rightPairNames: readonly string[];
  readonly leftKeys: readonly Expr[];
  readonly rightKeys: readonly Expr[];
  readonly leftCondition: Expr | null;
  readonly rightCondition: Expr | null;
  readonly pairCondition: Expr | null;
  /** Each side's watermarked event-time column: rows at or before the late-events watermark are dropped. */
  readonly leftEventTime: string | null;
  readonly rightEventTime: string | null;
  readonly leftState: JoinStateWatermark | null;
  readonly rightState: JoinStateWatermark | null;
}

/**
 * What a row of the probing side gives in a stream-static join: `inner` its pairs; `outer` its
 * pairs, or one row with nulls for the static side when it has none (a left outer join with the
 * stream on the left, a right outer join with it on the right); `semi` itself once when it has a
 * pair; `anti` itself when it has none.
 */
export type StaticJoinMode = "inner" | "outer" | "semi" | "anti";

/**
 * A join with a static side (Spark's broadcast hash join, or its broadcast nested-loop join when
 * no equality joins the sides): the static side is built once into a shared hash table on its key
 * expressions (`StaticTableSpec.on`, pairwise equal to `probeKeys`); each batch of the probing
 * side, a stream split by split, looks its keys up there.
 *
 * The probing side's own conjuncts (`probeCondition`, over its own names) decide which of its rows
 * may have pairs at all; `pairCondition` is checked on each pair of rows, laid out as for a
 * symmetric hash join: the left side's columns, then the right side's under `rightPairNames`. The
 * output keeps that layout, left columns then right ones, carrying of the static side only its
 * columns at `buildColumns`; a semi or anti join gives the probing (left) side's columns only.
 */
export interface StaticJoinSpec {
  readonly op: "joinStatic";
  readonly tableId: string;
  readonly mode: StaticJoinMode;
  /** Which side of the logical join probes: the stream's. */
  readonly probeSide: "left" | "right";
  readonly probeKeys: readonly Expr[];
  readonly probeCondition: Expr | null;
  readonly pairCondition: Expr | null;
  readonly rightPairNames: readonly string[];
  /** Indexes of the static side's columns the output carries, ascending. */
  readonly buildColumns: readonly number[];
}

/**
 * Arbitrary stateful processing (Spark's TransformWithStateExec): the input rows of each grouping
 * key go to the processor's `handleInputRows` once per batch, then due timers fire, then values
 * whose TTL passed leave state.
 */
export interface TransformWithStateSpec {
  readonly op: "transformWithState";
  readonly operatorId: number;
  readonly processor: ProcessorRef;
  readonly keyColumns: readonly string[];
  readonly inputFields: Fields;
  readonly outputFields: Fields;
  readonly timeMode: TimeMode;
  readonly outputMode: "append" | "update";
  /** The input's watermarked event-time column: rows at or before the late-events watermark are dropped. */
  readonly eventTimeColumn: string | null;
  /** Rows that seed the state in the query's first batch: a static table (by id) and its key columns. */
  readonly initialState: { readonly tableId: string; readonly keyColumns: readonly string[] } | null;
}

/** One physical operator, as data; `createExec` turns it into its `*Exec`. */
export type OperatorSpec =
  | { readonly op: "filter"; readonly condition: Expr }
  | { readonly op: "project"; readonly exprs: readonly Expr[] }
  /** A select with one explode(split(...)): one row per piece (stateless, in workers with project and filter). */
  | { readonly op: "generate"; readonly exprs: readonly Expr[] }
  /** Records min/max/avg of an event-time column for watermark `watermarkIndex` (no row change). */
  | { readonly op: "observeEventTime"; readonly column: string; readonly watermarkIndex: number }
  | StaticJoinSpec
  /** Windows rows and aggregates them within the split; the output is a partial-aggregate batch. */
  | { readonly op: "partialAggregate"; readonly spec: AggregateSpec }
  /** Merges partial batches into one state row per group (stateful). */
  | { readonly op: "finalAggregate"; readonly operatorId: number; readonly spec: AggregateSpec }
  /** Merges partial sessions into the sessions kept in state (stateful). */
  | { readonly op: "sessionMerge"; readonly operatorId: number; readonly spec: AggregateSpec }
  | {
      readonly op: "deduplicate";
      readonly operatorId: number;
      readonly keyColumns: readonly string[];
      /** Event-time column of a watermarked dedup (evicted by watermark); null keeps keys forever. */
      readonly eventTimeColumn: string | null;
      /** `dropDuplicatesWithinWatermark`: a key expires `delayMs` after its first event time. */
      readonly withinWatermarkDelayMs: number | null;
      readonly inputFields: Fields;
    }
  | StreamJoinSpec
  | TransformWithStateSpec
  | { readonly op: "sort"; readonly orders: readonly SortKey[] }
  | { readonly op: "limit"; readonly n: number };

export type StatefulOperatorSpec = Extract<OperatorSpec, { operatorId: number }>;

export type DeduplicateSpec = Extract<OperatorSpec, { op: "deduplicate" }>;

/**
 * The columns a deduplication keeps its keys by. Within the watermark the event-time column is
 * not one of them: it only says when the key may be forgotten.
 */
export function deduplicationKeys(spec: DeduplicateSpec): readonly string[] {
  return spec.withinWatermarkDelayMs === null ? spec.keyColumns : spec.keyColumns.filter((c) => c !== spec.eventTimeColumn);
}

export type AggregationSpec = Extract<OperatorSpec, { op: "finalAggregate" | "sessionMerge" }>;

export function isAggregation(spec: OperatorSpec): spec is AggregationSpec {
  return spec.op === "finalAggregate" || spec.op === "sessionMerge";
}

export function isStatefulSpec(spec: OperatorSpec): spec is StatefulOperatorSpec {
  return "operatorId" in spec;
}

export interface InputPipeline {
  readonly sourceIndex: number;
  readonly source: SourceDesc;
  /** Run in a worker over each input split, in order. */
  readonly operators: readonly OperatorSpec[];
  /** Fields after the last operator. */
  readonly outputFields: Fields;
  /**
   * The aggregation whose partial half ends this pipeline, by operator id (null: none). The
   * partial half drops the late rows in the workers, and they count for that aggregation, as
   * Spark counts them in its state store operator; a union of aggregations has one per pipeline.
   */
  readonly partialAggregateOf: number | null;
}

export interface WatermarkSpec {
  readonly column: string;
  readonly delayMs: number;
}

/**
 * The driver half as a tree, leaves first in data flow: the union of some input pipelines' task
 * outputs, operators run in order over one input, a symmetric hash join of two inputs, or the
 * union of inputs some of which a stateful operator produced (Spark's Union above such inputs:
 * their rows, input after input, each input's operators keeping their own ids and state).
 */
export type DriverNode =
  | { readonly kind: "pipelines"; readonly pipelines: readonly number[] }
  | { readonly kind: "operators"; readonly input: DriverNode; readonly operators: readonly OperatorSpec[] }
  | { readonly kind: "join"; readonly left: DriverNode; readonly right: DriverNode; readonly spec: StreamJoinSpec }
  | { readonly kind: "union"; readonly inputs: readonly DriverNode[] };

/** The shape every tree of driver nodes shares: the planned one (DriverNode) and the one a run opens from it. */
export type DriverTree<N> =
  | { readonly kind: "pipelines" }
  | { readonly kind: "operators"; readonly input: N }
  | { readonly kind: "join"; readonly left: N; readonly right: N }
  | { readonly kind: "union"; readonly inputs: readonly N[] };

/** The nodes whose rows a driver node reads, in order. */
export function driverInputs<N extends DriverTree<N>>(node: N): readonly N[] {
  const n: DriverTree<N> = node;
  switch (n.kind) {
    case "pipelines":
      return [];
    case "operators":
      return [n.input];
    case "join":
      return [n.left, n.right];
    case "union":
      return n.inputs;
  }
}

export interface PhysicalPlan {
  readonly inputs: readonly InputPipeline[];
  /** Run on the driver over the input pipelines' outputs. */
  readonly driver: DriverNode;
  readonly outputFields: Fields;
  readonly watermarks: readonly WatermarkSpec[];
  /** Static tables the pipelines join with, built once per query. */
  readonly staticTables: readonly StaticTableSpec[];
}

/** Every operator the driver runs, in data-flow order (a join after both its inputs). */
export function driverOperators(plan: PhysicalPlan): readonly OperatorSpec[] {
  const out: OperatorSpec[] = [];
  const visit = (n: DriverNode): void => {
    driverInputs(n).forEach(visit);
    out.push(...ownOperators(n));
  };
  visit(plan.driver);
  return out;
}

/** The operators a driver node runs itself, after its inputs. */
function ownOperators(node: DriverNode): readonly OperatorSpec[] {
  switch (node.kind) {
    case "pipelines":
    case "union":
      return [];
    case "operators":
      return node.operators;
    case "join":
      return [node.spec];
  }
}

/** The plan's stateful operators, by operator id (their position in the plan). */
export function statefulOperators(plan: PhysicalPlan): readonly StatefulOperatorSpec[] {
  return [...plan.inputs.flatMap((p) => p.operators), ...driverOperators(plan)].filter(isStatefulSpec).sort((a, b) => a.operatorId - b.operatorId);
}

/**
 * A static DataFrame a streaming query reads, run once at query start: the static side of a
 * stream-static join (`use: "join"`, built into a hash table shared by all tasks on the key
 * expressions `on`, over the plan's columns), or a transformWithState initial state (`use: "rows"`,
 * one batch for the driver's operator; `on` is empty).
 */
export interface StaticTableSpec {
  readonly tableId: string;
  readonly plan: LogicalPlan;
  readonly use: "join" | "rows";
  readonly on: readonly Expr[];
}
