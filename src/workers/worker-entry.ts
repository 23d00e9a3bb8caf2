import { Piscina } from "piscina";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { loadRunTask, type RunTask, type TaskStarted, type WorkerData, type WorkerReply, type WorkerRequest } from "./worker-messages.js";
import { packResult, unpackTask, type PackedResult, type PackedTask } from "./transfer.js";
import { packError } from "./transfer-error.js";

/**
 * What each worker thread of a `TaskPool` runs (only there: its top-level await keeps it out of
 * the driver's module graph, which `require("sluice")` loads synchronously). The pool passes the URL of the module that
 * exports `runTask` as worker data; it is imported once per worker and kept, so per-worker
 * caches inside it (decoders, connections, static join tables) live as long as the thread.
 */

let runTaskOnce: Promise<RunTask> | undefined;

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
