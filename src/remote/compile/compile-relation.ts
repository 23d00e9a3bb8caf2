import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { assertNever, type Expr } from "../../expr/ast.js";
import { outputName } from "../../expr/resolve.js";
import type { JoinType, LogicalPlan } from "../../plan/logical.js";
import { schemaOf } from "../../plan/schema-of.js";
import type { Fields } from "../../types/dtype.js";
import { Expression_SortOrder_NullOrdering, Expression_SortOrder_SortDirection } from "../gen/spark/connect/expressions_pb.js";
import { Aggregate_GroupType, Join_JoinType, type Relation, RelationCommonSchema, RelationSchema, SetOperation_SetOpType } from "../gen/spark/connect/relations_pb.js";
import { column, compileExpression, type ExprScope, namedExpression } from "./compile-expression.js";
import { decodeJsonRelations, type JsonDecode, jsonDecodeInputs, jsonDecodeOutputs } from "./json-decode.js";
import { type CompileContext, compileSource } from "./compile-source.js";
import { decodeRefusal, processorRefused } from "./refusals.js";
import { intervalText } from "./spark-literals.js";
import { quoteIdentifier } from "./spark-types.js";

/**
 * A Sluice logical plan as a Spark Connect `Relation`: one relation per node (a few nodes take
 * two, noted where they are built), each with its own `common.plan_id`. Output columns carry
 * Sluice's names (every computed column is aliased to `outputName`), so a parent refers to them
 * as Sluice does and the rows come back under the names schemaOf gives. Raises
 * RemoteUnsupportedError for what Spark cannot run as Sluice does.
 */
export function compileRelation(plan: LogicalPlan, ctx: CompileContext): Relation {
  return new RelationCompiler(ctx).compile(plan);
}

/**
 * Throws RemoteUnsupportedError for the first part of `plan` a Spark Connect server cannot run
 * (a UDF, a transformWithState processor, a memory stream, ...): the compiler's own checks, run
 * without reading any in-memory table.
 */
export function assertRunsRemotely(plan: LogicalPlan): void {
  new RelationCompiler({ tableBatches: () => [] }).compile(plan);
}

const JOIN_TYPES: Record<JoinType, Join_JoinType> = {
  inner: Join_JoinType.INNER,
  left: Join_JoinType.LEFT_OUTER,
  right: Join_JoinType.RIGHT_OUTER,
  full: Join_JoinType.FULL_OUTER,
  leftSemi: Join_JoinType.LEFT_SEMI,
  leftAnti: Join_JoinType.LEFT_ANTI,
};

type RelType = NonNullable<MessageInitShape<typeof RelationSchema>["relType"]>;

class RelationCompiler {
  private nextPlanId = 0n;

  constructor(private readonly ctx: CompileContext) {}

  /** The relation with the next plan id, which qualified columns refer to. */
  private readonly wrap = (r: Relation): Relation => {
    r.common = create(RelationCommonSchema, { planId: this.nextPlanId++ });
    return r;
  };

  private rel(relType: RelType): Relation {
    return this.wrap(create(RelationSchema, { relType }));
  }

  compile(p: LogicalPlan): Relation {
    switch (p.kind) {
      case "source":
        return compileSource(p, this.ctx, this.wrap);
      case "project":
        return this.project(p.input, p.exprs);
      case "generate": {
        // explode(split(...)) in a select, as Spark's Generate under a Project; Spark names its output "col", as Sluice does.
        const input = this.compile(p.input);
        const scope = { fields: schemaOf(p.input) };
        return this.rel({ case: "project", value: { input, expressions: p.exprs.map((e) => namedExpression(e, scope)) } });
      }
      case "filter": {
        const input = this.compile(p.input);
        return this.rel({ case: "filter", value: { input, condition: compileExpression(p.condition, { fields: schemaOf(p.input) }) } });
      }
      case "union":
        // Spark's UNION ALL resolves by position and keeps the first input's names, as Sluice's union.
        return p.inputs
          .map((i) => this.compile(i))
          .reduce((leftInput, rightInput) => this.rel({ case: "setOp", value: { leftInput, rightInput, setOpType: SetOperation_SetOpType.UNION, isAll: true, byName: false } }));
      case "watermark": {
        const input = this.compile(p.input);
        // Spark parses the event time as a column name (dots separate parts): a name that is not a plain identifier is quoted.
        return this.rel({ case: "withWatermark", value: { input, eventTime: quoteIdentifier(p.column), delayThreshold: intervalText(p.delayMs) } });
      }
      case "aggregate": {
        const input = this.compile(p.input);
        const scope = { fields: schemaOf(p.input) };
        return this.rel({
          case: "aggregate",
          value: {
            input,
            groupType: Aggregate_GroupType.GROUPBY,
            groupingExpressions: p.keys.map((e) => namedExpression(e, scope)),
            aggregateExpressions: p.aggs.map((e) => namedExpression(e, scope)),
          },
        });
      }
      case "deduplicate": {
        const input = this.compile(p.input);
        const keys = p.columns.length === 0 ? { allColumnsAsKeys: true } : { columnNames: [...p.columns] };
        return this.rel({ case: "deduplicate", value: { input, ...keys, withinWatermark: p.withinWatermark } });
      }
      case "sort": {
        const input = this.compile(p.input);
        const scope = { fields: schemaOf(p.input) };
        // Sluice sorts nulls first ascending and last descending (kernels/sort.ts), Spark's defaults, stated here.
        const order = p.orders.map((o) => ({
          child: compileExpression(o.expr, scope),
          direction: o.ascending ? Expression_SortOrder_SortDirection.ASCENDING : Expression_SortOrder_SortDirection.DESCENDING,
          nullOrdering: o.ascending ? Expression_SortOrder_NullOrdering.SORT_NULLS_FIRST : Expression_SortOrder_NullOrdering.SORT_NULLS_LAST,
        }));
        return this.rel({ case: "sort", value: { input, order, isGlobal: true } });
      }
      case "limit": {
        const input = this.compile(p.input);
        return this.rel({ case: "limit", value: { input, limit: p.n } });
      }
      case "join":
        return this.join(p);
      case "transformWithState":
        throw processorRefused(p.processor);
      default:
        return assertNever(p, "plan node");
    }
  }

