import { AnalysisError } from "../errors/errors.js";
import type { DriverNode, OperatorSpec, PhysicalPlan } from "../planner/physical.js";

/**
 * Spark 3.5+ (with spark.sql.streaming.statefulOperator.allowMultiple at its default, true) gives
 * each stateful operator the watermark of its input, so a withWatermark on rows that a watermark
 * already reaches has no defined meaning and is refused (Spark's WatermarkPropagator, which finds it
 * in the first batch; Sluice at start()). A watermark reaches from its withWatermark through every
 * operator after it, stateless or stateful, except transformWithState in processing-time mode,
 * whose rows carry none (Spark 4's TransformWithStateExec.produceOutputWatermark); a join or a
 * union passes on what any of its inputs carries, and watermarks on separate inputs stay allowed.
 * So a withWatermark may follow a stateful operator only where none reaches it: after a
 * processing-time transformWithState, or after stateful operators whose inputs had no watermark.
 * Sluice has no setting for Spark's older single-global-watermark behaviour, so the refusal is
 * unconditional.
 */
export function checkWatermarkRedefinition(plan: PhysicalPlan): void {
  // The watermark columns that reach the end of a node's rows.
  const reaching = (node: DriverNode): readonly string[] => {
    switch (node.kind) {
      case "pipelines":
        return node.pipelines.flatMap((i) => through(plan.inputs[i]!.operators, [], "pipeline"));
      case "operators":
        return through(node.operators, reaching(node.input), "driver");
      case "join":
        return [...reaching(node.left), ...reaching(node.right)];
      case "union":
        return node.inputs.flatMap(reaching);
    }
  };
  reaching(plan.driver);
}

/** The watermark columns that reach the end of `operators`, given those reaching their input; refuses a redefinition. */
function through(operators: readonly OperatorSpec[], reached: readonly string[], where: "pipeline" | "driver"): readonly string[] {
  let carried = reached;
  for (const op of operators) {
    if (op.op === "observeEventTime") {
      if (carried.length > 0) throw redefined(op.column, carried[0]!, where);
      carried = [op.column];
    } else if (op.op === "transformWithState" && op.timeMode === "processingTime") {
      carried = [];
    }
  }
  return carried;
}

function redefined(column: string, reaching: string, where: "pipeline" | "driver"): AnalysisError {
  const base = `Redefining watermark is disallowed: withWatermark("${column}", ...) is applied to a stream that already has a watermark on "${reaching}"`;
  if (where === "pipeline") return new AnalysisError(`${base}; define one watermark per input stream`);
  return new AnalysisError(
    `${base}, which the stateful operators before it pass on; define one watermark per input stream, before its first stateful operator ` +
      "(a withWatermark may follow a stateful operator only where no watermark reaches it: after transformWithState in processing-time mode, " +
      "or after operators whose input has none)",
  );
}
