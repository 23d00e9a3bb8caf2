import type { StateStore } from "../state/state-store.js";
import type { StateTable } from "../state/state-table.js";

/**
 * What a stateful operator reports for one batch, under Spark's `StateOperatorProgress` names.
 * The driver adds the rows that workers dropped as late to `numRowsDroppedByWatermark`.
 */
export interface StateOperatorMetrics {
  /** "stateStoreSave" (aggregation), "sessionWindowStateStoreSave", "dedupe" or "dedupeWithinWatermark". */
  readonly operatorName: string;
  /** Rows (groups, sessions, keys) in state after this batch. */
  readonly numRowsTotal: number;
  /** Rows inserted or changed by this batch. */
  readonly numRowsUpdated: number;
  /** Rows evicted by the watermark in this batch. */
  readonly numRowsRemoved: number;
  /** Input rows this operator itself dropped as late. */
  readonly numRowsDroppedByWatermark: number;
  /** Estimated bytes held by the working state. */
  readonly memoryUsedBytes: number;
  /** Time to commit the state version; 0 when the batch was finished without committing. */
  readonly commitTimeMs: number;
  readonly allUpdatesTimeMs: number;
  readonly allRemovalsTimeMs: number;
  /** Operator-specific figures (Spark's customMetrics), e.g. a transformWithState's timers. */
  readonly customMetrics?: Readonly<Record<string, number>>;
}

/**
 * The per-batch bookkeeping every stateful operator shares: time spent updating, rows dropped as
 * late, eviction, and the commit that closes a batch. A batch's state must be committed before
 * the next batch starts, since "updated in this batch" is "updated since the last commit".
 */
export class StateBatchAccounting {
  private updateMs = 0;
  private droppedRows = 0;
  private awaitingCommit = false;

  constructor(
    private readonly store: StateStore,
    private readonly operatorName: string,
  ) {}

  /** Runs batch work, timed as updates. */
  update<T>(work: () => T): T {
    if (this.awaitingCommit) {
      throw new Error(`${this.operatorName}: the previous batch was finished but its state was not committed; call commit(version) first`);
    }
    const start = performance.now();
    try {
      return work();
    } finally {
      this.updateMs += performance.now() - start;
    }
  }

  addDropped(rows: number): void {
    this.droppedRows += rows;
  }

  /**
   * Closes the batch: evicts the live rows whose f64 column `evictBy` is at or before the
   * watermark (when `evictBy` is not null), then commits as `commitVersion` when given.
   */
  finish(evictBy: number | null, watermarkMs: number | null, commitVersion: number | undefined, extraUpdateMs = 0): StateOperatorMetrics {
    const table = this.store.table;
    const numRowsUpdated = table.updatedSlots().length;
    const removalStart = performance.now();
    const numRowsRemoved = evictBy !== null && watermarkMs !== null ? table.removeAtOrBelow(evictBy, watermarkMs) : 0;
    const allRemovalsTimeMs = performance.now() - removalStart;
    this.awaitingCommit = true;
    const commitTimeMs = commitVersion === undefined ? 0 : this.commit(commitVersion);
    const metrics: StateOperatorMetrics = {
      operatorName: this.operatorName,
      numRowsTotal: this.store.table.size,
      numRowsUpdated,
      numRowsRemoved,
      numRowsDroppedByWatermark: this.droppedRows,
      memoryUsedBytes: this.store.table.memoryBytes(),
      commitTimeMs: Math.round(commitTimeMs),
      allUpdatesTimeMs: Math.round(this.updateMs + extraUpdateMs),
      allRemovalsTimeMs: Math.round(allRemovalsTimeMs),
    };
    this.updateMs = 0;
    this.droppedRows = 0;
    return metrics;
  }

  /** Commits the batch's state as `version`; returns the time it took in ms. */
  commit(version: number): number {
    const start = performance.now();
    this.store.commit(version);
    this.awaitingCommit = false;
    return performance.now() - start;
  }
}

