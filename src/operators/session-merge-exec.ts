import { AggregateStateExec, type PartialMerger } from "./aggregate-state-exec.js";
import { SessionMerger } from "./session-merge.js";

/**
 * Final aggregation over `session_window(col, gap)` (Spark's MergingSessionsExec and
 * SessionWindowStateStoreSaveExec in one): state holds each key's sessions, and an incoming
 * partial session that overlaps or touches some of them merges them into one.
 */
export class SessionMergeExec extends AggregateStateExec {
  readonly operatorName = "sessionWindowStateStoreSave";

  protected createMerger(): PartialMerger {
    const sessions = new SessionMerger(this.layout);
    return { merge: (store, partial, lateBy) => sessions.merge(store.table, store.generation, partial, lateBy) };
  }
}
