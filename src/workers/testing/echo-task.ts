import { threadId } from "node:worker_threads";
import { emptyBatch } from "../../batch/batch.js";
import { emptyMetrics, type Task, type TaskResult } from "../protocol.js";

/**
 * Test task module: returns its input batch unchanged. `staticTables.echo` may ask it to sleep
 * first (to show tasks running side by side) and receives the thread id that ran it.
 */
export interface EchoControl {
  readonly sleepMs?: number;
  /** Int32Array over a SharedArrayBuffer: slot [task index] gets the thread id. */
  readonly threads?: Int32Array;
  readonly index?: number;
}

export async function runTask(task: Task): Promise<TaskResult> {
  const control = (task.staticTables["echo"] ?? {}) as EchoControl;
  if (control.sleepMs) await new Promise((resolve) => setTimeout(resolve, control.sleepMs));
  if (control.threads && control.index !== undefined) Atomics.store(control.threads, control.index, threadId);
  const batch = task.split.kind === "batch" ? task.split.batch : emptyBatch([]);
  return { batch, metrics: { ...emptyMetrics(1), numInputRows: batch.numRows, eventTime: [{ min: 1, max: 2, sum: 3, count: 2 }] } };
}
