import { StreamingQueryException } from "../errors/errors.js";
import type { ListenerBus } from "./listener.js";
import type { StreamingQueryProgress, StreamingQueryStatus } from "./progress.js";

/** What a query controls of the run that executes it: the micro-batch loop, or real-time mode's (runtime/real-time-execution.ts). */
export interface QueryExecution {
  readonly status: StreamingQueryStatus;
  requestStop(): void;
  /** Gives up on a run that did not stop in time; returns what it was doing. */
  abandon(): string;
  waitUntilIdle(): Promise<"idle" | "stopped">;
}

/** Progress reports kept per query (Spark's spark.sql.streaming.numRecentProgressUpdates). */
const RECENT_PROGRESS = 100;

/**
 * A running streaming query, as Spark's `StreamingQuery`: identity (`id` survives restarts from
 * the same checkpoint, `runId` is new per start), status, progress, and control. The embedded
 * engine's queries are `MicroBatchStreamingQuery`; a remote session's run on a Spark Connect server
 * (remote/remote-streaming-query.ts) and answer the same calls.
 */
export interface StreamingQuery {
  /** Unique across restarts from the same checkpoint. */
  readonly id: string;
  /** New for every start. */
  readonly runId: string;
  readonly name: string | null;
  readonly isActive: boolean;
  /** The error that stopped the query, or null. */
  readonly exception: StreamingQueryException | null;
  readonly status: StreamingQueryStatus;
  readonly lastProgress: StreamingQueryProgress | null;
  /** The latest progress reports, oldest first (Spark's spark.sql.streaming.numRecentProgressUpdates of them). */
  readonly recentProgress: readonly StreamingQueryProgress[];
  /**
   * Waits for the query to end. Rejects with the `StreamingQueryException` if it failed. With a
   * timeout, resolves to whether the query ended within it.
   */
  awaitTermination(timeoutMs?: number): Promise<boolean>;
  /** Waits until every row available in the sources when called has been processed and committed. */
  processAllAvailable(): Promise<void>;
  /** Stops the query and waits until it has stopped. */
  stop(): Promise<void>;
  /** The query's plan, as Spark's `StreamingQuery.explain()`. */
  explain(): string;
}

/** A query of the embedded engine: its micro-batches run in this process (runtime/micro-batch-execution.ts). */
export class MicroBatchStreamingQuery implements StreamingQuery {
  private progressLog: StreamingQueryProgress[] = [];
  private failure: StreamingQueryException | null = null;
  private active = true;
  private readonly terminated: Promise<void>;
  private execution: QueryExecution | null = null;
  /** Ends the query once: by its run ending, or by `stop()` giving up on a run that does not. */
  private finish!: (failure: unknown) => Promise<void>;

  /** @internal */
  constructor(
    /** Unique across restarts from the same checkpoint. */
    readonly id: string,
    /** New for every start. */
    readonly runId: string,
    readonly name: string | null,
    private readonly bus: ListenerBus,
    start: (query: MicroBatchStreamingQuery) => Promise<{ execution: QueryExecution; done: Promise<void> }>,
    private readonly cleanup: () => Promise<void>,
    /** How long `stop()` waits for the batch in flight (Spark's spark.sql.streaming.stopTimeout). */
    private readonly stopTimeoutMs: number,
    /** The plan as `explain()` shows it, and the sink's own account of its guarantee. */
    private readonly plan: { readonly text: string; readonly sink: string },
  ) {
    this.terminated = new Promise<void>((resolve, reject) => {
      let finished = false;
      this.finish = async (failure) => {
        if (finished) return;
        finished = true;
        if (failure !== undefined) this.failure = this.exceptionOf(failure);
        this.active = false;
        await this.cleanup().catch(() => undefined);
        this.bus.post("onQueryTerminated", { id: this.id, runId: this.runId, exception: this.failure });
        if (this.failure) reject(this.failure);
        else resolve();
      };
    });
    // Failures surface through awaitTermination/exception; never as an unhandled rejection.
    this.terminated.catch(() => undefined);
    void this.launch(start);
  }

  private async launch(start: (query: MicroBatchStreamingQuery) => Promise<{ execution: QueryExecution; done: Promise<void> }>): Promise<void> {
    try {
      const { execution, done } = await start(this);
      this.execution = execution;
      this.bus.post("onQueryStarted", { id: this.id, runId: this.runId, name: this.name, timestamp: new Date().toISOString() });
      await done;
      await this.finish(undefined);
    } catch (e) {
      await this.finish(e);
    }
  }

