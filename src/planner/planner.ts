import { AnalysisError, InternalError } from "../errors/errors.js";
import type { Expr } from "../expr/ast.js";
import type { LogicalPlan } from "../plan/logical.js";
import { isStreamingPlan } from "../plan/logical.js";
import { pruneColumns } from "../plan/prune-columns.js";
import { schemaOf } from "../plan/schema-of.js";
import type { Fields } from "../types/dtype.js";
import { partialFields } from "../operators/aggregate-layout.js";
import { planAggregate } from "./plan-aggregate.js";
import type { InputPipeline, OperatorSpec, PhysicalPlan, StaticTableSpec, WatermarkSpec } from "./physical.js";

/**
 * Logical -> physical. The plan splits at its stateful operator (aggregation or deduplication):
 * what lies below runs per input split in workers, the stateful operator and what lies above it
 * run on the driver over the union of the task outputs. Without a stateful operator, sort and
 * limit (and what follows them) run on the driver, everything else in workers. Columns nothing
 * reads are pruned first (plan/prune-columns). Stateful operators are numbered in plan order
 * (their operator id names their state in the checkpoint); one query holds one of them today.
 */
export function planPhysical(written: LogicalPlan): PhysicalPlan {
  const root = pruneColumns(written);
  const ctx: PlanContext = { watermarks: [], staticTables: [], watermarkOf: new Map(), nextOperatorId: 0 };

  const top: LogicalPlan[] = [];
  let node = root;
  while (node.kind === "project" || node.kind === "generate" || node.kind === "filter" || node.kind === "sort" || node.kind === "limit") {
    top.push(node);
    node = node.input;
  }

  let onDriver: LogicalPlan[];
  let pushed: LogicalPlan[];
  let stateful: LogicalPlan | null = null;
  let below: LogicalPlan;
  if (node.kind === "aggregate" || node.kind === "deduplicate") {
    onDriver = top;
    pushed = [];
    stateful = node;
    below = node.input;
  } else {
    const lastOrdered = findLastIndex(top, (n) => n.kind === "sort" || n.kind === "limit");
    onDriver = top.slice(0, lastOrdered + 1);
    pushed = top.slice(lastOrdered + 1);
    below = node;
  }
  rejectNestedStateful(below);

  const pushedOperators = pushed.reverse().map(toOperatorSpec);
  const driverInputFields = pushedOperators.reduce<Fields>((fields, op) => operatorFields(op, fields), schemaOf(below));
  const inputs: InputPipeline[] = buildPipelines(below, ctx, pushedOperators).map((p, sourceIndex) => ({ ...p, sourceIndex, outputFields: driverInputFields }));

  const driver: OperatorSpec[] = [];
  let finalInputs: InputPipeline[] = inputs;
  let unionFields = driverInputFields;
  if (stateful?.kind === "aggregate") {
    const watermarked = new Set(ctx.watermarks.map((w) => w.column));
    const { spec, preAggregate } = planAggregate(stateful, watermarked);
    const partial: OperatorSpec[] = [{ op: "project", exprs: preAggregate }, { op: "partialAggregate", spec }];
    unionFields = partialFields(spec);
    finalInputs = inputs.map((p) => ({ ...p, operators: [...p.operators, ...partial], outputFields: unionFields }));
    driver.push({ op: spec.window?.kind === "session" ? "sessionMerge" : "finalAggregate", operatorId: ctx.nextOperatorId++, spec });
  } else if (stateful?.kind === "deduplicate") {
    driver.push(planDeduplicate(stateful, ctx, driverInputFields));
  }
  driver.push(...onDriver.reverse().map(toOperatorSpec));

  return {
    inputs: finalInputs,
    driver,
    driverInputFields: unionFields,
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
}

function findLastIndex<T>(xs: readonly T[], p: (x: T) => boolean): number {
  for (let i = xs.length - 1; i >= 0; i--) if (p(xs[i]!)) return i;
  return -1;
}

function rejectNestedStateful(p: LogicalPlan): void {
  if (p.kind === "aggregate" || p.kind === "deduplicate") {
    throw new AnalysisError(
      p.kind === "aggregate"
        ? "Multiple streaming aggregations are not supported with streaming DataFrames/Datasets"
        : "Sluice runs one stateful operator per query: deduplicate and aggregate in two queries, or aggregate the deduplicated output of one query in another",
    );
  }
  if (p.kind === "join") {
    rejectNestedStateful(p.left);
    return;
  }
  if (p.kind === "union") p.inputs.forEach(rejectNestedStateful);
  else if (p.kind !== "source") rejectNestedStateful(p.input);
}

let nextTableId = 0;

/**
 * One pipeline per source leaf under `p`. Steps are collected top-down and applied bottom-up, so a
 * node above a union (a filter, a watermark) lands in every branch's pipeline.
 */
function buildPipelines(p: LogicalPlan, ctx: PlanContext, above: readonly OperatorSpec[]): Omit<InputPipeline, "outputFields">[] {
  switch (p.kind) {
    case "source":
      return [{ sourceIndex: -1, source: p.source, operators: above }];
    case "union": {
      const fields = schemaOf(p);
      return p.inputs.flatMap((input) => buildPipelines(input, ctx, [...toUnionFields(schemaOf(input), fields), ...above]));
    }
    case "project":
    case "generate":
    case "filter":
      return buildPipelines(p.input, ctx, [toOperatorSpec(p), ...above]);
    case "watermark": {
      // One watermark per withWatermark call: two inputs with the same column and delay still
      // have separate watermarks, and a watermark above a union is shared by its branches.
      let index = ctx.watermarkOf.get(p);
      if (index === undefined) {
        index = ctx.watermarks.push({ column: p.column, delayMs: p.delayMs }) - 1;
        ctx.watermarkOf.set(p, index);
      }
      return buildPipelines(p.input, ctx, [{ op: "observeEventTime", column: p.column, watermarkIndex: index }, ...above]);
    }
    case "join":
      return buildJoin(p, ctx, above);
    default:
      throw new AnalysisError(`${p.kind} cannot appear here: it must be the query's one stateful operator`);
  }
}

function buildJoin(p: LogicalPlan & { kind: "join" }, ctx: PlanContext, above: readonly OperatorSpec[]) {
  const leftStreaming = isStreamingPlan(p.left);
  const rightStreaming = isStreamingPlan(p.right);
  if (leftStreaming && rightStreaming) {
    throw new AnalysisError("stream-stream joins are not supported yet; join a stream with a static DataFrame");
  }
  if (!leftStreaming && rightStreaming && p.joinType === "left") {
    throw new AnalysisError("Left outer join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported");
  }
  // The side that is read split by split probes; the other side becomes the shared hash table.
  const [probe, build] = leftStreaming || !rightStreaming ? [p.left, p.right] : [p.right, p.left];
  const tableId = `static-${nextTableId++}`;
  ctx.staticTables.push({ tableId, plan: build, on: p.on });
  const steps: OperatorSpec[] = [{ op: "joinStatic", tableId, on: p.on, joinType: p.joinType }];
  if (probe !== p.left) {
    // Restore the left-then-right column order of the logical join.
    steps.push({ op: "project", exprs: schemaOf(p).map((f): Expr => ({ kind: "col", name: f.name })) });
  }
  return buildPipelines(probe, ctx, [...steps, ...above]);
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

function planDeduplicate(p: LogicalPlan & { kind: "deduplicate" }, ctx: PlanContext, inputFields: Fields): OperatorSpec {
  const fields = schemaOf(p.input);
  const wm = ctx.watermarks.find((w) => fields.some((f) => f.name === w.column));
  const base = { op: "deduplicate" as const, operatorId: ctx.nextOperatorId++, keyColumns: p.columns, inputFields };
  if (p.withinWatermark) {
    if (!wm) {
      throw new AnalysisError("dropDuplicatesWithinWatermark is not supported in streaming DataFrames/DataSets without watermark");
    }
    return { ...base, eventTimeColumn: wm.column, withinWatermarkDelayMs: wm.delayMs };
  }
  const timeKey = wm && p.columns.includes(wm.column) ? wm.column : null;
  return { ...base, eventTimeColumn: timeKey, withinWatermarkDelayMs: null };
}
