import type { MessageInitShape } from "@bufbuild/protobuf";
import { SparkConnectError, StreamingQueryException } from "../../errors/errors.js";
import type { ListenerBus } from "../../runtime/listener.js";
import type { StreamingQueryProgress, StreamingQueryStatus } from "../../runtime/progress.js";
import type { StreamingQuery } from "../../runtime/streaming-query.js";
import type { SparkConnectClient } from "../client/spark-connect-client.js";
import type { StreamingQueryCommandResult, StreamingQueryCommandSchema } from "../gen/spark/connect/commands_pb.js";
import { progressFromSpark } from "./remote-progress.js";

/** Progress reports kept per query, as the embedded engine (Spark's spark.sql.streaming.numRecentProgressUpdates). */
const RECENT_PROGRESS = 100;

type Command = MessageInitShape<typeof StreamingQueryCommandSchema>["command"];

/**
 * A streaming query that runs on a Spark Connect server. Its calls are Spark Connect's
 * StreamingQueryCommand (status, progress, stop, processAllAvailable, awaitTermination, exception,
 * explain). The synchronous getters answer from what the server last told: progress and termination
 * arrive as the server's listener events (remote/streaming/remote-events.ts) and the status is asked
 * again after each batch and at each keep-alive, so reading them costs no round trip.
 */
export class RemoteStreamingQuery implements StreamingQuery {
  private progressLog: StreamingQueryProgress[] = [];
  private failure: StreamingQueryException | null = null;
  private active = true;
  private ended = false;
  private currentStatus: StreamingQueryStatus = { message: "Initializing sources", isDataAvailable: false, isTriggerActive: false };
  private plan = "No physical plan. Waiting for data.";
  private ids = { id: "", runId: "" };
  private readonly starting: Promise<void>;
  /** Why the server refused the start, once it has answered; undefined while it has not, or when it started the query. */
  private startFailure: unknown = undefined;

  /**
   * @internal Starts at once and returns, as the embedded engine's `start()` does; the server's
   * answer comes later. Until it has come, `id` and `runId` are empty; every call waits for it, and
   * a start the server refuses (an analysis error) is what each call then rejects with.
   */
  constructor(
    private readonly client: SparkConnectClient,
    readonly name: string | null,
    private readonly bus: ListenerBus,
    start: () => Promise<{ id: string; runId: string; startedEventJson: string | undefined }>,
    onStarted: (query: RemoteStreamingQuery) => void,
  ) {
    this.starting = start().then(
      ({ id, runId, startedEventJson }) => {
        this.ids = { id, runId };
        onStarted(this);
        const started = startedEventJson ? (JSON.parse(startedEventJson) as { timestamp?: string }) : {};
        this.bus.post("onQueryStarted", { id, runId, name: this.name, timestamp: started.timestamp ?? new Date().toISOString() });
      },
      (e: unknown) => {
        this.startFailure = e;
        this.active = false;
        this.ended = true;
        this.currentStatus = { message: "Stopped", isDataAvailable: false, isTriggerActive: false };
      },
    );
  }

  /** Unique across restarts from the same checkpoint; empty until the server has answered the start. */
  get id(): string {
    return this.ids.id;
  }

  /** New for every start; empty until the server has answered the start. */
  get runId(): string {
    return this.ids.runId;
  }

  /** Resolves once the server has started the query; rejects with the reason it refused to. */
  async started(): Promise<void> {
    await this.starting;
    if (this.startFailure !== undefined) throw this.startFailure;
  }

  get isActive(): boolean {
    return this.active;
  }

  get exception(): StreamingQueryException | null {
    return this.failure;
  }

  get status(): StreamingQueryStatus {
    return this.currentStatus;
  }

  get lastProgress(): StreamingQueryProgress | null {
    return this.progressLog.at(-1) ?? null;
  }

  get recentProgress(): readonly StreamingQueryProgress[] {
    return this.progressLog;
  }

  /** Spark's physical plan of the query, as the server last explained it (refreshed after each batch). */
  explain(): string {
    return this.plan;
  }

