import { randomUUID } from "node:crypto";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  type AnalyzePlanRequestSchema,
  type AnalyzePlanResponse,
  type ConfigRequestSchema,
  type ConfigResponse,
  type ExecutePlanResponse,
  PlanSchema,
  type ReleaseExecuteRequestSchema,
  SparkConnectService,
} from "../gen/spark/connect/base_pb.js";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { channelUrl, type ConnectionSpec } from "./connection-string.js";
import { lostConnection, remoteError } from "./remote-errors.js";

export type PlanInit = MessageInitShape<typeof PlanSchema>;

export interface ClientSettings {
  /** Deadline of each unary call (analyze, config, release), ms. */
  readonly callTimeoutMs: number;
  /** HTTP/2 pings on the channel: a server that stops answering is found within about twice this, ms. */
  readonly pingIntervalMs: number;
  /** Attempts to resume a broken result stream (ReattachExecute) before the operation fails. */
  readonly maxReattachAttempts: number;
}

/** Responses after which a long-running operation's delivered responses are released on the server. */
const RELEASE_EVERY = 32;

/** Spark Connect's error class for a reattach to an operation the server no longer holds. */
const OPERATION_NOT_FOUND = "INVALID_HANDLE.OPERATION_NOT_FOUND";

/**
 * One Spark Connect session over gRPC (HTTP/2): every call carries the session id, the user and the
 * client type; plans run as reattachable operations, so that a result stream the server or the network
 * cuts resumes where it stopped (ReattachExecute) instead of failing the query.
 */
export class SparkConnectClient {
  readonly sessionId: string;
  private rpc: Client<typeof SparkConnectService>;
  private serverSideSessionId: string | undefined;
  private closed = false;

  constructor(
    readonly spec: ConnectionSpec,
    private readonly settings: ClientSettings,
  ) {
    this.sessionId = spec.sessionId ?? randomUUID();
    this.rpc = this.connect();
  }

  /** A new gRPC channel (HTTP/2 connection manager) to the server, with the token and headers on every call. */
  private connect(): Client<typeof SparkConnectService> {
    const spec = this.spec;
    const headers: Interceptor = (next) => (req) => {
      if (spec.token !== null) req.header.set("authorization", `Bearer ${spec.token}`);
      for (const [k, v] of Object.entries(spec.headers)) req.header.set(k, v);
      return next(req);
    };
    const transport = createGrpcTransport({
      baseUrl: channelUrl(spec),
      interceptors: [headers],
      pingIntervalMs: this.settings.pingIntervalMs,
      pingTimeoutMs: this.settings.pingIntervalMs,
      // Spark's clients allow messages up to 128 MiB (spark.connect.grpc.maxInboundMessageSize).
      readMaxBytes: 128 * 1024 * 1024,
      writeMaxBytes: 128 * 1024 * 1024,
    });
    return createClient(SparkConnectService, transport);
  }

  /**
   * The error of a failed call, as Sluice raises it. A failure of the connection itself (no answer
   * from Spark) retires the channel: the next call dials afresh. (A channel whose connection died
   * of a ping timeout can raise that error once more, uncaught, when used again.)
   */
  private failure(e: unknown, what: string): Error {
    const ce = ConnectError.from(e);
    if (ce.findDetails(ErrorInfoSchema).length === 0 && ce.code !== Code.Unauthenticated && ce.code !== Code.PermissionDenied) this.rpc = this.connect();
    return remoteError(ce, this.spec, what, this.serverSideSessionId !== undefined);
  }

  /** The fields every request carries. */
  private get base() {
    return {
      sessionId: this.sessionId,
      userContext: { userId: this.spec.userId },
      clientType: this.spec.userAgent,
      // A restarted server has a new server-side id: sending the one seen makes it refuse, rather than run in a fresh session.
      ...(this.serverSideSessionId ? { clientObservedServerSideSessionId: this.serverSideSessionId } : {}),
    };
  }

  private observe(serverSideSessionId: string): void {
    if (serverSideSessionId) this.serverSideSessionId = serverSideSessionId;
  }

  private checkOpen(what: string): void {
    if (this.closed) throw remoteError(new ConnectError("the session was stopped", Code.FailedPrecondition), this.spec, what);
  }

  async analyze(analyze: MessageInitShape<typeof AnalyzePlanRequestSchema>["analyze"], what: string): Promise<AnalyzePlanResponse> {
    this.checkOpen(what);
    try {
      const res = await this.rpc.analyzePlan({ ...this.base, analyze }, { timeoutMs: this.settings.callTimeoutMs });
      this.observe(res.serverSideSessionId);
      return res;
    } catch (e) {
      throw this.failure(e, what);
    }
  }

