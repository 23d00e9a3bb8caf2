import { setMaxListeners } from "node:events";
import { Piscina } from "piscina";
import { AnalysisError, MalformedRecordError, OptionError, SluiceError } from "../errors/errors.js";
import type { Task, TaskResult } from "./protocol.js";
import { packTask, unpackResult, type PackedTask } from "./transfer.js";
import { unpackError } from "./transfer-error.js";
import { loadRunTask, type RunTask, type WorkerData, type WorkerReply, type WorkerRequest } from "./worker-entry.js";
import { defaultTaskModuleUrl, moduleHref, workerEntryUrl, workerExecArgv } from "./worker-path.js";

/**
 * Runs tasks (one input split through one pipeline) on a fixed set of worker threads, or inline on
 * the driver with `workers: 0`.
 *
 * Failures. A task that throws, or whose worker dies (process.exit in the thread, an uncaught
 * error, running out of memory), is retried on another worker where one is free, up to
 * `maxTaskAttempts` attempts in all (Spark's spark.task.maxFailures, 4). When attempts run out the
 * task fails with the error of its FIRST attempt, carrying `attempts`.
 *
 * Unlike Spark, which retries every failure, deterministic user errors fail at once:
 * MalformedRecordError (a FAILFAST read of a bad record), AnalysisError and OptionError come out
 * the same however often the same input is read, so retrying only delays the report by three
 * more reads of the same file.
 */

export interface TaskPoolOptions {
  /** Worker threads; 0 runs every task inline on the driver, one at a time, in order. */
  readonly workers: number;
  /** Attempts per task, the first included; default 4. */
  readonly maxTaskAttempts?: number;
  /** File URL or absolute path of a module exporting `runTask`; default Sluice's own run-task module. */
  readonly taskModule?: string | URL;
}

/** The error a task fails with: its first attempt's error, plus how many attempts were made. */
export type TaskError = Error & { readonly attempts: number };

const DEFAULT_MAX_TASK_ATTEMPTS = 4;

/** Where a task's attempts went, read and written by the load balancer (driver side only). */
interface Routing {
  /** Workers (thread ids) on which an attempt of this task failed. */
  readonly tried: Set<number>;
  /** The worker the current attempt was handed to; null while it waits in the queue. */
  worker: number | null;
}

type LoadBalancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"]>;

export class TaskPool {
  /** Number of worker threads (0: inline). */
  readonly size: number;
  readonly maxTaskAttempts: number;
  private readonly taskModule: string;
  private readonly threads: Piscina | null;
  private inlineRunTask: Promise<RunTask> | undefined;
  private destroyed = false;

  constructor(options: TaskPoolOptions) {
    const { workers, maxTaskAttempts = DEFAULT_MAX_TASK_ATTEMPTS } = options;
    if (!Number.isInteger(workers) || workers < 0) throw new OptionError(`workers must be a whole number >= 0 (0 runs tasks on the driver), got ${workers}`);
    if (!Number.isInteger(maxTaskAttempts) || maxTaskAttempts < 1) throw new OptionError(`maxTaskAttempts must be a whole number >= 1, got ${maxTaskAttempts}`);
    this.size = workers;
    this.maxTaskAttempts = maxTaskAttempts;
    this.taskModule = moduleHref(options.taskModule ?? defaultTaskModuleUrl());
    this.threads = workers > 0 ? this.startThreads(workers) : null;
  }

  private startThreads(workers: number): Piscina {
    const entry = workerEntryUrl().href;
    const execArgv = workerExecArgv([entry, this.taskModule]);
    const workerData: WorkerData = { taskModule: this.taskModule };
    const threads = new Piscina({
      filename: entry,
      name: "runPackedTask",
      minThreads: workers,
      maxThreads: workers,
      // Workers pay their start-up once (module loading, tsx in development) and then stay.
      idleTimeout: Number.POSITIVE_INFINITY,
      concurrentTasksPerWorker: 1,
      workerData,
      loadBalancer: preferUntriedWorkers,
      // Idle workers wait on their message port, not in Atomics.wait: a blocked thread could not
      // serve what a worker keeps between tasks (Kafka connections, timers). Round trips measured
      // the same either way (~40 us for an empty task).
      atomics: "disabled",
      ...(execArgv ? { execArgv } : {}),
    });
    // A worker that dies between tasks fails no task; piscina replaces it. Without a listener
    // the 'error' event would crash the driver.
    threads.on("error", () => {});
    return threads;
  }

  /** Runs one task, retrying it as described above. */
  run(task: Task): Promise<TaskResult> {
    return this.runWithRetries(task, () => this.destroyed);
  }

