import type { WatermarkSpec } from "../planner/physical.js";
import type { EventTimeStats } from "../batch/task-metrics.js";
import type { WatermarkPolicy } from "../config/sql-conf.js";

/** Spark's MultipleWatermarkPolicy: how the global watermark is chosen from the inputs' watermarks. */
const CHOOSE: Readonly<Record<WatermarkPolicy, (watermarks: readonly number[]) => number>> = {
  // The safe default: the global watermark moves only when every input's has, so no input's
  // on-time rows are dropped or evicted because another input runs ahead.
  min: (ws) => Math.min(...ws),
  // The global watermark moves with the fastest input; rows of a slower one may be dropped as late.
  max: (ws) => Math.max(...ws),
};

/**
 * Event-time watermarks, as Spark's WatermarkTracker computes them: for each `withWatermark`, the
 * maximum event time seen minus its delay, never moving back; the query's (global) watermark is
 * the minimum over inputs, or the maximum under spark.sql.streaming.multipleWatermarkPolicy
 * "max", an input without data yet counting as 0. The global watermark starts at 0 and only moves
 * forward, so it is never negative, even when the first events are within the delay of the
 * epoch. A batch uses the watermark computed after the previous batch.
 *
 * Only the global watermark outlives a run (it is in the offsets and commits logs): a restarted
 * query starts its inputs afresh, so an input that was ahead of the global watermark must get
 * past it again before it moves (as in Spark). The policy outlives it too (runtime/relayed-conf.ts).
 */
export class WatermarkTracker {
  private readonly perInput: (number | null)[];
  private global: number;

  constructor(
    private readonly specs: readonly WatermarkSpec[],
    private readonly policy: WatermarkPolicy,
    restoredGlobal: number | null = null,
  ) {
    this.perInput = specs.map(() => null);
    this.global = Math.max(0, restoredGlobal ?? 0);
  }

  /** The watermark in force for the next batch; null when the query defines none. */
  get current(): number | null {
    return this.specs.length > 0 ? this.global : null;
  }

  /** Folds one batch's observed event times in; returns true when the global watermark moved. */
  update(stats: readonly (EventTimeStats | null)[]): boolean {
    if (this.specs.length === 0) return false;
    const perInput = this.perInputAfter(stats);
    perInput.forEach((w, i) => (this.perInput[i] = w));
    const chosen = CHOOSE[this.policy](perInput.map((w) => w ?? 0));
    if (chosen <= this.global) return false;
    this.global = chosen;
    return true;
  }

  /** The watermark `update(stats)` would put in force, without folding them in. */
  peek(stats: readonly (EventTimeStats | null)[]): number | null {
    if (this.specs.length === 0) return null;
    return Math.max(this.global, CHOOSE[this.policy](this.perInputAfter(stats).map((w) => w ?? 0)));
  }

  private perInputAfter(stats: readonly (EventTimeStats | null)[]): (number | null)[] {
    return this.perInput.map((prev, i) => {
      const s = stats[i];
      if (!s || s.count === 0) return prev;
      const candidate = s.max - this.specs[i]!.delayMs;
      return prev === null || candidate > prev ? candidate : prev;
    });
  }
}
