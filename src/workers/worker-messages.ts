import type { Task, TaskResult } from "./protocol.js";
import type { PackedResult, PackedTask } from "./transfer.js";
import type { PackedError } from "./transfer-error.js";

/** What the driver's `TaskPool` and its worker threads (./worker-entry.ts) say to each other. */

export interface WorkerData {
  readonly taskModule: string;
}

export interface WorkerRequest {
  readonly task: PackedTask;
  /** Echoed in the TaskStarted message, so the driver knows which attempt began. */
  readonly attemptId: number;
}

/**
 * Posted to the driver (piscina emits it as the pool's "message" event) when a worker begins an
 * attempt: the attempt's timeout counts from here, not from when it was queued to a worker that
 * may still be starting.
 */
export interface TaskStarted {
  readonly taskStarted: number;
}

export function isTaskStarted(message: unknown): message is TaskStarted {
  return typeof message === "object" && message !== null && typeof (message as TaskStarted).taskStarted === "number";
}

/**
 * A task's outcome. A task that throws is reported as data rather than rethrown, so the error
 * keeps its class and fields across the thread boundary (structured clone would keep only the
 * message); piscina's own rejections then mean only one thing: the worker died.
 */
export type WorkerReply = { readonly ok: true; readonly result: PackedResult } | { readonly ok: false; readonly error: PackedError };

export type RunTask = (task: Task) => TaskResult | Promise<TaskResult>;

export async function loadRunTask(moduleHref: string): Promise<RunTask> {
  const mod = (await import(moduleHref)) as { runTask?: unknown };
  if (typeof mod.runTask !== "function") throw new TypeError(`task module ${moduleHref} does not export a runTask function`);
  return mod.runTask as RunTask;
}

