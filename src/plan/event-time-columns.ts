import { AnalysisError } from "../errors/errors.js";
import { type Expr, unalias } from "../expr/ast.js";
import { outputName } from "../expr/resolve.js";
import { isStreamingPlan, type LogicalPlan } from "./logical.js";
import { schemaOf } from "./schema-of.js";

const cache = new WeakMap<LogicalPlan, ReadonlySet<string>>();

/**
 * The output columns of `p` that carry event time, as Spark's event-time watermark metadata
 * travels with attributes: the column of a `withWatermark` on a stream, kept through filters, joins and
 * renames; a `window(...)` or `session_window(...)` over such a column, and `window_time(...)` of
 * such a window. Stateful operators evict and judge lateness by these columns, so a window
 * aggregation of a deduplicated stream, or of another window aggregation's `window_time`, keeps
 * its watermark.
 */
export function eventTimeColumns(p: LogicalPlan): ReadonlySet<string> {
  const hit = cache.get(p);
  if (hit) return hit;
  const out = compute(p);
  cache.set(p, out);
  return out;
}

/**
 * The column of `p`'s output that a stateful operator reading `p` (its `operator`, for the error)
 * judges late rows and evicts state by; null when no column carries event time. Two columns that
 * both do are refused: see `refuseSeveralEventTimeColumns`.
 */
export function eventTimeColumnOf(p: LogicalPlan, operator: string): string | null {
  const times = eventTimeColumns(p);
  const carrying = schemaOf(p)
    .map((f) => f.name)
    .filter((name) => times.has(name));
  refuseSeveralEventTimeColumns(carrying, operator);
  return carrying[0] ?? null;
}

/**
 * Spark's WatermarkSupport.findEventTimeColumn (with spark.sql.streaming.statefulOperator.allowMultiple
 * at its default): a stateful operator whose input has two event-time columns could take either
 * for its watermark, and one of them would drop or evict rows the other still counts as on time
 * (a stream-stream join's output keeps the event time of both sides). Spark finds this when it
 * plans the first batch; Sluice refuses it at `start()`. `names` are the columns of the
 * operator's input (an aggregation's: its grouping keys) that carry event time.
 */
export function refuseSeveralEventTimeColumns(names: readonly string[], operator: string): void {
  const distinct = [...new Set(names)];
  if (distinct.length <= 1) return;
  throw new AnalysisError(
    `More than one event time columns are available for the ${operator}: ${distinct.map((n) => `"${n}"`).join(", ")}. ` +
      "Please ensure there is at most one event time column per stream: before the operator, keep one of them and drop the others or cast them " +
      "(a cast column carries no event time); a stream-stream join's output carries the event time of both sides",
  );
}

/** Whether `e` reads event time: a carrying column, or a window / window_time of one. */
export function carriesEventTime(e: Expr, columns: ReadonlySet<string>): boolean {
  const u = unalias(e);
  switch (u.kind) {
    case "col":
      return columns.has(u.name);
    case "window":
    case "sessionWindow":
      return carriesEventTime(u.time, columns);
    case "call":
      return u.fn === "window_time" && u.args.length === 1 && carriesEventTime(u.args[0]!, columns);
    default:
      return false;
  }
}

function compute(p: LogicalPlan): ReadonlySet<string> {
  switch (p.kind) {
    case "source":
      return new Set();
    // A processor's rows are new rows: none of their columns carries the input's event time. Spark 4
    // names one with transformWithState's eventTimeColumnName (which Sluice does not have), or, in
    // processing-time mode, with a withWatermark on the output (see plan/watermark-redefinition.ts).
    case "transformWithState":
      return new Set();
    // A watermark on static data means nothing (Spark drops it), so it marks no column there.
    case "watermark":
      return isStreamingPlan(p.input) ? new Set([...eventTimeColumns(p.input), p.column]) : eventTimeColumns(p.input);
    case "project":
    case "generate": {
      const input = eventTimeColumns(p.input);
      return new Set(p.exprs.filter((e) => carriesEventTime(e, input)).map(outputName));
    }
    case "aggregate": {
      const input = eventTimeColumns(p.input);
      const names = schemaOf(p).map((f) => f.name);
      return new Set(p.keys.flatMap((k, i) => (carriesEventTime(k, input) ? [names[i]!] : [])));
    }
    case "union": {
      // By position, under the first input's names: a column carries event time when every input's does.
      const names = schemaOf(p).map((f) => f.name);
      const per = p.inputs.map((input) => {
        const cols = eventTimeColumns(input);
        return schemaOf(input).map((f) => cols.has(f.name));
      });
      return new Set(names.filter((_, i) => per.every((flags) => flags[i])));
    }
    case "join": {
      const out = new Set(schemaOf(p).map((f) => f.name));
      return new Set([...eventTimeColumns(p.left), ...eventTimeColumns(p.right)].filter((c) => out.has(c)));
    }
    case "filter":
    case "deduplicate":
    case "sort":
    case "limit":
      return eventTimeColumns(p.input);
  }
}
