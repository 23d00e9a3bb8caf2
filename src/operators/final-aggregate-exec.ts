import { AggregateStateExec, type PartialMerger } from "./aggregate-state-exec.js";
import { GroupMerger } from "./group-merge.js";

/**
 * Final aggregation of `groupBy(...).agg(...)` without a session window: one state row per group
 * (key columns, tumbling or sliding window included), partial rows merged into it.
 */
export class FinalAggregateExec extends AggregateStateExec {
  readonly operatorName = "stateStoreSave";

  protected createMerger(): PartialMerger {
    const groups = new GroupMerger(this.layout);
    return { merge: (store, partial, lateBy) => groups.merge(store.table, partial, lateBy) };
  }
}