  async config(operation: MessageInitShape<typeof ConfigRequestSchema>["operation"], what: string): Promise<ConfigResponse> {
    this.checkOpen(what);
    try {
      const res = await this.rpc.config({ ...this.base, operation }, { timeoutMs: this.settings.callTimeoutMs });
      this.observe(res.serverSideSessionId);
      return res;
    } catch (e) {
      throw this.failure(e, what);
    }
  }

  /** Every response of a plan's execution (for plans whose results are small: commands, collected rows). */
  async executeAll(plan: PlanInit, what: string, signal?: AbortSignal): Promise<ExecutePlanResponse[]> {
    const out: ExecutePlanResponse[] = [];
    for await (const r of this.execute(plan, what, signal)) out.push(r);
    return out;
  }

  /**
   * Runs a plan as a reattachable operation and yields its responses in order, through to
   * ResultComplete. A stream that breaks (the network, or the server ending long streams after
   * spark.connect.execute.reattachable.senderMaxStreamDuration) is resumed after the last response
   * seen, at most `maxReattachAttempts` times in a row. The server's copy of delivered responses is
   * released as the stream goes, and the whole operation at its end (or when the caller stops early).
   */
  async *execute(plan: PlanInit, what: string, signal?: AbortSignal): AsyncGenerator<ExecutePlanResponse> {
    this.checkOpen(what);
    const operationId = randomUUID();
    const options = { signal };
    let lastResponseId: string | undefined;
    let complete = false;
    let failures = 0;
    let sinceRelease = 0;
    let stream: AsyncIterable<ExecutePlanResponse> = this.rpc.executePlan(
      {
        ...this.base,
        operationId,
        plan: create(PlanSchema, plan),
        requestOptions: [{ requestOption: { case: "reattachOptions", value: { reattachable: true } } }],
      },
      options,
    );
    try {
      for (;;) {
        try {
          for await (const r of stream) {
            failures = 0;
            this.observe(r.serverSideSessionId);
            lastResponseId = r.responseId;
            if (r.responseType.case === "resultComplete") complete = true;
            yield r;
            if (++sinceRelease >= RELEASE_EVERY && !complete) {
              sinceRelease = 0;
              this.release(operationId, lastResponseId);
            }
          }
          if (complete) return;
          // The stream ended without ResultComplete: the server closes long streams; resume.
        } catch (e) {
          if (signal?.aborted) throw e;
          const ce = ConnectError.from(e);
          const info = this.failure(ce, what);
          const notFound = (info as { errorClass?: string }).errorClass === OPERATION_NOT_FOUND;
          // Nothing reached the server (no server at that address): fail now, not after the retries.
          const unreachable = lastResponseId === undefined && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|wrong version number/.test(ce.rawMessage);
          const retriable = ce.code === Code.Unavailable || lostConnection(ce);
          if (notFound || unreachable || !retriable || ++failures > this.settings.maxReattachAttempts) throw info;
          await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** (failures - 1), 2_000)));
        }
        stream = this.rpc.reattachExecute({ ...this.base, operationId, ...(lastResponseId ? { lastResponseId } : {}) }, options);
      }
    } finally {
      // Delivered, or abandoned by the caller: the server may let go of the operation.
      this.release(operationId, null);
    }
  }

  /** ReleaseExecute: up to a response (null: the whole operation). Best effort: a failure only keeps the server's copy longer. */
  private release(operationId: string, untilResponseId: string | null): void {
    if (this.closed) return;
    const release: MessageInitShape<typeof ReleaseExecuteRequestSchema>["release"] =
      untilResponseId === null ? { case: "releaseAll", value: {} } : { case: "releaseUntil", value: { responseId: untilResponseId } };
    this.rpc.releaseExecute({ ...this.base, operationId, release }, { timeoutMs: this.settings.callTimeoutMs }).catch(() => undefined);
  }

  /** Ends the server-side session: its streaming queries stop and its temporary views go. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A session the server never answered was never made there: nothing to release, and no reason to dial it again.
    if (this.serverSideSessionId === undefined) return;
    await this.rpc
      .releaseSession({ sessionId: this.sessionId, userContext: { userId: this.spec.userId }, clientType: this.spec.userAgent }, { timeoutMs: this.settings.callTimeoutMs })
      .catch(() => undefined);
  }
}
