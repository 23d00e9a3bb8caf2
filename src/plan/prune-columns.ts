import { referencedColumns, type Expr } from "../expr/ast.js";
import { outputName } from "../expr/resolve.js";
import { narrowSource } from "../sources/source-kinds.js";
import type { LogicalPlan } from "./logical.js";
import { schemaOf } from "./schema-of.js";

/**
 * Column pruning, as Spark's optimizer does it (ColumnPruning, and the schema pruning of JSON
 * parsing): columns no operator above reads are dropped right where the source produces them, so
 * filters and joins never copy them row by row, and a JSON record schema is narrowed to the
 * fields the query reads, so the decoder skips the others instead of building their columns.
 *
 * The rewritten plan has the same output columns as `root`, in the same order. It is an
 * execution detail: `explain()` and checkpoints keep the plan the user wrote.
 */
export function pruneColumns(root: LogicalPlan): LogicalPlan {
  return new Pruner().prune(root, ALL);
}

/** The columns an operator's output must keep; ALL when every one is needed (by name or position). */
type Needed = ReadonlySet<string> | typeof ALL;
const ALL = "all" as const;

/**
 * Rewrites are memoized per node and needed columns, so a node the plan reaches twice (one
 * DataFrame used on both sides of a union) stays one node, as the planner counts watermarks by node.
 */
class Pruner {
  private readonly done = new Map<LogicalPlan, Map<string, LogicalPlan>>();

  prune(p: LogicalPlan, needed: Needed): LogicalPlan {
    const key = needed === ALL ? ALL : [...needed].sort().join("\u0000");
    let byNeeded = this.done.get(p);
    if (!byNeeded) this.done.set(p, (byNeeded = new Map()));
    let out = byNeeded.get(key);
    if (!out) byNeeded.set(key, (out = this.rewrite(p, needed)));
    return out;
  }

  private rewrite(p: LogicalPlan, needed: Needed): LogicalPlan {
    const prune = (input: LogicalPlan, n: Needed) => this.prune(input, n);
    switch (p.kind) {
      case "source":
        return pruneSource(p, needed);
      case "project": {
        // Unread outputs are dropped, except a from_json / from_avro / from_protobuf (it yields several columns) and the
        // first one when none is read (a batch keeps a column to count its rows by).
        let exprs = needed === ALL ? p.exprs : p.exprs.filter((e) => e.kind === "decodeValues" || needed.has(outputName(e)));
        if (exprs.length === 0) exprs = p.exprs.slice(0, 1);
        const input = prune(p.input, columnsOf(exprs));
        return input === p.input && exprs.length === p.exprs.length ? p : { ...p, input, exprs };
      }
      case "generate":
        // Every output is kept: dropping one would not change the row count, but the list is the user's select.
        return withInput(p, prune(p.input, columnsOf(p.exprs)));
      case "filter":
        return withInput(p, prune(p.input, plus(needed, columnsOf([p.condition]))));
      case "watermark":
        return withInput(p, prune(p.input, plus(needed, columnRefs(p.column))));
      case "aggregate":
        return withInput(p, prune(p.input, columnsOf([...p.keys, ...p.aggs])));
      case "deduplicate":
        // Without columns, a duplicate is a row equal in every column.
        return withInput(p, prune(p.input, p.columns.length === 0 ? ALL : plus(needed, new Set(p.columns.flatMap(columnRefs)))));
      case "sort":
        return withInput(p, prune(p.input, plus(needed, columnsOf(p.orders.map((o) => o.expr)))));
      case "limit":
        return withInput(p, prune(p.input, needed));
      case "transformWithState":
        // The processor sees whole rows.
        return withInput(p, prune(p.input, ALL));
      case "union": {
        // Union matches columns by position: every input keeps all of them.
        const inputs = p.inputs.map((input) => prune(input, ALL));
        return inputs.every((input, i) => input === p.inputs[i]) ? p : { ...p, inputs };
      }
      case "join": {
        // Output names are unique across the two sides except the join keys, which both sides need;
        // each side keeps what the condition reads of it.
        const conditionRefs = p.condition ? columnsOf([p.condition]) : new Set<string>();
        const side = (input: LogicalPlan): Needed => {
          if (needed === ALL) return ALL;
          const names = new Set([...p.on, ...[...conditionRefs].filter((c) => schemaOf(input).some((f) => f.name === c))]);
          for (const f of schemaOf(input)) if (needed.has(f.name)) names.add(f.name);
          return names;
        };
        const left = prune(p.left, side(p.left));
        const right = prune(p.right, side(p.right));
        return left === p.left && right === p.right ? p : { ...p, left, right };
      }
    }
  }
}

function withInput<P extends LogicalPlan & { input: LogicalPlan }>(p: P, input: LogicalPlan): P {
  return input === p.input ? p : { ...p, input };
}

function plus(needed: Needed, more: Iterable<string>): Needed {
  return needed === ALL ? ALL : new Set([...needed, ...more]);
}

function columnsOf(exprs: readonly Expr[]): Set<string> {
  const refs = new Set<string>();
  for (const e of exprs) referencedColumns(e, refs);
  return new Set([...refs].flatMap(columnRefs));
}

/** A column name and, for a window's member (`window.start`), the window column it reads. */
function columnRefs(name: string): string[] {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? [name, name.slice(0, dot)] : [name];
}

/**
 * A source narrowed to `needed`: a JSON record schema (Kafka's `.schema()`, a JSON file source)
 * loses the fields nobody reads where its kind allows it (see each kind's `narrow`), then a
 * projection keeps only the needed columns.
 */
function pruneSource(p: LogicalPlan & { kind: "source" }, needed: Needed): LogicalPlan {
  if (needed === ALL) return p;
  const source = narrowSource(p.source, needed);
  const narrowed = source === p.source ? p : { ...p, source, fields: source.fields };
  const { fields } = narrowed;
  let kept = fields.filter((f) => needed.has(f.name));
  if (kept.length === 0) kept = fields.slice(0, 1);
  if (kept.length === fields.length) return narrowed;
  return { kind: "project", input: narrowed, exprs: kept.map((f): Expr => ({ kind: "col", name: f.name })) };
}