  /**
   * Runs tasks side by side; results come back in task order. When one fails for good the others
   * are not retried any more, those still queued are dropped, those running are let finish (so the
   * pool is idle again when the call returns), and the call rejects with the first failure.
   * Inline (`workers: 0`) tasks run one after the other, in order, and stop at the first failure.
   */
  async runAll(tasks: readonly Task[]): Promise<TaskResult[]> {
    if (!this.threads) {
      const results: TaskResult[] = [];
      for (const task of tasks) results.push(await this.run(task));
      return results;
    }
    let failure: { error: unknown } | null = null;
    const batchCancel = new AbortController();
    // One listener per task in the batch is expected, however many tasks there are.
    setMaxListeners(tasks.length + 10, batchCancel.signal);
    const runs = tasks.map((task) =>
      this.runWithRetries(task, () => this.destroyed || failure !== null, batchCancel.signal).catch((error: unknown) => {
        if (failure === null) {
          failure = { error };
          batchCancel.abort();
        }
        throw error;
      }),
    );
    const outcomes = await Promise.allSettled(runs);
    if (failure !== null) throw (failure as { error: unknown }).error;
    return outcomes.map((o) => (o as PromiseFulfilledResult<TaskResult>).value);
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    await this.threads?.destroy();
  }

  private async runWithRetries(task: Task, stop: () => boolean, cancel?: AbortSignal): Promise<TaskResult> {
    if (this.destroyed) throw new SluiceError("the task pool was destroyed; create a new one to run more tasks");
    const attempt = this.threads ? this.threadAttempt(this.threads, task, cancel) : () => this.inlineAttempt(task);
    let first: { error: unknown } | null = null;
    for (let attempts = 1; ; attempts++) {
      try {
        return await attempt();
      } catch (error) {
        first ??= { error };
        if (attempts >= this.maxTaskAttempts || !isRetriable(error) || stop()) throw withAttempts(first.error, attempts);
      }
    }
  }

  private async inlineAttempt(task: Task): Promise<TaskResult> {
    this.inlineRunTask ??= loadRunTask(this.taskModule).catch((error: unknown) => {
      this.inlineRunTask = undefined;
      throw error;
    });
    const runTask = await this.inlineRunTask;
    return await runTask(task);
  }

  /** One attempt function per task: the task is packed once and every attempt reuses the message. */
  private threadAttempt(threads: Piscina, task: Task, cancel: AbortSignal | undefined): () => Promise<TaskResult> {
    // Shared, not transferred: the driver's batch stays usable (sources own it) and a retry
    // sends the same shared buffers again without copying.
    const { payload } = packTask(task, "share");
    const routing: Routing = { tried: new Set(), worker: null };
    return async () => {
      routing.worker = null;
      const request: WorkerRequest & { [queueOptions: symbol]: Routing } = { task: payload, [Piscina.queueOptionsSymbol]: routing };
      // Cancelling drops the attempt only while it is queued: aborting a running task would
      // terminate its worker.
      const queued = new AbortController();
      const onCancel = () => routing.worker === null && queued.abort();
      cancel?.addEventListener("abort", onCancel);
      try {
        const reply = (await threads.run(request, { signal: queued.signal })) as WorkerReply;
        if (reply.ok) return unpackResult(reply.result);
        throw unpackError(reply.error);
      } catch (error) {
        if (routing.worker !== null) routing.tried.add(routing.worker);
        throw error;
      } finally {
        cancel?.removeEventListener("abort", onCancel);
      }
    };
  }
}

export function isRetriable(error: unknown): boolean {
  return !(error instanceof MalformedRecordError || error instanceof AnalysisError || error instanceof OptionError);
}

function withAttempts(error: unknown, attempts: number): TaskError {
  const e = error instanceof Error ? error : new SluiceError(`task failed: ${String(error)}`);
  Object.defineProperty(e, "attempts", { value: attempts, enumerable: true, configurable: true, writable: true });
  return e as TaskError;
}

/**
 * piscina's balancer, with one preference added: a free worker on which this task has not failed
 * yet. When every untried worker is busy the task waits for one; when there is none (one worker,
 * or every worker tried) any free worker will do. Workers that died are replaced by new threads,
 * which count as untried.
 */
const preferUntriedWorkers: LoadBalancer = (task, workers) => {
  const routing = (task as unknown as Record<symbol, Routing | null | undefined>)[Piscina.queueOptionsSymbol] ?? null;
  let triedButFree: (typeof workers)[number] | null = null;
  let untriedExists = false;
  for (const worker of workers) {
    if (worker.terminating || worker.destroyed) continue;
    const tried = routing?.tried.has(worker.id) ?? false;
    untriedExists ||= !tried;
    if (worker.currentUsage > 0) continue;
    if (!tried) return dispatch(worker, routing);
    triedButFree ??= worker;
  }
  return untriedExists || triedButFree === null ? null : dispatch(triedButFree, routing);
};

function dispatch<W extends { readonly id: number }>(worker: W, routing: Routing | null): W {
  if (routing) routing.worker = worker.id;
  return worker;
}
