import { threadId } from "node:worker_threads";
import { emptyBatch } from "../../batch/batch.js";
import { probeStaticJoin, type StaticProbe } from "../../operators/static-join-exec.js";
import { staticJoinRebuildCount, type StaticJoinTable } from "../../operators/static-join-table.js";
import { emptyMetrics } from "../../batch/task-metrics.js";
import type { InputTask as Task, InputTaskResult as TaskResult } from "../protocol.js";

/**
 * Test task module: probes a static join table with the task's input batch and logs, per task
 * (by batchId), the thread that ran it, how often that thread has rebuilt static tables so far,
 * and whether the table arrived in shared memory.
 */
export interface JoinControl {
  readonly tableId: string;
  readonly join: StaticProbe;
  /** Three slots per task: thread id, rebuild count, 1 when the table's arrays were shared. */
  readonly log: Int32Array;
}

export function runTask(task: Task): TaskResult {
  const control = task.staticTables["join"] as JoinControl;
  const table = task.staticTables[control.tableId] as StaticJoinTable;
  const input = task.split.kind === "batch" ? task.split.batch : emptyBatch([]);
  const batch = probeStaticJoin(input, table, control.join);
  const slot = 3 * task.context.batchId;
  const shared = [table.hash.slots, table.hash.next, ...table.keys.map((k) => (k.kind === "number" ? k.values : k.bytes))].every(
    (a) => a.buffer instanceof SharedArrayBuffer,
  );
  Atomics.store(control.log, slot, threadId);
  Atomics.store(control.log, slot + 1, staticJoinRebuildCount());
  Atomics.store(control.log, slot + 2, shared ? 1 : 0);
  return { kind: "input", batch, metrics: { ...emptyMetrics(0), numInputRows: input.numRows } };
}
