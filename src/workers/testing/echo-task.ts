import { resourceLimits, threadId } from "node:worker_threads";
import { emptyBatch } from "../../batch/batch.js";
import { emptyMetrics } from "../../batch/task-metrics.js";
import type { InputTask as Task, InputTaskResult as TaskResult } from "../protocol.js";

/**
 * Test task module: returns its input batch unchanged. `staticTables.echo` may ask it to sleep
 * first (to show tasks running side by side) and receives the thread id that ran it.
 */
export interface EchoControl {
  readonly sleepMs?: number;
  /** Int32Array over a SharedArrayBuffer: slot [task index] gets the thread id. */
  readonly threads?: Int32Array;
  readonly index?: number;
  /**
   * Int32Array over a SharedArrayBuffer: slot 0 counts tasks that arrived; each task waits (up to
   * 5 s) until `meetCount` have arrived, and sets slot 1 + index to 1 if they did. Tasks that meet
   * ran at the same time: proof of parallelism that does not depend on timing.
   */
  readonly meet?: Int32Array;
  readonly meetCount?: number;
  /** Float64Array over a SharedArrayBuffer: gets the thread's young and old generation limits (MiB). */
  readonly limits?: Float64Array;
}

export async function runTask(task: Task): Promise<TaskResult> {
  const control = (task.staticTables["echo"] ?? {}) as EchoControl;
  if (control.sleepMs) await new Promise((resolve) => setTimeout(resolve, control.sleepMs));
  if (control.threads && control.index !== undefined) Atomics.store(control.threads, control.index, threadId);
  if (control.limits) control.limits.set([resourceLimits.maxYoungGenerationSizeMb ?? NaN, resourceLimits.maxOldGenerationSizeMb ?? NaN]);
  if (control.meet && control.index !== undefined) {
    Atomics.add(control.meet, 0, 1);
    const deadline = Date.now() + 5000;
    while (Atomics.load(control.meet, 0) < (control.meetCount ?? 2) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (Atomics.load(control.meet, 0) >= (control.meetCount ?? 2)) Atomics.store(control.meet, 1 + control.index, 1);
  }
  const batch = task.split.kind === "batch" ? task.split.batch : emptyBatch([]);
  return { kind: "input", batch, metrics: { ...emptyMetrics(1), numInputRows: batch.numRows, eventTime: [{ min: 1, max: 2, sum: 3, count: 2 }] } };
}
