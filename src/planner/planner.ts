import { AnalysisError, InternalError } from "../errors/errors.js";
import type { Expr } from "../expr/ast.js";
import type { JoinType, LogicalPlan } from "../plan/logical.js";
import { isStreamingPlan, joinTypeName, planChildren } from "../plan/logical.js";
import { eventTimeColumnOf, eventTimeColumns, refuseSeveralEventTimeColumns } from "../plan/event-time-columns.js";
import type { SourceDesc } from "../sources/source-desc.js";
import { planJoin } from "./plan-join.js";
import { type BuildSide, planStaticJoin } from "./plan-static-join.js";
import { pruneColumns } from "../plan/prune-columns.js";
import { schemaOf } from "../plan/schema-of.js";
import type { Fields } from "../types/dtype.js";
import { partialFields } from "../operators/aggregate-layout.js";
import { planAggregate } from "./plan-aggregate.js";
import { inSourceOrder } from "./source-order.js";
import type { DriverNode, InputPipeline, StatefulOperatorSpec, OperatorSpec, PhysicalPlan, StaticTableSpec, WatermarkSpec } from "./physical.js";

/**
 * Logical -> physical. What needs no meeting of rows runs per input split in workers: the
 * stateless operators above each source, stream-static joins, and the partial half of an
 * aggregation that reads the pipelines directly. The rest runs on the driver as a tree
 * (`DriverNode`): stateful operators (aggregations, deduplication, symmetric hash joins),
 * everything after the first of them, sort and limit, and unions of their outputs. Stateful
 * operators are numbered in data flow order, inputs left to right (their operator id names their
 * state in the checkpoint); a query may chain several, each with its own watermark (see
 * runtime/watermark-propagation.ts). Columns nothing reads are pruned first (plan/prune-columns).
 */
export function planPhysical(written: LogicalPlan): PhysicalPlan {
  const root = pruneColumns(written);
  const ctx: PlanContext = { watermarks: [], staticTables: [], watermarkOf: new Map(), nextOperatorId: 0, pipelines: [] };
  const placed = place(root, ctx);
  const { driver, pipelines } = inSourceOrder(driverOf(placed, ctx), ctx.pipelines);
  return {
    inputs: pipelines,
    driver,
    outputFields: schemaOf(root),
    watermarks: ctx.watermarks,
    staticTables: ctx.staticTables,
  };
}

interface PlanContext {
  nextOperatorId: number;
  watermarks: WatermarkSpec[];
  watermarkOf: Map<LogicalPlan, number>;
  staticTables: StaticTableSpec[];
  /** Pipelines handed to the driver so far, in index order. */
  pipelines: InputPipeline[];
}

/** A pipeline being built bottom-up: its source and the operators so far, and their output fields. */
interface PipelineDraft {
  readonly source: SourceDesc;
  readonly operators: readonly OperatorSpec[];
  readonly fields: Fields;
  /** The aggregation whose partial half the operators end with (see InputPipeline). */
  readonly partialAggregateOf: number | null;
}

/** Where a subplan's rows are: still in workers (one draft per source leaf), or on the driver. */
type Placed = { readonly kind: "workers"; readonly drafts: readonly PipelineDraft[] } | { readonly kind: "driver"; readonly node: DriverNode };

