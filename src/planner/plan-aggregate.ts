import { AnalysisError } from "../errors/errors.js";
import { type Expr, unalias } from "../expr/ast.js";
import { carriesEventTime } from "../plan/event-time-columns.js";
import type { LogicalPlan } from "../plan/logical.js";
import { schemaOf } from "../plan/schema-of.js";
import type { AggregateCall, AggregateSpec } from "./physical.js";

/**
 * Plans a grouped aggregation: the projection each pipeline applies before partial aggregation
 * ([plain keys..., event time of the window key..., aggregate arguments...]) and the spec shared
 * by the partial (worker) and final (driver) halves.
 */
export function planAggregate(
  node: LogicalPlan & { kind: "aggregate" },
  watermarkedColumns: ReadonlySet<string>,
): { spec: AggregateSpec; preAggregate: Expr[] } {
  const out = schemaOf(node);
  const keyFields = out.slice(0, node.keys.length);
  const aggFields = out.slice(node.keys.length);

  const windowKeys = node.keys.map((k, i) => ({ k: unalias(k), i })).filter(({ k }) => k.kind === "window" || k.kind === "sessionWindow");
  if (windowKeys.length > 1) {
    throw new AnalysisError("Multiple time/session window expressions would result in a cartesian product of rows, therefore they are currently not supported");
  }
  const windowKey = windowKeys[0];

  const preAggregate: Expr[] = [];
  node.keys.forEach((k, i) => {
    if (i !== windowKey?.i) preAggregate.push({ kind: "alias", child: unalias(k), name: keyFields[i]!.name });
  });
  const numPlainKeys = preAggregate.length;

  let window: AggregateSpec["window"] = null;
  let eventTimeKey: AggregateSpec["eventTimeKey"] = null;
  if (windowKey) {
    const w = windowKey.k as Extract<Expr, { kind: "window" | "sessionWindow" }>;
    preAggregate.push({ kind: "alias", child: w.time, name: "__event_time" });
    window =
      w.kind === "window"
        ? { kind: w.slideMs === w.sizeMs ? "tumbling" : "sliding", sizeMs: w.sizeMs, slideMs: w.slideMs, startMs: w.startMs, keyIndex: windowKey.i }
        : { kind: "session", gapMs: w.gapMs, keyIndex: windowKey.i };
    // A window over a watermarked column, or over window_time of an upstream aggregation's window.
    if (carriesEventTime(w.time, watermarkedColumns)) eventTimeKey = { index: windowKey.i, isWindow: true };
  }
  if (!eventTimeKey) {
    const i = node.keys.findIndex((k) => {
      const u = unalias(k);
      return (u.kind === "col" || u.kind === "call") && carriesEventTime(u, watermarkedColumns);
    });
    if (i >= 0) eventTimeKey = { index: i, isWindow: false };
  }

  // Each distinct argument expression is projected once, however many aggregates read it.
  const argIndex = new Map<string, number>();
  const aggs: AggregateCall[] = node.aggs.map((a, i) => {
    const call = unalias(a) as Extract<Expr, { kind: "agg" }>;
    let input = -1;
    if (call.child) {
      const key = JSON.stringify(call.child);
      if (!argIndex.has(key)) {
        argIndex.set(key, preAggregate.length);
        preAggregate.push({ kind: "alias", child: call.child, name: `__arg${argIndex.size - 1}` });
      }
      input = argIndex.get(key)!;
    }
    return { fn: call.fn, input, name: aggFields[i]!.name };
  });

  return { spec: { keyFields, numPlainKeys, window, aggs, aggFields, eventTimeKey }, preAggregate };
}

