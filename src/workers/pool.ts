import { setMaxListeners } from "node:events";
import type { ResourceLimits } from "node:worker_threads";
import { Piscina } from "piscina";
import { AnalysisError, MalformedRecordError, OptionError, SluiceError, StatefulProcessorError, TaskTimeoutError } from "../errors/errors.js";
import { describeInputSplit } from "../sources/source-runtimes.js";
import { describeProcessor } from "../expr/udf-modules.js";
import type { ResultOf, Task, TaskResult } from "./protocol.js";
import { packTask, unpackResult, type PackedTask } from "./transfer.js";
import { unpackError } from "./transfer-error.js";
import { isTaskStarted, loadRunTask, type RunTask, type WorkerData, type WorkerReply, type WorkerRequest } from "./worker-messages.js";
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
 *
 * Backoff. Spark re-queues a failed task at once. Sluice waits `taskRetryBackoffMs` (100 ms)
 * before the second attempt and doubles the wait before each next one, up to
 * `taskRetryMaxBackoffMs` (5 s), as Kafka's clients do with retry.backoff.ms: most failures a retry
 * can mend are a resource coming back (a broker restarting, a worker thread being replaced), and
 * hammering it at once only spends the attempts. With the default four attempts the waits add
 * 0.1 + 0.2 + 0.4 s to a task that fails for good. No jitter: a batch has a handful of tasks, not
 * the thousands of clients a jitter spreads out, and fixed waits keep failures reproducible.
 *
 * Timeouts. An attempt that runs longer than `taskTimeoutMs` (5 min) is abandoned: its worker is
 * terminated (Worker.terminate stops even a loop that never yields), piscina starts a new one, and
 * the task is retried like any failure, its error a TaskTimeoutError that names the split and the
 * option. The clock starts when the worker begins the task: not while it waits in the queue, nor
 * while a new worker is still starting (a start-up that never ends is bounded separately, by the
 * longer of the timeout and a minute). 5 min is far above what a task needs (tasks are sized to
 * milliseconds or seconds of work) and above the Kafka source's own fetch timeout
 * (kafkaConsumer.pollTimeoutMs, 2 min), so a stalled fetch reports its more precise error first.
 * 0 turns the timeout off (so does Infinity, or anything beyond what a timer can wait: 24.8 days).
 *
 * Inline (`workers: 0`) the driver's own thread runs the task, so nothing can preempt a task that
 * never yields: a synchronous hang there hangs the caller. A task that hangs awaiting something is
 * bounded: the attempt is abandoned after the timeout (its promise is left to settle unobserved,
 * as nothing can cancel it) and the task retried.
 *
 * Heap. Each worker is its own V8 isolate, sized by `resourceLimits` (Node's Worker option). Its
 * young generation defaults to 24 MiB (8 MiB semi-spaces) rather than V8's 48 MiB: a worker keeps
 * little between tasks (an old generation of ~18 MiB), and with 16 MiB semi-spaces V8 finds the
 * old generation's headroom smaller than one scavenge could promote, so it marks and compacts the
 * whole heap every few MiB allocated instead of scavenging. A real-time task on W4 at 50,000
 * records/s showed ~1.5 full collections a second per worker, each pausing its loop 5-13 ms, and a
 * p99 of 12 ms; at 24 MiB, 6 full collections in the whole run and a p99 of 5 ms.
 */

/**
 * Limits on each worker thread's heap: the fields of Node's `Worker` `resourceLimits` that
 * Sluice lets a session set (MiB). Unset fields take V8's defaults, except
 * `maxYoungGenerationSizeMb` (see TaskPool's "Heap").
 */
export type WorkerResourceLimits = Readonly<Pick<ResourceLimits, "maxYoungGenerationSizeMb" | "maxOldGenerationSizeMb" | "stackSizeMb">>;

/** A worker's young generation unless `workerResourceLimits` says otherwise (see TaskPool's "Heap"). */
export const DEFAULT_WORKER_YOUNG_GENERATION_MB = 24;

export interface TaskPoolOptions {
  /** Worker threads; 0 runs every task inline on the driver, one at a time, in order. */
  readonly workers: number;
  /** Attempts per task, the first included; default 4. */
  readonly maxTaskAttempts?: number;
  /** Milliseconds an attempt may run before it is abandoned and retried; 0 for no limit. Default 5 minutes. */
  readonly taskTimeoutMs?: number;
  /** Wait before the second attempt, doubled before each next one; default 100 ms. */
  readonly taskRetryBackoffMs?: number;
  /** Longest wait between two attempts; default 5 s. */
  readonly taskRetryMaxBackoffMs?: number;
  /** File URL or absolute path of a module exporting `runTask`; default Sluice's own run-task module. */
  readonly taskModule?: string | URL;
  /** Each worker thread's heap limits; default a 24 MiB young generation and V8's other defaults. */
  readonly resourceLimits?: WorkerResourceLimits;
}

/** The error a task fails with: its first attempt's error, plus how many attempts were made. */
export type TaskError = Error & { readonly attempts: number };

/**
 * How long a worker may take to begin a task it was handed when the task timeout is shorter:
 * workers start in well under a second from compiled code and in one to three under tsx.
 */
const WORKER_START_TIMEOUT_MS = 60_000;

/** setTimeout's longest wait (2^31 - 1 ms); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const TASK_POOL_DEFAULTS = {
  maxTaskAttempts: 4,
  taskTimeoutMs: 5 * 60_000,
  taskRetryBackoffMs: 100,
  taskRetryMaxBackoffMs: 5_000,
} as const;

/** Where a task's attempts went, read and written by the load balancer (driver side only). */
interface Routing {
  /** Workers (thread ids) on which an attempt of this task failed. */
  readonly tried: Set<number>;
  /** The worker the current attempt was handed to; null while it waits in the queue. */
  worker: number | null;
  /** Called when a worker takes the current attempt: the bound on its start-up starts then. */
  onDispatch: (() => void) | null;
}

type LoadBalancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>["loadBalancer"]>;

export class TaskPool {
  /** Number of worker threads (0: inline). */
  readonly size: number;
  readonly maxTaskAttempts: number;
  /** 0: no timeout. */
  readonly taskTimeoutMs: number;
  readonly taskRetryBackoffMs: number;
  readonly taskRetryMaxBackoffMs: number;
  private readonly taskModule: string;
  private readonly customTaskModule: boolean;
  private readonly resourceLimits: WorkerResourceLimits;
  private readonly threads: Piscina | null;
  private inlineRunTask: Promise<RunTask> | undefined;
  private destroyed = false;
  /** Aborted by destroy(): ends backoff waits at once. */
  private readonly closing = new AbortController();
  private nextAttemptId = 0;
  /** Attempts handed to a worker, by id: called when the worker reports that it began the task. */
  private readonly attemptsStarted = new Map<number, () => void>();

  constructor(options: TaskPoolOptions) {
    const { workers } = options;
    const maxTaskAttempts = options.maxTaskAttempts ?? TASK_POOL_DEFAULTS.maxTaskAttempts;
    const taskTimeoutMs = options.taskTimeoutMs ?? TASK_POOL_DEFAULTS.taskTimeoutMs;
    const taskRetryBackoffMs = options.taskRetryBackoffMs ?? TASK_POOL_DEFAULTS.taskRetryBackoffMs;
    const taskRetryMaxBackoffMs = options.taskRetryMaxBackoffMs ?? Math.max(TASK_POOL_DEFAULTS.taskRetryMaxBackoffMs, taskRetryBackoffMs);
    if (!Number.isInteger(workers) || workers < 0) throw new OptionError(`workers must be a whole number >= 0 (0 runs tasks on the driver), got ${workers}`);
    if (!Number.isInteger(maxTaskAttempts) || maxTaskAttempts < 1) throw new OptionError(`maxTaskAttempts must be a whole number >= 1, got ${maxTaskAttempts}`);
    if (!(taskTimeoutMs >= 0)) throw new OptionError(`taskTimeout must be 0 (no timeout) or a positive number of milliseconds, got ${taskTimeoutMs}`);
    if (!(taskRetryBackoffMs >= 0) || !(taskRetryBackoffMs <= MAX_TIMER_MS)) {
      throw new OptionError(`taskRetryBackoff must be a finite number of milliseconds >= 0, got ${taskRetryBackoffMs}`);
    }
    if (!(taskRetryMaxBackoffMs >= taskRetryBackoffMs) || !(taskRetryMaxBackoffMs <= MAX_TIMER_MS)) {
      throw new OptionError(`taskRetryMaxBackoff must be a finite number of milliseconds >= taskRetryBackoff (${taskRetryBackoffMs}), got ${taskRetryMaxBackoffMs}`);
    }
    this.size = workers;
    this.maxTaskAttempts = maxTaskAttempts;
    // Infinity means no limit too, as does a wait longer than a timer can count: stored as 0.
    this.taskTimeoutMs = taskTimeoutMs <= MAX_TIMER_MS ? taskTimeoutMs : 0;
    this.taskRetryBackoffMs = taskRetryBackoffMs;
    this.taskRetryMaxBackoffMs = taskRetryMaxBackoffMs;
    this.taskModule = moduleHref(options.taskModule ?? defaultTaskModuleUrl());
    this.customTaskModule = options.taskModule !== undefined;
    this.resourceLimits = { maxYoungGenerationSizeMb: DEFAULT_WORKER_YOUNG_GENERATION_MB, ...options.resourceLimits };
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
      resourceLimits: this.resourceLimits,
      ...(execArgv ? { execArgv } : {}),
    });
    // A worker that dies between tasks fails no task; piscina replaces it. Without a listener
    // the 'error' event would crash the driver.
    threads.on("error", () => {});
    threads.on("message", (message: unknown) => {
      if (isTaskStarted(message)) this.attemptsStarted.get(message.taskStarted)?.();
    });
    return threads;
  }

  /** Runs one task, retrying it as described above. */
  run<T extends Task>(task: T): Promise<ResultOf<T>> {
    return this.runWithRetries(task, () => this.destroyed) as Promise<ResultOf<T>>;
  }

  /**
   * Runs tasks side by side; results come back in task order. When one fails for good the others
   * are not retried any more, those still queued are dropped, those running are let finish (so the
   * pool is idle again when the call returns), and the call rejects with the first failure.
   * Inline (`workers: 0`) tasks run one after the other, in order, and stop at the first failure.
   * `onResult` hears of each task as it succeeds (in completion order), for progress reporting.
   */
  async runAll<T extends Task>(tasks: readonly T[], onResult?: (index: number, result: ResultOf<T>) => void): Promise<ResultOf<T>[]> {
    if (!this.threads) {
      const results: ResultOf<T>[] = [];
      for (const task of tasks) {
        const result = await this.run(task);
        onResult?.(results.length, result);
        results.push(result);
      }
      return results;
    }
    let failure: { error: unknown } | null = null;
    const batchCancel = new AbortController();
    // One listener per task in the batch is expected, however many tasks there are.
    setMaxListeners(tasks.length + 10, batchCancel.signal);
    const runs = tasks.map((task, index) =>
      this.runWithRetries(task, () => this.destroyed || failure !== null, batchCancel.signal).then((result) => {
        onResult?.(index, result as ResultOf<T>);
        return result;
      }).catch((error: unknown) => {
        if (failure === null) {
          failure = { error };
          batchCancel.abort();
        }
        throw error;
      }),
    );
    const outcomes = await Promise.allSettled(runs);
    if (failure !== null) throw (failure as { error: unknown }).error;
    return outcomes.map((o) => (o as PromiseFulfilledResult<TaskResult>).value as ResultOf<T>);
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.closing.abort();
    await this.threads?.destroy();
  }

  /** The wait before attempt `failed + 1`, after `failed` attempts failed. */
  backoffMs(failed: number): number {
    return Math.min(this.taskRetryBackoffMs * 2 ** (failed - 1), this.taskRetryMaxBackoffMs);
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
        if (attempts >= this.maxTaskAttempts || !isRetriable(error) || task.kind === "realTime" || stop()) throw withAttempts(first.error, attempts);
        await sleep(this.backoffMs(attempts), [this.closing.signal, cancel]);
        if (stop()) throw withAttempts(first.error, attempts);
      }
    }
  }

  private async inlineAttempt(task: Task): Promise<TaskResult> {
    // Sluice's own task module is imported by a literal path, so that bundlers include it;
    // a pool given another module loads it by its URL.
    this.inlineRunTask ??= (this.customTaskModule ? loadRunTask(this.taskModule) : import("./run-task.js").then((m) => m.runTask as RunTask)).catch((error: unknown) => {
      this.inlineRunTask = undefined;
      throw error;
    });
    const runTask = await this.inlineRunTask;
    const run = Promise.resolve(runTask(task));
    const timeoutMs = attemptTimeoutMs(task, this.taskTimeoutMs);
    if (timeoutMs === 0) return await run;
    // The driver cannot stop its own code: the attempt is raced, and left behind when it loses.
    run.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TaskTimeoutError(timeoutMs, describeTask(task))), timeoutMs);
    });
    try {
      return await Promise.race([run, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One attempt function per task: the task is packed once and every attempt reuses the message. */
  private threadAttempt(threads: Piscina, task: Task, cancel: AbortSignal | undefined): () => Promise<TaskResult> {
    // Shared, not transferred: the driver's batch stays usable (sources own it) and a retry
    // sends the same shared buffers again without copying.
    const { payload } = packTask(task, "share");
    const routing: Routing = { tried: new Set(), worker: null, onDispatch: null };
    return async () => {
      const timeoutMs = attemptTimeoutMs(task, this.taskTimeoutMs);
      routing.worker = null;
      const attemptId = this.nextAttemptId++;
      const request: WorkerRequest & { [queueOptions: symbol]: Routing } = { task: payload, attemptId, [Piscina.queueOptionsSymbol]: routing };
      // Aborting a queued attempt drops it; aborting a running one terminates its worker, which
      // piscina then replaces. A cancelled batch does the former only, a timeout the latter.
      const abort = new AbortController();
      const onCancel = () => routing.worker === null && abort.abort();
      cancel?.addEventListener("abort", onCancel);
      let timer: NodeJS.Timeout | undefined;
      let expired: Error | null = null;
      const expireIn = (ms: number, error: () => Error) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          expired = error();
          abort.abort();
        }, ms);
      };
      if (timeoutMs > 0) {
        // A worker may take the task before it has finished starting (piscina counts the first
        // workers as ready at once): the task's own clock starts when the worker says it began.
        // Until then a looser bound covers a start-up that never ends.
        const startBound = Math.max(timeoutMs, WORKER_START_TIMEOUT_MS);
        routing.onDispatch = () => expireIn(startBound, () => new SluiceError(workerNotStarted(task, startBound, this.taskModule)));
        this.attemptsStarted.set(attemptId, () => expireIn(timeoutMs, () => new TaskTimeoutError(timeoutMs, describeTask(task))));
      }
      try {
        const reply = (await threads.run(request, { signal: abort.signal })) as WorkerReply;
        if (reply.ok) return unpackResult(reply.result);
        throw unpackError(reply.error);
      } catch (error) {
        if (routing.worker !== null) routing.tried.add(routing.worker);
        throw expired ?? error;
      } finally {
        clearTimeout(timer);
        routing.onDispatch = null;
        this.attemptsStarted.delete(attemptId);
        cancel?.removeEventListener("abort", onCancel);
      }
    };
  }
}