function place(p: LogicalPlan, ctx: PlanContext): Placed {
  switch (p.kind) {
    case "source":
      return { kind: "workers", drafts: [{ source: p.source, operators: [], fields: p.fields, partialAggregateOf: null }] };
    case "project":
    case "generate":
    case "filter":
      return then(place(p.input, ctx), [toOperatorSpec(p)], schemaOf(p));
    case "sort":
    case "limit":
      return { kind: "driver", node: append(driverOf(place(p.input, ctx), ctx), [toOperatorSpec(p)]) };
    case "union": {
      const fields = schemaOf(p);
      const inputs = p.inputs.map((input) => then(place(input, ctx), toUnionFields(schemaOf(input), fields), fields));
      if (inputs.every((i) => i.kind === "workers")) return { kind: "workers", drafts: inputs.flatMap((i) => (i.kind === "workers" ? i.drafts : [])) };
      // Some input is a stateful operator's output, whose rows exist on the driver only: the
      // union runs there, over each input's rows (the others' pipelines feed it directly).
      return { kind: "driver", node: { kind: "union", inputs: inputs.map((i) => driverOf(i, ctx)) } };
    }
    case "watermark": {
      // One watermark per withWatermark call: two inputs with the same column and delay still
      // have separate watermarks, and a watermark above a union is shared by its branches. After
      // a stateful operator it is observed on the driver; it may stand there only where no other
      // watermark reaches it (refused at start() otherwise, see plan/unsupported-operations.ts).
      let index = ctx.watermarkOf.get(p);
      if (index === undefined) {
        index = ctx.watermarks.push({ column: p.column, delayMs: p.delayMs }) - 1;
        ctx.watermarkOf.set(p, index);
      }
      return then(place(p.input, ctx), [{ op: "observeEventTime", column: p.column, watermarkIndex: index }], schemaOf(p));
    }
    case "aggregate": {
      const input = place(p.input, ctx);
      // The aggregation's state is keyed by its grouping keys: those are what may carry event time.
      refuseSeveralEventTimeColumns([...eventTimeColumns(p)], "aggregation");
      const { spec, preAggregate } = planAggregate(p, eventTimeColumns(p.input));
      const partial: OperatorSpec[] = [{ op: "project", exprs: preAggregate }, { op: "partialAggregate", spec }];
      const final: StatefulOperatorSpec = { op: spec.window?.kind === "session" ? "sessionMerge" : "finalAggregate", operatorId: ctx.nextOperatorId++, spec };
      if (input.kind === "workers") {
        const withPartial = then(input, partial, partialFields(spec)) as Placed & { kind: "workers" };
        const drafts = withPartial.drafts.map((d) => ({ ...d, partialAggregateOf: final.operatorId }));
        return { kind: "driver", node: append(toDriver({ kind: "workers", drafts }, ctx), [final]) };
      }
      return { kind: "driver", node: append(input.node, [...partial, final]) };
    }
    case "deduplicate": {
      const node = driverOf(place(p.input, ctx), ctx);
      return { kind: "driver", node: append(node, [planDeduplicate(p, ctx)]) };
    }
    case "join":
      return placeJoin(p, ctx);
    case "transformWithState": {
      const node = driverOf(place(p.input, ctx), ctx);
      return { kind: "driver", node: append(node, [planTransformWithState(p, ctx)]) };
    }
  }
}

/** `placed` followed by stateless operators: pushed into every pipeline while in workers. */
function then(placed: Placed, operators: readonly OperatorSpec[], fields: Fields): Placed {
  if (operators.length === 0) return placed;
  if (placed.kind === "driver") return { kind: "driver", node: append(placed.node, operators) };
  return { kind: "workers", drafts: placed.drafts.map((d) => ({ ...d, operators: [...d.operators, ...operators], fields })) };
}

function append(node: DriverNode, operators: readonly OperatorSpec[]): DriverNode {
  if (node.kind === "operators") return { ...node, operators: [...node.operators, ...operators] };
  return { kind: "operators", input: node, operators };
}

function driverOf(placed: Placed, ctx: PlanContext): DriverNode {
  return placed.kind === "driver" ? placed.node : toDriver(placed, ctx);
}

/** Hands the drafts to the driver as input pipelines: their union is a driver input. */
function toDriver(placed: Placed & { kind: "workers" }, ctx: PlanContext): DriverNode {
  const indexes = placed.drafts.map((d) => {
    const sourceIndex = ctx.pipelines.length;
    ctx.pipelines.push({ sourceIndex, source: d.source, operators: d.operators, outputFields: d.fields, partialAggregateOf: d.partialAggregateOf });
    return sourceIndex;
  });
  return { kind: "pipelines", pipelines: indexes };
}