  private exceptionOf(e: unknown): StreamingQueryException {
    if (e instanceof StreamingQueryException) return e;
    return new StreamingQueryException(
      `Query ${this.name ?? ""} [id = ${this.id}, runId = ${this.runId}] terminated with exception: ${(e as Error)?.message ?? String(e)}`,
      this.id,
      this.runId,
      e,
    );
  }

  get isActive(): boolean {
    return this.active;
  }

  /** The error that stopped the query, or null. */
  get exception(): StreamingQueryException | null {
    return this.failure;
  }

  get status(): StreamingQueryStatus {
    return this.execution?.status ?? { message: this.active ? "Initializing sources" : "Stopped", isDataAvailable: false, isTriggerActive: false };
  }

  get lastProgress(): StreamingQueryProgress | null {
    return this.progressLog.at(-1) ?? null;
  }

  get recentProgress(): readonly StreamingQueryProgress[] {
    return this.progressLog;
  }

  /** @internal */
  recordProgress(p: StreamingQueryProgress): void {
    this.progressLog.push(p);
    if (this.progressLog.length > RECENT_PROGRESS) this.progressLog.shift();
    this.bus.post("onQueryProgress", { progress: p });
  }

  /** @internal */
  recordIdle(): void {
    this.bus.post("onQueryIdle", { id: this.id, runId: this.runId, timestamp: new Date().toISOString() });
  }

  /**
   * Waits for the query to end. Rejects with the `StreamingQueryException` if it failed. With a
   * timeout, resolves to whether the query ended within it.
   */
  async awaitTermination(timeoutMs?: number): Promise<boolean> {
    if (timeoutMs === undefined) {
      await this.terminated;
      return true;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([this.terminated.then(() => true as const), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Waits until every row available in the sources when called has been processed and committed
   * (for tests, as Spark's). Rejects if the query fails meanwhile.
   */
  async processAllAvailable(): Promise<void> {
    while (!this.execution && this.active) await new Promise((r) => setTimeout(r, 1));
    if (!this.active || !this.execution) {
      if (this.failure) throw this.failure;
      return;
    }
    const why = await Promise.race([this.execution.waitUntilIdle(), this.terminated.then(() => "stopped" as const)]);
    // A run that ended meanwhile may have failed: its termination tells.
    if (why === "stopped") await this.terminated;
  }

  /**
   * Stops the query after the batch in flight and waits until it has stopped, at most the
   * session's `stopTimeout`. A batch still running then (a foreachBatch function that never
   * returns, a sink that hangs) is abandoned: the query ends failed, saying what it was doing, its
   * checkpoint is released, and nothing that batch does afterwards reaches the checkpoint, so a
   * restart re-runs it.
   */
  async stop(): Promise<void> {
    while (!this.execution && this.active) await new Promise((r) => setTimeout(r, 1));
    const execution = this.execution;
    if (!execution) return;
    execution.requestStop();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), this.stopTimeoutMs);
    });
    try {
      const late = await Promise.race([this.terminated.then(() => false, () => false), timedOut]);
      if (!late) return;
    } finally {
      clearTimeout(timer);
    }
    const doing = execution.abandon();
    await this.finish(
      new StreamingQueryException(
        `Query ${this.name ?? ""} [id = ${this.id}, runId = ${this.runId}] did not stop within stopTimeout (${this.stopTimeoutMs} ms): it was ${doing}. ` +
          "The run was abandoned and its checkpoint released; nothing it does from now on is committed, so a restart runs that batch again. " +
          "Raise new Session({ stopTimeout }) if batches may take longer.",
        this.id,
        this.runId,
        undefined,
      ),
    );
  }

  /**
   * The query's plan, as Spark's `StreamingQuery.explain()`, and the sink it writes to with the
   * guarantee that sink gives across restarts (exactly-once or at-least-once, and how).
   */
  explain(): string {
    return `${this.plan.text}\nSink: ${this.plan.sink}`;
  }

  toString(): string {
    return `StreamingQuery[id=${this.id}, runId=${this.runId}, name=${this.name ?? ""}]`;
  }
}
