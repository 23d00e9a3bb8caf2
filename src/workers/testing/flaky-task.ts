import { isMainThread, threadId } from "node:worker_threads";
import { MalformedRecordError } from "../../errors/errors.js";
import type { InputTask as Task, InputTaskResult as TaskResult } from "../protocol.js";
import { runTask as echo } from "./echo-task.js";

/**
 * Test task module that fails its first `failures` attempts, then behaves like the echo task.
 * Attempts are counted in a SharedArrayBuffer that every worker sees: `log[0]` is the number of
 * attempts so far, `log[n]` the thread id of attempt n. A task without `staticTables.flaky` is an
 * echo task.
 */
export interface FlakyControl {
  readonly log: Int32Array;
  readonly failures: number;
  readonly how: "throw" | "exit" | "uncaught" | "malformed" | "custom";
  /** When given, `times[n]` gets the wall-clock time (epoch ms) at which attempt n started. */
  readonly times?: Float64Array;
}

/** An error class only the worker knows: it cannot be rebuilt on the driver. */
export class QuirkyError extends Error {
  override name = "QuirkyError";
}

export async function runTask(task: Task): Promise<TaskResult> {
  const control = task.staticTables["flaky"] as FlakyControl | undefined;
  if (!control) return await echo(task);
  const attempt = Atomics.add(control.log, 0, 1) + 1;
  Atomics.store(control.log, attempt, threadId);
  if (control.times) control.times[attempt] = performance.timeOrigin + performance.now();
  if (attempt <= control.failures) {
    switch (control.how) {
      case "throw":
        throw new RangeError(`attempt ${attempt} failed`);
      case "custom":
        throw new QuirkyError(`attempt ${attempt} failed oddly`);
      case "malformed":
        throw new MalformedRecordError(`bad record on attempt ${attempt}`, "/data/in.jsonl", 7);
      case "exit":
        // Ends only this worker thread; on the main thread it would end the test run.
        if (isMainThread) throw new Error("exit mode needs a worker thread");
        process.exit(1);
        break;
      case "uncaught":
        // Escapes the task: the worker dies of an uncaught exception while the task never settles.
        setTimeout(() => {
          throw new TypeError(`uncaught on attempt ${attempt}`);
        }, 0);
        return await new Promise<never>(() => {});
    }
  }
  return await echo(task);
}
