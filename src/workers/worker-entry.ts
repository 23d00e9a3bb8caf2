import { Piscina } from "piscina";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type { Task, TaskResult } from "./protocol.js";
import { packResult, unpackTask, type PackedResult, type PackedTask } from "./transfer.js";
import { packError, type PackedError } from "./transfer-error.js";

/**
 * What each worker thread of a `TaskPool` runs. The pool passes the URL of the module that
 * exports `runTask` as worker data; it is imported once per worker and kept, so per-worker
 * caches inside it (decoders, connections, static join tables) live as long as the thread.
 */

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

let runTaskOnce: Promise<RunTask> | undefined;

export async function loadRunTask(moduleHref: string): Promise<RunTask> {
  const mod = (await import(moduleHref)) as { runTask?: unknown };
  if (typeof mod.runTask !== "function") throw new TypeError(`task module ${moduleHref} does not export a runTask function`);
  return mod.runTask as RunTask;
}

// Loading the task module is part of a worker's start-up, not of its first task: piscina marks a
// worker ready only once this module has loaded, so the import is awaited here and a task's
// timeout never counts it. A failed import is reported by the first task (which tries again).
if (!isMainThread && (workerData as WorkerData | undefined)?.taskModule) {
  runTaskOnce = loadRunTask((workerData as WorkerData).taskModule);
  await runTaskOnce.then(
    () => undefined,
    () => undefined,
  );
}

export async function runPackedTask(request: WorkerRequest): Promise<unknown> {
  parentPort?.postMessage({ taskStarted: request.attemptId } satisfies TaskStarted);
  let reply: WorkerReply;
  let transfer: ArrayBuffer[] = [];
  try {
    runTaskOnce ??= loadRunTask((workerData as WorkerData).taskModule);
    // A failed import is not cached: the next task tries again.
    const runTask = await runTaskOnce.catch((error: unknown) => {
      runTaskOnce = undefined;
      throw error;
    });
    const result = await runTask(unpackTask(request.task));
    // The result's buffers are moved, not copied: the worker keeps nothing of a finished task.
    const packed = packResult(result, "transfer");
    reply = { ok: true, result: packed.payload };
    transfer = packed.transfer;
  } catch (error) {
    reply = { ok: false, error: packError(error) };
  }
  // piscina's "movable" shape: the value to post plus the buffers to transfer with it.
  const movable = { [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: reply };
  return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]);
}
