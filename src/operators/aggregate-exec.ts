import type { Batch } from "../batch/batch.js";
import type { AggregateSpec } from "../planner/physical.js";
import type { StateStore } from "../state/state-store.js";
import type { Fields } from "../types/dtype.js";
import { STATE_EVENT_TIME, aggregateLayout, outputFields, type AggregateLayout } from "./aggregate-layout.js";
import { emitRows } from "./aggregate-output.js";
import { GroupMerger } from "./group-merge.js";
import { SessionMerger } from "./session-merge.js";
import { StateBatchAccounting, type StateOperatorMetrics } from "./state-metrics.js";

export type AggregateOutputMode = "append" | "update" | "complete";

/**
 * The driver half of a streaming aggregation: merges the partial batches of each micro-batch
 * into versioned state and emits what the output mode asks for.
 *
 * - update: the final values of the groups this batch changed;
 * - complete: every group;
 * - append: the groups whose event-time key became final (window / session end, or timestamp
 *   key, at or before the watermark), each exactly once, since it is evicted as it is emitted.
 *
 * Final groups are evicted in append and update mode (as Spark does); complete mode keeps all.
 * Output rows are sorted by key (see `emitRows`).
 *
 * Per batch: `processPartials` (any number of calls), `finishBatch`, and a commit of the state,
 * either by `finishBatch(watermark, version)` or by `commit(version)` afterwards. Construct with
 * a store loaded at the version the first batch builds on.
 */
export class StatefulAggregateExec {
  private readonly layout: AggregateLayout;
  private readonly merger: { merge(partial: Batch, lateBy: number | null): number };
  private readonly accounting: StateBatchAccounting;
  /** Watermark of the last finished batch: groups final by it may already be gone. */
  private lastWatermarkMs: number | null = null;

  constructor(
    readonly spec: AggregateSpec,
    readonly outputMode: AggregateOutputMode,
    private readonly store: StateStore,
  ) {
    this.layout = aggregateLayout(spec);
    store.open(this.layout.stateSchema, this.operatorName);
    this.accounting = new StateBatchAccounting(store, this.operatorName);
    if (spec.window?.kind === "session") {
      const sessions = new SessionMerger(this.layout);
      this.merger = { merge: (partial, lateBy) => sessions.merge(store.table, store.generation, partial, lateBy) };
    } else {
      const groups = new GroupMerger(this.layout);
      this.merger = { merge: (partial, lateBy) => groups.merge(store.table, partial, lateBy) };
    }
  }

  get outputFields(): Fields {
    return outputFields(this.spec);
  }

  get operatorName(): string {
    return this.spec.window?.kind === "session" ? "sessionWindowStateStoreSave" : "stateStoreSave";
  }

  /** Merges partial batches (from `partialAggregate`) into state, in order. */
  processPartials(partials: readonly Batch[]): void {
    const lateBy = this.evicts() ? this.lastWatermarkMs : null;
    this.accounting.update(() => {
      for (const partial of partials) if (partial.numRows > 0) this.accounting.addDropped(this.merger.merge(partial, lateBy));
    });
  }

  /**
   * Emits this batch's output and evicts final state; commits it as `commitVersion` when given
   * (otherwise call `commit` before the next batch).
   */
  finishBatch(watermarkMs: number | null, commitVersion?: number): { output: Batch; metrics: StateOperatorMetrics } {
    const start = performance.now();
    const output = emitRows(this.layout, this.store.table, this.slotsToEmit(watermarkMs));
    const emitMs = performance.now() - start;
    const metrics = this.accounting.finish(this.evicts() ? STATE_EVENT_TIME : null, watermarkMs, commitVersion, emitMs);
    if (watermarkMs !== null) this.lastWatermarkMs = Math.max(watermarkMs, this.lastWatermarkMs ?? -Infinity);
    return { output, metrics };
  }

  /** Commits the finished batch's state as `version`; returns the commit time in ms. */
  commit(version: number): number {
    return this.accounting.commit(version);
  }

  /** Whether final groups leave state (and late rows are refused): append and update with an event-time key. */
  private evicts(): boolean {
    return this.outputMode !== "complete" && this.spec.eventTimeKey !== null;
  }

  private slotsToEmit(watermarkMs: number | null): Int32Array {
    const table = this.store.table;
    switch (this.outputMode) {
      case "complete":
        return table.liveSlots();
      case "update":
        return table.updatedSlots();
      case "append":
        return this.spec.eventTimeKey !== null && watermarkMs !== null ? table.slotsAtOrBelow(STATE_EVENT_TIME, watermarkMs) : new Int32Array(0);
    }
  }
}
