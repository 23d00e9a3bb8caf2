import type { Batch } from "../batch/batch.js";
import { InternalError } from "../errors/errors.js";
import type { AggregateSpec } from "../planner/physical.js";
import type { StateStore } from "../state/state-store.js";
import type { Fields } from "../types/dtype.js";
import { STATE_EVENT_TIME, aggregateLayout, outputFields, type AggregateLayout } from "./aggregate-layout.js";
import { emitRows } from "./aggregate-output.js";
import { BaseExec, type ExecContext, type StatefulExec } from "./exec.js";
import { StateBatchAccounting, type StateOperatorMetrics } from "./state-metrics.js";

/** Merges one partial batch into the state table; returns the input rows it dropped as late. */
export interface PartialMerger {
  merge(store: StateStore, partial: Batch, lateBy: number | null): number;
}

/**
 * The driver half of a streaming aggregation (Spark's StateStoreSaveExec and its session-window
 * kin): merges the partial batches of each micro-batch into versioned state and, when the
 * micro-batch's input is done, emits what the output mode asks for.
 *
 * - update: the final values of the groups this batch changed;
 * - complete: every group;
 * - append: the groups whose event-time key became final (window / session end, or timestamp
 *   key, at or before the watermark), each exactly once, since it is evicted as it is emitted.
 *
 * Final groups are evicted in append and update mode (as Spark does); complete mode keeps all.
 * Output rows are sorted by key (see `emitRows`). Subclasses choose how partial rows meet state:
 * one row per key (FinalAggregateExec) or sessions that merge (SessionMergeExec).
 */
export abstract class AggregateStateExec extends BaseExec implements StatefulExec {
  protected readonly layout: AggregateLayout;
  private store: StateStore | null = null;
  private merger: PartialMerger | null = null;
  private accounting: StateBatchAccounting | null = null;
  private metrics: StateOperatorMetrics | null = null;

  constructor(
    readonly operatorId: number,
    readonly spec: AggregateSpec,
  ) {
    super();
    this.layout = aggregateLayout(spec);
  }

  abstract readonly operatorName: string;

  protected abstract createMerger(): PartialMerger;

  get outputFields(): Fields {
    return outputFields(this.spec);
  }

  override open(ctx: ExecContext): void {
    super.open(ctx);
    const store = ctx.stateStore(this.operatorId);
    store.open(this.layout.stateSchema, this.operatorName);
    this.store = store;
    this.merger = this.createMerger();
    this.accounting = new StateBatchAccounting(store, this.operatorName);
  }

  /**
   * Merges a partial batch (from PartialAggregateExec) into state; emits nothing yet. Groups final
   * by the previous batch's watermark were emitted and evicted then: rows for them are late.
   */
  process(partial: Batch): null {
    const lateBy = this.evicts() ? this.ctx.batch.watermarkForLateEventsMs : null;
    const { store, merger, accounting } = this.opened();
    accounting.update(() => {
      if (partial.numRows > 0) accounting.addDropped(merger.merge(store, partial, lateBy));
    });
    return null;
  }

  /** Emits this batch's output and evicts final state. */
  override onWatermark(watermarkMs: number | null): Batch {
    const { store, accounting } = this.opened();
    const start = performance.now();
    const output = emitRows(this.layout, store.table, this.slotsToEmit(store, watermarkMs));
    const emitMs = performance.now() - start;
    this.metrics = accounting.finish(this.evicts() ? STATE_EVENT_TIME : null, watermarkMs, undefined, emitMs);
    return output;
  }

  override commit(version: number): void {
    const commitTimeMs = this.opened().accounting.commit(version);
    if (this.metrics) this.metrics = { ...this.metrics, commitTimeMs: Math.round(commitTimeMs) };
  }

  lastMetrics(): StateOperatorMetrics | null {
    return this.metrics;
  }

  private opened(): { store: StateStore; merger: PartialMerger; accounting: StateBatchAccounting } {
    const { store, merger, accounting } = this;
    if (store === null || merger === null || accounting === null) throw new InternalError(`${this.operatorName} was used before open()`);
    return { store, merger, accounting };
  }

  /** Whether final groups leave state (and late rows are refused): append and update with an event-time key. */
  private evicts(): boolean {
    return this.ctx.outputMode !== "complete" && this.spec.eventTimeKey !== null;
  }

  private slotsToEmit(store: StateStore, watermarkMs: number | null): Int32Array {
    const table = store.table;
    switch (this.ctx.outputMode) {
      case "complete":
        return table.liveSlots();
      case "update":
        return table.updatedSlots();
      case "append":
        return this.spec.eventTimeKey !== null && watermarkMs !== null ? table.slotsAtOrBelow(STATE_EVENT_TIME, watermarkMs) : new Int32Array(0);
    }
  }
}
