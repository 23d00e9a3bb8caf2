import type { WatermarkSpec } from "../planner/physical.js";
import type { EventTimeStats } from "../batch/task-metrics.js";

/**
 * Event-time watermarks, as Spark computes them: for each `withWatermark`, the maximum event time
 * seen minus its delay, never moving back; the query's watermark is the minimum over inputs (the
 * safe choice: no input's on-time data is dropped). A batch uses the watermark computed after
 * the previous batch.
 */
export class WatermarkTracker {
  private readonly perInput: (number | null)[];
  private global: number | null;

  constructor(
    private readonly specs: readonly WatermarkSpec[],
    restored?: { perInput: readonly (number | null)[]; global: number | null },
  ) {
    this.perInput = restored ? [...restored.perInput] : specs.map(() => null);
    this.global = restored?.global ?? null;
  }

  get hasWatermark(): boolean {
    return this.specs.length > 0;
  }

  /** The watermark in force for the next batch. */
  get current(): number | null {
    return this.global;
  }

  get inputs(): readonly (number | null)[] {
    return this.perInput;
  }

  /** Folds one batch's observed event times in; returns true when the global watermark moved. */
  update(stats: readonly (EventTimeStats | null)[]): boolean {
    if (this.specs.length === 0) return false;
    stats.forEach((s, i) => {
      if (!s || s.count === 0) return;
      const candidate = s.max - this.specs[i]!.delayMs;
      const prev = this.perInput[i] ?? null;
      if (prev === null || candidate > prev) this.perInput[i] = candidate;
    });
    // Until every input has seen data, an input without a watermark holds the global one back.
    if (this.perInput.some((w) => w === null)) return false;
    const next = Math.min(...(this.perInput as number[]));
    if (this.global === null || next > this.global) {
      this.global = next;
      return true;
    }
    return false;
  }
}
