import { outputName } from "../expr/resolve.js";
import { describeSource } from "../sources/source-kinds.js";
import { joinTypeName, type LogicalPlan, planChildren } from "./logical.js";

/**
 * The logical plan as an indented tree, as Spark's `explain()` prints it: each child under `+- `
 * (`:- ` for all but the last of several, a union's or a join's inputs, whose subtrees keep a `:`
 * down their left edge so each input's operators read as its own).
 */
export function explainPlan(p: LogicalPlan): string {
  return treeLines(p).join("\n");
}

function treeLines(p: LogicalPlan): string[] {
  const children = planChildren(p);
  return [
    describe(p),
    ...children.flatMap((child, i) => {
      const last = i === children.length - 1;
      const [first, ...rest] = treeLines(child);
      return [`${last ? "+- " : ":- "}${first}`, ...rest.map((line) => `${last ? "   " : ":  "}${line}`)];
    }),
  ];
}

function describe(p: LogicalPlan): string {
  switch (p.kind) {
    case "source":
      return `${p.streaming ? "StreamingRelation" : "Relation"} ${describeSource(p.source)}`;
    case "project":
      return `Project [${p.exprs.map(outputName).join(", ")}]`;
    case "generate":
      return `Generate [${p.exprs.map(outputName).join(", ")}]`;
    case "filter":
      return `Filter ${outputName(p.condition)}`;
    case "union":
      return "Union";
    case "watermark":
      return `EventTimeWatermark ${p.column}, ${p.delayMs} ms`;
    case "aggregate":
      return `Aggregate [${p.keys.map(outputName).join(", ")}], [${p.aggs.map(outputName).join(", ")}]`;
    case "deduplicate":
      return `${p.withinWatermark ? "DeduplicateWithinWatermark" : "Deduplicate"} [${p.columns.join(", ")}]`;
    case "sort":
      return `Sort [${p.orders.map((o) => `${outputName(o.expr)} ${o.ascending ? "ASC" : "DESC"}`).join(", ")}]`;
    case "limit":
      return `Limit ${p.n}`;
    case "join":
      return `Join ${joinTypeName(p.joinType)}, ${p.condition ? outputName(p.condition) : `using [${p.on.join(", ")}]`}`;
    case "transformWithState":
      return `TransformWithState ${p.processor.name} [${p.keys.join(", ")}], ${p.timeMode}, ${p.outputMode}${p.initialState ? ", with initial state" : ""}`;
  }
}