let nextTableId = 0;

/**
 * A join of two streams, or a full outer join of two static sides, runs as a symmetric hash join
 * on the driver. Any other join has a static side that is never its preserved side (Spark's rules
 * refuse the rest first): that side is built once into a shared hash table, which the other side
 * probes where its rows are (in the workers, or on the driver after a stateful operator). Of two
 * static sides the right one is built, the left one for a right outer join.
 */
function placeJoin(p: LogicalPlan & { kind: "join" }, ctx: PlanContext): Placed {
  const leftStreaming = isStreamingPlan(p.left);
  const rightStreaming = isStreamingPlan(p.right);
  checkStreamingJoinType(p, leftStreaming, rightStreaming);
  const build = leftStreaming && rightStreaming ? null : leftStreaming ? "right" : rightStreaming ? "left" : staticBuildSide(p.joinType);
  if (build === null) {
    const left = driverOf(place(p.left, ctx), ctx);
    const right = driverOf(place(p.right, ctx), ctx);
    const { spec, output } = planJoin(p, ctx.nextOperatorId++);
    const node: DriverNode = { kind: "join", left, right, spec };
    return { kind: "driver", node: output ? append(node, [{ op: "project", exprs: output }]) : node };
  }
  const { table, spec, output } = planStaticJoin(p, build, `static-${nextTableId++}`);
  ctx.staticTables.push(table);
  const steps: OperatorSpec[] = output === null ? [spec] : [spec, { op: "project", exprs: output }];
  return then(place(build === "right" ? p.left : p.right, ctx), steps, schemaOf(p));
}

/** Of two static sides, the one built into the table: the side the join does not preserve (none for a full outer join). */
function staticBuildSide(joinType: JoinType): BuildSide | null {
  switch (joinType) {
    case "right":
      return "left";
    case "full":
      return null;
    case "inner":
    case "left":
    case "leftSemi":
    case "leftAnti":
      return "right";
  }
}

/**
 * Spark's join-type rules for joins with a streaming side (UnsupportedOperationChecker): a stream
 * cannot be joined with a static side whose unmatched rows the join must give, since whether a
 * static row ever finds a match is never settled while the stream goes on. A stream-stream join's
 * watermark rules are checked at start().
 */
function checkStreamingJoinType(p: LogicalPlan & { kind: "join" }, leftStreaming: boolean, rightStreaming: boolean): void {
  const refuse = (spark: string, fix: string) => new AnalysisError(`${spark}: ${fix}`);
  switch (p.joinType) {
    case "inner":
      return;
    case "full":
      if (leftStreaming === rightStreaming) return;
      throw refuse(
        leftStreaming
          ? "FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported"
          : "FullOuter joins with streaming DataFrames/Datasets on the right and a static DataFrame/Dataset on the left is not supported",
        `keep the stream's rows only, with a ${leftStreaming ? "left" : "right"} outer join`,
      );
    case "leftAnti":
      if (!rightStreaming) return;
      throw refuse(
        "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported",
        leftStreaming
          ? "of two streams, a left outer join with watermarks gives each left row that found no match with nulls once the watermark passes it; filter those"
          : "put the stream on the left, stream.join(static, on, \"left_anti\"), to keep the stream rows without a match",
      );
    case "left":
    case "leftSemi":
      if (leftStreaming || !rightStreaming) return;
      throw refuse(
        `${joinTypeName(p.joinType)} join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported`,
        `put the stream on the left, stream.join(static, on, "${p.joinType === "left" ? "left" : "left_semi"}"), to keep the stream's rows`,
      );
    case "right":
      if (!leftStreaming || rightStreaming) return;
      throw refuse(
        "RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported",
        'keep the stream\'s rows with stream.join(static, on, "left"), or put the stream on the right',
      );
  }
}

/**
 * The projection that gives a union input the union's columns (Spark's `WidenSetOperationTypes`
 * adds the same): the first input's names, each narrower column cast to the widened type. None
 * when the input has them already.
 */
