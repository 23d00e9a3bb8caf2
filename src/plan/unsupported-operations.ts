import type { OutputMode } from "../config/options.js";
import { STATEFUL_OPERATOR_CHECK_CORRECTNESS } from "../config/sql-conf.js";
import { AnalysisError } from "../errors/errors.js";
import { checkStreamJoin } from "../planner/plan-join.js";
import { driverOperators, isAggregation, isStatefulSpec, type AggregateSpec, type DriverNode, type PhysicalPlan } from "../planner/physical.js";
import { checkWatermarkRedefinition } from "./watermark-redefinition.js";

/** The settings the checks read (Spark's SQL conf). */
export interface StreamingChecks {
  /**
   * spark.sql.streaming.statefulOperator.checkCorrectness.enabled: whether a stateful operator
   * after an aggregation in update or complete mode is refused (true) or only warned of (false).
   */
  readonly checkCorrectness: boolean;
}

/**
 * Spark's UnsupportedOperationChecker for streaming queries: combinations of operators and output
 * modes whose results Spark cannot give correctly are rejected at `start()`, with Spark's reasons.
 * The order follows Spark's: output-mode rules, then operators, then what Spark only finds when it
 * plans (global session windows) or runs (redefined watermarks) the first batch.
 */
export function checkStreamingQuery(plan: PhysicalPlan, mode: OutputMode, checks: StreamingChecks = { checkCorrectness: true }): void {
  const operators = driverOperators(plan);
  const aggregations = operators.filter(isAggregation);
  const aggregated = aggregations.length > 0;
  const sessionWindowed = aggregations.some((a) => a.spec.window?.kind === "session");

  // In append mode an aggregation emits a group once the watermark closes it: without a
  // watermarked key, never. Spark's checker looks at the first aggregation it meets from the sink
  // (with a union, the first input's); another one without a watermark fails Spark's first batch
  // ("Watermark needs to be defined for streaming aggregation query in append mode"). Sluice
  // refuses every such aggregation at start(), with the checker's reason.
  if (mode === "append" && aggregations.some((a) => !a.spec.eventTimeKey)) {
    throw new AnalysisError(
      "Append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark",
    );
  }
  // A session grows and merges with its neighbours until the watermark closes it, so a row emitted
  // as "updated" may later vanish into another session: no sink could apply such updates.
  if (sessionWindowed && mode === "update") {
    throw new AnalysisError("Update output mode not supported for session window on streaming DataFrames/DataSets");
  }
  if (mode === "complete" && !aggregated) {
    throw new AnalysisError(
      "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames/Datasets",
    );
  }
  if (operators.some((op) => op.op === "sort") && !(aggregated && mode === "complete")) {
    throw new AnalysisError(
      "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode",
    );
  }
  if (operators.some((op) => op.op === "limit")) {
    if (mode === "update") throw new AnalysisError("Limits are not supported on streaming DataFrames/Datasets in Update output mode");
    if (!(aggregated && mode === "complete")) {
      throw new AnalysisError("Sluice supports limit on a streaming DataFrame only after an aggregation in Complete output mode");
    }
  }
  for (const join of operators.filter((op) => op.op === "streamJoin")) {
    if (mode !== "append") {
      throw new AnalysisError(`Join between two streaming DataFrames/Datasets is not supported in ${sparkModeName(mode)} output mode, only in Append output mode`);
    }
    checkStreamJoin(join);
  }
  for (const a of aggregations) if (a.spec.window?.kind === "session") checkSessionKeys(a.spec);
  if (hasCorrectnessIssue(plan.driver, mode)) {
    // As Spark, with the check off: say what may go wrong, and run the query.
    if (!checks.checkCorrectness) console.warn(`${STATEFUL_OPERATOR_CHECK_CORRECTNESS} is false, so the query runs: ${CORRECTNESS_ISSUE}`);
    else throw new AnalysisError(`${CORRECTNESS_ISSUE} ${CORRECTNESS_FIX}`);
  }
  checkWatermarkRedefinition(plan);
}

function sparkModeName(mode: OutputMode): string {
  return mode[0]!.toUpperCase() + mode.slice(1);
}

/**
 * Spark's check against a global-watermark correctness issue (checkStreamingQueryGlobalWatermarkLimit):
 * an aggregation in update or complete mode emits a group again and again, each time with an event
 * time the watermark may have passed, so a stateful operator after it may drop those rows as
 * late. Such chains are refused unless spark.sql.streaming.statefulOperator.checkCorrectness.enabled
 * is false; in append mode every operator emits final rows only, and chains (deduplication ->
 * aggregation, join -> aggregation, aggregation -> aggregation) are allowed. A deduplication
 * counts as stateful here only when it keys on event time or drops duplicates within the
 * watermark (otherwise it keeps no watermark-bound state).
 */
function hasCorrectnessIssue(root: DriverNode, mode: OutputMode): boolean {
  if (mode === "append") return false;
  let found = false;
  // Whether an aggregation is at or below the node (its rows may be re-emitted groups).
  const visit = (node: DriverNode): boolean => {
    switch (node.kind) {
      case "pipelines":
        return false;
      case "join": {
        const below = [visit(node.left), visit(node.right)].some(Boolean);
        found ||= below;
        return below;
      }
      case "operators": {
        let below = visit(node.input);
        for (const op of node.operators) {
          if (!isStatefulSpec(op)) continue;
          const watermarkBound = op.op !== "deduplicate" || op.eventTimeColumn !== null;
          found ||= below && watermarkBound;
          if (isAggregation(op)) below = true;
        }
        return below;
      }
      // A union re-emits its inputs' rows: an aggregation below any input is below what follows.
      case "union":
        return node.inputs.map(visit).some(Boolean);
    }
  };
  visit(root);
  return found;
}

/** Spark's message, word for word (its fix included: the setting that lets such a query run). */
const CORRECTNESS_ISSUE =
  "Detected pattern of possible 'correctness' issue due to global watermark. The query contains stateful operation which can emit rows older than the current watermark plus allowed late record delay, " +
  'which are "late rows" in downstream stateful operations and these rows can be discarded. Please refer the programming guide doc for more details. ' +
  "If you understand the possible risk of correctness issue and still need to run the query, you can disable this check by setting the config " +
  `\`${STATEFUL_OPERATOR_CHECK_CORRECTNESS}\` to false.`;

const CORRECTNESS_FIX =
  "To avoid the issue instead, run the query in append mode, or write the aggregation's updates to a sink and run the next stateful operator on them in another query.";

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
