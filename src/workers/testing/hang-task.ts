import { isMainThread, threadId } from "node:worker_threads";
import type { InputTask as Task, InputTaskResult as TaskResult } from "../protocol.js";
import { runTask as echo } from "./echo-task.js";

/**
 * Test task module whose first `hangs` attempts never finish, then behaves like the echo task.
 * Attempts are logged as the flaky task logs them: `log[0]` counts attempts, `log[n]` is the thread
 * id of attempt n. A task without `staticTables.hang` is an echo task.
 */
export interface HangControl {
  readonly log: Int32Array;
  readonly hangs: number;
  /**
   * "spin": a loop that never yields, which only terminating the thread ends (workers only: on the
   * driver it would hang the test run). "wait": awaits a promise that never settles.
   */
  readonly how: "spin" | "wait";
}

export async function runTask(task: Task): Promise<TaskResult> {
  const control = task.staticTables["hang"] as HangControl | undefined;
  if (!control) return await echo(task);
  const attempt = Atomics.add(control.log, 0, 1) + 1;
  Atomics.store(control.log, attempt, threadId);
  if (attempt <= control.hangs) {
    if (control.how === "wait") return await new Promise<never>(() => {});
    if (isMainThread) throw new Error("spin mode needs a worker thread");
    for (;;) Atomics.load(control.log, 0);
  }
  return await echo(task);
}
