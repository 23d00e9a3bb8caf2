import type { OutputMode } from "../config/options.js";
import { statefulOperators, type PhysicalPlan } from "../planner/physical.js";

/**
 * Whether the query's stateful operators want a batch without new data once the watermark has
 * moved past the one the last batch ran with (Spark's shouldRunAnotherBatch): such a batch emits
 * what became final and evicts what expired without waiting for more input.
 *
 * - aggregations (windows, sessions, timestamp keys) in append and update mode; in complete
 *   mode nothing is emitted or evicted by the watermark, so a batch without data has nothing to do;
 * - deduplication in any mode (it forgets keys by the watermark);
 * - a stream-stream join whose state the watermark bounds (it evicts, and an outer join emits its
 *   NULL rows then);
 * - transformWithState with event-time timers (the watermark fires them) or processing-time
 *   timers and TTL, whose batches without data the driver asks for when one is due
 *   (`DriverStage.nextDueMs`).
 */
export function operatorsWantNoDataBatches(plan: PhysicalPlan, outputMode: OutputMode): boolean {
  return statefulOperators(plan).some((op) => {
    switch (op.op) {
      case "deduplicate":
        return true;
      case "finalAggregate":
      case "sessionMerge":
        return outputMode !== "complete";
      case "streamJoin":
        return op.leftState !== null || op.rightState !== null;
      case "transformWithState":
        return op.timeMode !== "none";
    }
  });
}