  /**
   * One StreamingQueryCommand. A query that has failed answers some commands (awaitTermination,
   * processAllAvailable) with its failure as the call's error: that becomes the query's exception.
   */
  private async command(command: Command, what: string): Promise<StreamingQueryCommandResult["resultType"]> {
    await this.started();
    let responses;
    try {
      responses = await this.client.executeAll(
        { opType: { case: "command", value: { commandType: { case: "streamingQueryCommand", value: { queryId: { id: this.id, runId: this.runId }, command } } } } },
        `${what} of ${this}`,
      );
    } catch (e) {
      if ((e as { errorClass?: string }).errorClass !== "STREAM_FAILED" || command?.case === "exception") throw e;
      await this.settle();
      throw this.failure ?? e;
    }
    for (const r of responses) if (r.responseType.case === "streamingQueryCommandResult") return r.responseType.value.resultType;
    return { case: undefined };
  }

  /** @internal Asks the server for the status and the plan: after each batch, and at each keep-alive. */
  async refresh(): Promise<void> {
    if (!this.active) return;
    const status = await this.command({ case: "status", value: true }, "status");
    if (status.case === "status") {
      this.currentStatus = { message: status.value.statusMessage, isDataAvailable: status.value.isDataAvailable, isTriggerActive: status.value.isTriggerActive };
      if (!status.value.isActive) await this.settle();
    }
    if (this.progressLog.length > 0 && this.active) {
      const explained = await this.command({ case: "explain", value: { extended: false } }, "explain");
      if (explained.case === "explain") this.plan = explained.value.result;
    }
  }

  /** @internal A progress event from the server's listener bus. */
  onProgress(json: Record<string, unknown>): void {
    const p = progressFromSpark(json);
    this.progressLog.push(p);
    if (this.progressLog.length > RECENT_PROGRESS) this.progressLog.shift();
    this.bus.post("onQueryProgress", { progress: p });
    this.refresh().catch(() => undefined);
  }

  /** @internal An idle event from the server's listener bus. */
  onIdle(e: { timestamp?: string }): void {
    this.bus.post("onQueryIdle", { id: this.id, runId: this.runId, timestamp: e.timestamp ?? new Date().toISOString() });
  }

  /** @internal A terminated event from the server's listener bus. */
  onTerminated(e: { exception?: string | null; errorClassOnException?: string | null }): void {
    if (!e.exception) {
      this.end(null);
      return;
    }
    // The event carries the failure with its JVM stack trace: the exception command has Spark's message
    // alone (and the stack apart). Without an answer, the event's first line serves.
    const fallback = this.exceptionOf(e.exception.split("\n")[0]!, e.errorClassOnException ?? undefined);
    this.settle().catch(() => this.end(fallback));
  }

  /** Records the end once, whoever learns of it first (the listener bus, a command's answer). */
  private end(failure: StreamingQueryException | null): void {
    if (this.ended) return;
    this.ended = true;
    this.active = false;
    this.failure = failure;
    this.currentStatus = { message: "Stopped", isDataAvailable: false, isTriggerActive: false };
    this.bus.post("onQueryTerminated", { id: this.id, runId: this.runId, exception: failure });
  }

  /** The query has ended on the server: learn how (the exception command), unless already known. */
  private async settle(): Promise<void> {
    if (this.ended) return;
    const result = await this.command({ case: "exception", value: true }, "exception");
    const message = result.case === "exception" ? result.value.exceptionMessage : undefined;
    this.end(message ? this.exceptionOf(message, result.case === "exception" ? result.value.errorClass : undefined) : null);
  }

  private exceptionOf(message: string, errorClass: string | undefined): StreamingQueryException {
    const cause = new SparkConnectError(message, "QUERY_FAILED", errorClass ? { errorClass } : {});
    return new StreamingQueryException(message, this.id, this.runId, cause);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  async awaitTermination(timeoutMs?: number): Promise<boolean> {
    await this.started();
    if (this.active) {
      const value = timeoutMs === undefined ? {} : { timeoutMs: BigInt(Math.max(0, Math.floor(timeoutMs))) };
      const result = await this.command({ case: "awaitTermination", value }, "awaitTermination");
      if (result.case !== "awaitTermination" || !result.value.terminated) return false;
      await this.settle();
    }
    this.throwIfFailed();
    return true;
  }

  async processAllAvailable(): Promise<void> {
    await this.started();
    if (this.active) await this.command({ case: "processAllAvailable", value: true }, "processAllAvailable");
    this.throwIfFailed();
  }

  async stop(): Promise<void> {
    await this.starting;
    if (!this.active) return;
    await this.command({ case: "stop", value: true }, "stop");
    await this.settle();
  }

  toString(): string {
    return `StreamingQuery[id=${this.id}, runId=${this.runId}, name=${this.name ?? ""}]`;
  }
}