function toUnionFields(input: Fields, union: Fields): OperatorSpec[] {
  if (input.every((f, i) => f.name === union[i]!.name && f.type === union[i]!.type)) return [];
  const exprs = input.map((f, i): Expr => {
    const target = union[i]!;
    const column: Expr = { kind: "col", name: f.name };
    return { kind: "alias", child: f.type === target.type ? column : { kind: "cast", child: column, to: target.type }, name: target.name };
  });
  return [{ op: "project", exprs }];
}

function operatorFields(op: OperatorSpec, fields: Fields): Fields {
  if (op.op !== "project" && op.op !== "generate") return fields;
  return schemaOf({ kind: op.op, input: { kind: "source", streaming: false, source: { format: "table", tableId: "", fields }, fields }, exprs: op.exprs });
}

/** The operator of a logical node that maps one to one onto a physical operator. */
function toOperatorSpec(p: LogicalPlan): OperatorSpec {
  switch (p.kind) {
    case "project":
      return { op: "project", exprs: p.exprs };
    case "generate":
      return { op: "generate", exprs: p.exprs };
    case "filter":
      return { op: "filter", condition: p.condition };
    case "sort":
      return { op: "sort", orders: p.orders };
    case "limit":
      return { op: "limit", n: p.n };
    default:
      throw new InternalError(`a ${p.kind} node has no one-to-one physical operator`);
  }
}

function planDeduplicate(p: LogicalPlan & { kind: "deduplicate" }, ctx: PlanContext): OperatorSpec {
  const fields = schemaOf(p.input);
  const eventTime = eventTimeColumnOf(p.input, "deduplication");
  const watermark = eventTime === null ? undefined : watermarkDelayOf(p.input, eventTime, ctx);
  const base = { op: "deduplicate" as const, operatorId: ctx.nextOperatorId++, keyColumns: p.columns, inputFields: fields };
  if (p.withinWatermark) {
    if (!isStreamingPlan(p.input)) throw new AnalysisError("dropDuplicatesWithinWatermark is not supported with batch DataFrames/DataSets");
    if (eventTime === null || watermark === undefined) {
      throw new AnalysisError("dropDuplicatesWithinWatermark is not supported in streaming DataFrames/DataSets without watermark");
    }
    return { ...base, eventTimeColumn: eventTime, withinWatermarkDelayMs: watermark };
  }
  const timeKey = eventTime !== null && p.columns.includes(eventTime) ? eventTime : null;
  return { ...base, eventTimeColumn: timeKey, withinWatermarkDelayMs: null };
}

function planTransformWithState(p: LogicalPlan & { kind: "transformWithState" }, ctx: PlanContext): OperatorSpec {
  const fields = schemaOf(p.input);
  let initialState: { tableId: string; keyColumns: readonly string[] } | null = null;
  if (p.initialState) {
    const tableId = `initial-state-${nextTableId++}`;
    ctx.staticTables.push({ tableId, plan: p.initialState.plan, use: "rows", on: [] });
    initialState = { tableId, keyColumns: p.initialState.keys };
  }
  return {
    op: "transformWithState",
    operatorId: ctx.nextOperatorId++,
    processor: p.processor,
    keyColumns: p.keys,
    inputFields: fields,
    outputFields: p.fields,
    timeMode: p.timeMode,
    outputMode: p.outputMode,
    eventTimeColumn: eventTimeColumnOf(p.input, "transformWithState"),
    initialState,
  };
}

/** The delay of the `withWatermark` that made `column` an event-time column below `p`. */
function watermarkDelayOf(p: LogicalPlan, column: string, ctx: PlanContext): number | undefined {
  if (p.kind === "watermark" && p.column === column) return p.delayMs;
  for (const c of planChildren(p)) {
    const d = watermarkDelayOf(c, column, ctx);
    if (d !== undefined) return d;
  }
  return undefined;
}
