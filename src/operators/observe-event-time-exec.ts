import { type Batch, column, readNumbers, readValidity } from "../batch/batch.js";
import type { EventTimeStats } from "../batch/task-metrics.js";
import { BaseExec } from "./exec.js";

/** Min, max, sum and count of an event-time column (nulls ignored), folded into `prev`. */
export function observeEventTime(batch: Batch, name: string, prev: EventTimeStats | null): EventTimeStats | null {
  const data = column(batch, name);
  const times = readNumbers(data, name);
  const valid = readValidity(data);
  let min = prev?.min ?? Infinity;
  let max = prev?.max ?? -Infinity;
  let sum = prev?.sum ?? 0;
  let count = prev?.count ?? 0;
  for (let i = 0; i < times.length; i++) {
    if (valid && !valid[i]) continue;
    const t = times[i]!;
    if (t < min) min = t;
    if (t > max) max = t;
    sum += t;
    count++;
  }
  return count === 0 ? null : { min, max, sum, count };
}

/**
 * `withWatermark(column, delay)`: records the event times the batch carries (for the watermark
 * after this batch and for progress's `eventTime`), rows unchanged. Spark's EventTimeWatermarkExec.
 */
export class ObserveEventTimeExec extends BaseExec {
  constructor(
    readonly column: string,
    readonly watermarkIndex: number,
  ) {
    super();
  }

  process(batch: Batch): Batch {
    const stats = this.ctx.metrics.eventTime;
    stats[this.watermarkIndex] = observeEventTime(batch, this.column, stats[this.watermarkIndex] ?? null);
    return batch;
  }
}