  /**
   * A select. A top-level from_json gives several columns in Sluice: its parsed struct and text go
   * in a first Project with the other columns, and an output Project lays out its fields where
   * Sluice puts them (json-decode.ts), every other column passed through by name.
   */
  private project(inputPlan: LogicalPlan, exprs: readonly Expr[]): Relation {
    const input = this.compile(inputPlan);
    const scope: ExprScope = { fields: schemaOf(inputPlan) };
    const decodes = new Map<number, JsonDecode>();
    exprs.forEach((e, index) => {
      if (e.kind !== "decodeValues") return;
      const refusal = decodeRefusal(e);
      if (refusal) throw refusal;
      decodes.set(index, { index, text: compileExpression(e.child, scope), fields: e.fields, mode: e.mode, corruptColumn: null, where: outputName(e) });
    });
    if (decodes.size === 0) return this.rel({ case: "project", value: { input, expressions: exprs.map((e) => namedExpression(e, scope)) } });
    const first = exprs.flatMap((e, i) => (decodes.has(i) ? jsonDecodeInputs(decodes.get(i)!) : [namedExpression(e, scope)]));
    const names: Fields = exprs.flatMap((e) => (e.kind === "decodeValues" ? [] : [{ name: outputName(e), type: "string" as const, nullable: true }]));
    const last = exprs.flatMap((e, i) => (decodes.has(i) ? jsonDecodeOutputs(decodes.get(i)!) : [column(outputName(e), { fields: names })]));
    return decodeJsonRelations(this.wrap, input, first, [...decodes.values()], last);
  }

  /**
   * A join. On a condition, Spark's output is Sluice's (every left column, then every right one;
   * the DataFrame API already renamed clashing right columns), and each column of the condition is
   * bound to its side's plan id. On columns (`using_columns`), Spark puts the keys first; a
   * Project puts the columns back in Sluice's order (schemaOf), each key as the join gives it.
   */
  private join(p: Extract<LogicalPlan, { kind: "join" }>): Relation {
    const left = this.compile(p.left);
    const right = this.compile(p.right);
    const joinType = JOIN_TYPES[p.joinType];
    if (p.condition) {
      const leftFields = schemaOf(p.left);
      const rightFields = schemaOf(p.right);
      const root = (name: string) => (leftFields.some((f) => f.name === name) || rightFields.some((f) => f.name === name) ? name : name.slice(0, Math.max(0, name.lastIndexOf("."))));
      const planIdOf = (name: string) => {
        const r = root(name);
        if (leftFields.some((f) => f.name === r)) return left.common?.planId;
        return rightFields.some((f) => f.name === r) ? right.common?.planId : undefined;
      };
      const joinCondition = compileExpression(p.condition, { fields: [...leftFields, ...rightFields], planIdOf });
      return this.rel({ case: "join", value: { left, right, joinCondition, joinType } });
    }
    const joined = this.rel({ case: "join", value: { left, right, usingColumns: [...p.on], joinType } });
    const fields = schemaOf(p);
    return this.rel({ case: "project", value: { input: joined, expressions: fields.map((f) => column(f.name, { fields })) } });
  }
}
