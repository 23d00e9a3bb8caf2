import { AnalysisError } from "../errors/errors.js";
import type { Expr } from "../expr/ast.js";
import type { LogicalPlan } from "../plan/logical.js";
import { isStreamingPlan } from "../plan/logical.js";
import { pruneColumns } from "../plan/prune-columns.js";
import { schemaOf } from "../plan/schema-of.js";
import type { Fields } from "../types/dtype.js";
import { partialFields } from "../operators/aggregate-layout.js";
import { planAggregate } from "./plan-aggregate.js";
import type {
  InputPipeline,
  PhysicalPlan,
  PipelineStep,
  PostStep,
  StatefulSpec,
  StaticTableSpec,
  WatermarkSpec,
} from "./physical.js";

/**
 * Logical -> physical. The plan splits at its one stateful operator (aggregation or
 * deduplication): what lies below runs per input split in workers, what lies above runs on the
 * driver over the rows the stateful operator emits. Without a stateful operator, sort and limit
 * (and what follows them) run on the driver, everything else in workers. Columns nothing reads
 * are pruned first (plan/prune-columns).
 */
export function planPhysical(written: LogicalPlan): PhysicalPlan {
  const root = pruneColumns(written);
  const ctx: PlanContext = { watermarks: [], staticTables: [], watermarkOf: new Map() };

  const top: LogicalPlan[] = [];
  let node = root;
  while (node.kind === "project" || node.kind === "filter" || node.kind === "sort" || node.kind === "limit") {
    top.push(node);
    node = node.input;
  }

  let post: LogicalPlan[];
  let pushed: LogicalPlan[];
  let stateful: LogicalPlan | null = null;
  let below: LogicalPlan;
  if (node.kind === "aggregate" || node.kind === "deduplicate") {
    post = top;
    pushed = [];
    stateful = node;
    below = node.input;
  } else {
    const lastOrdered = findLastIndex(top, (n) => n.kind === "sort" || n.kind === "limit");
    post = top.slice(0, lastOrdered + 1);
    pushed = top.slice(lastOrdered + 1);
    below = node;
  }
  rejectNestedStateful(below);

  const pushedSteps = pushed.reverse().map(toPipelineStep);
  const outputFields = pushedSteps.reduce<Fields>((fields, step) => stepFields(step, fields), schemaOf(below));
  const inputs: InputPipeline[] = buildPipelines(below, ctx, pushedSteps).map((p, sourceIndex) => ({ ...p, sourceIndex, outputFields }));

  let statefulSpec: StatefulSpec | null = null;
  let finalInputs: InputPipeline[] = inputs;
  if (stateful?.kind === "aggregate") {
    const watermarked = new Set(ctx.watermarks.map((w) => w.column));
    const { spec, preAggregate } = planAggregate(stateful, watermarked);
    statefulSpec = { kind: "aggregate", spec };
    const steps: PipelineStep[] = [{ op: "project", exprs: preAggregate }, { op: "partialAggregate", spec }];
    finalInputs = inputs.map((p) => ({ ...p, steps: [...p.steps, ...steps], outputFields: partialFields(spec) }));
  } else if (stateful?.kind === "deduplicate") {
    statefulSpec = planDeduplicate(stateful, ctx.watermarks);
  }

  return {
    inputs: finalInputs,
    stateful: statefulSpec,
    post: post.reverse().map(toPostStep),
    outputFields: schemaOf(root),
    watermarks: ctx.watermarks,
    staticTables: ctx.staticTables,
  };
}

interface PlanContext {
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
function buildPipelines(p: LogicalPlan, ctx: PlanContext, above: readonly PipelineStep[]): Omit<InputPipeline, "outputFields">[] {
  switch (p.kind) {
    case "source":
      return [{ sourceIndex: -1, source: p.source, steps: above }];
    case "union":
      return p.inputs.flatMap((input) => buildPipelines(input, ctx, above));
    case "project":
    case "filter":
      return buildPipelines(p.input, ctx, [toPipelineStep(p), ...above]);
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

function buildJoin(p: LogicalPlan & { kind: "join" }, ctx: PlanContext, above: readonly PipelineStep[]) {
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
  const steps: PipelineStep[] = [{ op: "joinStatic", tableId, on: p.on, joinType: p.joinType }];
  if (probe !== p.left) {
    // Restore the left-then-right column order of the logical join.
    steps.push({ op: "project", exprs: schemaOf(p).map((f): Expr => ({ kind: "col", name: f.name })) });
  }
  return buildPipelines(probe, ctx, [...steps, ...above]);
}

function stepFields(step: PipelineStep, fields: Fields): Fields {
  if (step.op !== "project") return fields;
  return schemaOf({ kind: "project", input: { kind: "source", streaming: false, source: { format: "table", tableId: "", fields }, fields }, exprs: step.exprs });
}

function toPipelineStep(p: LogicalPlan): PipelineStep {
  if (p.kind === "project") return { op: "project", exprs: p.exprs };
  if (p.kind === "filter") return { op: "filter", condition: p.condition };
  throw new Error(`not a pipeline step: ${p.kind}`);
}

function toPostStep(p: LogicalPlan): PostStep {
  switch (p.kind) {
    case "project":
      return { op: "project", exprs: p.exprs };
    case "filter":
      return { op: "filter", condition: p.condition };
    case "sort":
      return { op: "sort", orders: p.orders };
    case "limit":
      return { op: "limit", n: p.n };
    default:
      throw new Error(`not a post step: ${p.kind}`);
  }
}

function planDeduplicate(p: LogicalPlan & { kind: "deduplicate" }, watermarks: readonly WatermarkSpec[]): StatefulSpec {
  const fields = schemaOf(p.input);
  const wm = watermarks.find((w) => fields.some((f) => f.name === w.column));
  if (p.withinWatermark) {
    if (!wm) {
      throw new AnalysisError("dropDuplicatesWithinWatermark is not supported in streaming DataFrames/DataSets without watermark");
    }
    return { kind: "deduplicate", keyColumns: p.columns, eventTimeColumn: wm.column, withinWatermarkDelayMs: wm.delayMs };
  }
  const timeKey = wm && p.columns.includes(wm.column) ? wm.column : null;
  return { kind: "deduplicate", keyColumns: p.columns, eventTimeColumn: timeKey, withinWatermarkDelayMs: null };
}
