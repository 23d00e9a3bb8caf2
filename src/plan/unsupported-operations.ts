import type { OutputMode } from "../config/options.js";
import { AnalysisError } from "../errors/errors.js";
import { isAggregation, type PhysicalPlan } from "../planner/physical.js";

/**
 * Spark's UnsupportedOperationChecker for streaming queries: combinations of operators and output
 * modes whose results Spark cannot give correctly are rejected at `start()`, with Spark's reasons.
 */
export function checkStreamingQuery(plan: PhysicalPlan, mode: OutputMode): void {
  const aggregate = plan.driver.find(isAggregation)?.spec ?? null;

  if (aggregate && mode === "append" && !aggregate.eventTimeKey) {
    throw new AnalysisError(
      "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark",
    );
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
}
