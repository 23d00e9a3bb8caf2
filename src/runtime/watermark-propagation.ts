import type { DriverNode, OperatorSpec, StatefulOperatorSpec } from "../planner/physical.js";
import { isStatefulSpec } from "../planner/physical.js";

/**
 * Spark 3.4+'s watermark propagation (its PropagateWatermarkSimulator), over the driver's tree: the
 * inputs carry the query's global watermark; each stateful operator's input watermark is the
 * minimum of what its inputs carry, and its output watermark is what the rows it emits can no
 * longer precede. So a window aggregation of a window aggregation's output is judged by the
 * first one's output watermark, never by the global one, and nothing the first emits is late
 * for the second. A join's or a union's input watermark is the minimum of its inputs' output
 * watermarks. Run once with the batch's eviction watermark and once with its late-events
 * watermark (the previous batch's).
 *
 * Returns each stateful operator's input watermark by operator id (null: the query has none).
 */
export function propagateWatermarks(root: DriverNode, globalMs: number | null): Map<number, number | null> {
  const byOperator = new Map<number, number | null>();
  // A watermark below 0 means none yet: operators read 0 (Spark clamps what they read, too).
  const clamp = (w: number | null) => (w === null ? null : Math.max(0, w));
  const visit = (node: DriverNode): number | null => {
    switch (node.kind) {
      case "pipelines":
        return globalMs;
      case "operators": {
        let w = visit(node.input);
        for (const op of node.operators) {
          // A withWatermark after a stateful operator (where no watermark reaches it): its rows
          // carry the global watermark on, as Spark's EventTimeWatermarkExec's output does.
          if (op.op === "observeEventTime") w = globalMs;
          if (!isStatefulSpec(op)) continue;
          byOperator.set(op.operatorId, clamp(w));
          w = outputWatermark(op, w);
        }
        return w;
      }
      case "join": {
        const w = minWatermark(visit(node.left), visit(node.right));
        byOperator.set(node.spec.operatorId, clamp(w));
        return outputWatermark(node.spec, w);
      }
      // The union's rows can precede no input's output watermark but the lowest; inputs whose
      // rows carry none (a processing-time transformWithState) do not count.
      case "union":
        return node.inputs.map(visit).reduce(minWatermark, null);
    }
  };
  visit(root);
  return byOperator;
}

/**
 * What an operator's output can no longer precede, given its input watermark: an aggregation
 * emits a window once its end is at or before the watermark, a deduplication passes rows on as
 * they come, so both keep the input's; a join may still emit rows as old as the oldest its state
 * keeps, so a time-range join lowers it to the lower of its sides' state watermarks (Spark's
 * produceOutputWatermark); transformWithState keeps it in event-time mode and has none in
 * processing-time mode. Values below 0 stay as they are on the way and read as 0.
 */
function outputWatermark(op: StatefulOperatorSpec, inputMs: number | null): number | null {
  // A processor's rows in processing-time mode have no event time the watermark could speak for.
  if (op.op === "transformWithState") return op.timeMode === "processingTime" ? null : inputMs;
  if (inputMs === null || op.op !== "streamJoin") return inputMs;
  const bounds = [op.leftState, op.rightState].flatMap((s) => (s?.kind === "value" ? [inputMs + s.offsetMs] : []));
  return Math.min(inputMs, ...bounds);
}

function minWatermark(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/**
 * For each operator of a driver chain, the stateful operator whose watermarks it runs with: its
 * own, or the next one's for the operators that prepare that one's input (an aggregation's
 * partial half on the driver drops late rows by the aggregation's watermark); operators after
 * the last stateful one take that one's.
 */
export function watermarkOwners(operators: readonly OperatorSpec[], inherited: number | null): (number | null)[] {
  const owners: (number | null)[] = new Array(operators.length).fill(null);
  let next: number | null = null;
  for (let i = operators.length - 1; i >= 0; i--) {
    const op = operators[i]!;
    if (isStatefulSpec(op)) next = op.operatorId;
    owners[i] = next;
  }
  let last = inherited;
  for (let i = 0; i < operators.length; i++) {
    const op = operators[i]!;
    if (isStatefulSpec(op)) last = op.operatorId;
    if (owners[i] === null) owners[i] = last;
  }
  return owners;
}
