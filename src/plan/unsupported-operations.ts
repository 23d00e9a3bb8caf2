import type { OutputMode } from "../config/options.js";
import { AnalysisError } from "../errors/errors.js";
import { isAggregation, type AggregateSpec, type OperatorSpec, type PhysicalPlan } from "../planner/physical.js";

/**
 * Spark's UnsupportedOperationChecker for streaming queries: combinations of operators and output
 * modes whose results Spark cannot give correctly are rejected at `start()`, with Spark's reasons.
 * The order follows Spark's: output-mode rules, then operators, then what Spark only finds when it
 * plans (global session windows) or runs (redefined watermarks) the first batch.
 */
export function checkStreamingQuery(plan: PhysicalPlan, mode: OutputMode): void {
  const aggregate = plan.driver.find(isAggregation)?.spec ?? null;
  const sessionWindowed = aggregate?.window?.kind === "session";

  if (aggregate && mode === "append" && !aggregate.eventTimeKey) {
    throw new AnalysisError(
      "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark",
    );
  }
  // A session grows and merges with its neighbours until the watermark closes it, so a row emitted
  // as "updated" may later vanish into another session: no sink could apply such updates.
  if (sessionWindowed && mode === "update") {
    throw new AnalysisError("Update output mode not supported for session window on streaming DataFrames/DataSets");
  }
  if (mode === "complete" && !aggregate) {
    throw new AnalysisError(
      "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets",
    );
  }
  if (plan.driver.some((op) => op.op === "sort") && !(aggregate && mode === "complete")) {
    throw new AnalysisError(
      "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode",
    );
  }
  if (plan.driver.some((op) => op.op === "limit")) {
    if (mode === "update") throw new AnalysisError("Limits are not supported on streaming DataFrames/Datasets in Update output mode");
    if (!(aggregate && mode === "complete")) {
      throw new AnalysisError("Sluice supports limit on a streaming DataFrame only after an aggregation in Complete output mode");
    }
  }
  if (sessionWindowed) checkSessionKeys(aggregate);
  checkSingleWatermarkPerPath(plan);
}

/**
 * Streaming session state is kept per value of the other grouping keys (Spark's MergingSessionsExec
 * sorts and merges sessions within one key); with no other key every session of the stream would
 * sit under one key, so Spark's planner refuses it (static queries allow it).
 */
function checkSessionKeys(aggregate: AggregateSpec): void {
  if (aggregate.numPlainKeys === 0) {
    throw new AnalysisError("Global aggregation with session window in streaming query is not supported.");
  }
}

/**
 * Spark 3.5+ (with spark.sql.streaming.statefulOperator.allowMultiple at its default, true) gives
 * each stateful operator the watermark of its input, so a second watermark on a path that already
 * carries one has no defined meaning and is refused (Spark's WatermarkPropagator). A path runs from
 * one source through its pipeline and then the driver's operators, which see every pipeline's rows;
 * watermarks on separate branches of a union are separate inputs and stay allowed. Sluice has no
 * setting for Spark's older single-global-watermark behaviour, so the refusal is unconditional.
 */
function checkSingleWatermarkPerPath(plan: PhysicalPlan): void {
  const onDriver = plan.driver.filter(isWatermark);
  for (const pipeline of plan.inputs) {
    const [first, second] = [...pipeline.operators.filter(isWatermark), ...onDriver];
    if (first && second) {
      throw new AnalysisError(
        `Redefining watermark is disallowed: withWatermark("${second.column}", ...) is applied to a stream that already has a watermark on "${first.column}"; ` +
          "define one watermark per input stream",
      );
    }
  }
}

function isWatermark(op: OperatorSpec): op is Extract<OperatorSpec, { op: "observeEventTime" }> {
  return op.op === "observeEventTime";
}