/**
 * Whether another attempt may succeed: not for a deterministic mistake, nor for user code's error
 * (a processor's) that wraps one, such as a state variable declared twice.
 */
export function isRetriable(error: unknown): boolean {
  const deterministic = (e: unknown) => e instanceof MalformedRecordError || e instanceof AnalysisError || e instanceof OptionError;
  return !(deterministic(error) || (error instanceof StatefulProcessorError && deterministic(error.cause)));
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

/** What a task works on, for errors: the split it reads, or the keys a processor runs over. */
function describeTask(task: Task): string {
  switch (task.kind) {
    case "input":
      return describeInputSplit(task.pipeline.source, task.split);
    case "processor":
      return `the ${task.keys.length} grouping key(s) of ${describeProcessor(task.spec.processor)} in batch ${task.batchId}`;
    case "realTime":
      return `real-time batch ${task.context.batchId} of ${task.splits.map((s) => describeInputSplit(s.pipeline.source, s.split)).join("; ")}`;
  }
}

/**
 * A real-time task runs for its whole checkpoint interval: the timeout counts from its deadline.
 * It is attempted once: its output is already in the sink as it goes, and Spark fails a
 * real-time batch whose task fails (a restart resumes from the last checkpoint).
 */
function attemptTimeoutMs(task: Task, timeoutMs: number): number {
  return timeoutMs === 0 || task.kind !== "realTime" ? timeoutMs : timeoutMs + Math.max(0, task.deadlineMs - Date.now());
}

function workerNotStarted(task: Task, ms: number, taskModule: string): string {
  return `a worker thread did not begin the task reading ${describeTask(task)} within ${ms} ms of taking it: its start-up (loading ${taskModule}) does not finish`;
}

function dispatch<W extends { readonly id: number }>(worker: W, routing: Routing | null): W {
  if (routing) {
    routing.worker = worker.id;
    routing.onDispatch?.();
  }
  return worker;
}

/** Resolves after `ms`, or as soon as one of `signals` aborts. */
function sleep(ms: number, signals: readonly (AbortSignal | undefined)[]): Promise<void> {
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  if (ms <= 0 || live.some((s) => s.aborted)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of live) s.addEventListener("abort", done);
  });
}
