import { Table, tableFromIPC } from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { AnalysisError } from "../errors/errors.js";
import type { LogicalPlan } from "../plan/logical.js";
import { schemaOf } from "../plan/schema-of.js";
import type { StreamingQueryManager } from "../runtime/query-manager.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { WriterConfig } from "../runtime/writer-config.js";
import type { Fields } from "../types/dtype.js";
import type { ConnectionSpec } from "./client/connection-string.js";
import { type ClientSettings, SparkConnectClient } from "./client/spark-connect-client.js";
import { assertRunsRemotely, batchFromSparkArrow, compileRelation, type CompileContext, REMOTE_SESSION_CONF, REMOTE_TABLE_PREFIX } from "./compile/index.js";
import { AnalyzePlanRequest_Explain_ExplainMode as ExplainMode } from "./gen/spark/connect/base_pb.js";
import type { Relation } from "./gen/spark/connect/relations_pb.js";
import { RemoteEvents } from "./streaming/remote-events.js";
import { RemoteStreamingQuery } from "./streaming/remote-streaming-query.js";
import { writeStreamStart } from "./streaming/write-stream-start.js";

export interface RemoteSettings extends ClientSettings {
  /** Interval of the calls that keep the server's session (and its queries) alive while nothing else is said, ms. */
  readonly keepAliveMs: number;
}

/** Spark's explain modes, as AnalyzePlan's enum. */
const EXPLAIN_MODES = {
  simple: ExplainMode.SIMPLE,
  extended: ExplainMode.EXTENDED,
  codegen: ExplainMode.CODEGEN,
  cost: ExplainMode.COST,
  formatted: ExplainMode.FORMATTED,
} as const;

/**
 * A session's work on a Spark Connect server: static plans run as ExecutePlan and come back as
 * Arrow; streaming queries start with WriteStreamOperationStart and are followed through the
 * server's listener bus. The plans are the DataFrame API's own, compiled (remote/compile/), so a
 * query runs unchanged on either backend.
 */
export class RemoteBackend {
  readonly client: SparkConnectClient;
  private readonly events: RemoteEvents;
  private readonly keepAlive: NodeJS.Timeout;
  /** Memory sinks of this session's queries: their tables live on the server. */
  private readonly memoryTables = new Map<string, Fields>();
  /** The session settings compiled plans assume (UTC, Spark's non-ANSI rules), set once before the first plan runs. */
  private conf: Promise<void> | null = null;

  constructor(
    spec: ConnectionSpec,
    settings: RemoteSettings,
    private readonly streams: StreamingQueryManager,
    private readonly context: CompileContext,
  ) {
    this.client = new SparkConnectClient(spec, settings);
    this.events = new RemoteEvents(this.client);
    // Any call refreshes the server's session; a session idle for spark.connect.session.manager.defaultSessionTimeout
    // (an hour by default) is closed with its queries. Unref'd: it never keeps the process alive on its own.
    this.keepAlive = setInterval(() => void this.ping(), settings.keepAliveMs);
    this.keepAlive.unref();
  }

  private async ping(): Promise<void> {
    const active = this.events.active();
    try {
      if (active.length === 0) await this.client.analyze({ case: "sparkVersion", value: {} }, "keep-alive");
      else await Promise.all(active.map((q) => q.refresh()));
    } catch {
      // The next call that matters reports the server's state; a missed keep-alive is not an error of its own.
    }
  }

  /** The server's Spark version (AnalyzePlan), e.g. "4.2.0". */
  async sparkVersion(): Promise<string> {
    const res = await this.client.analyze({ case: "sparkVersion", value: {} }, "sparkVersion");
    return res.result.case === "sparkVersion" ? res.result.value.version : "";
  }

  /** A memory sink's table, read where it lives (on the server), or undefined when no query of this session writes one of that name. */
  memoryTable(name: string): { tableId: string; fields: Fields } | undefined {
    const exact = this.memoryTables.has(name) ? name : [...this.memoryTables.keys()].find((k) => k.toLowerCase() === name.toLowerCase());
    return exact === undefined ? undefined : { tableId: `${REMOTE_TABLE_PREFIX}${exact}`, fields: this.memoryTables.get(exact)! };
  }

  memoryTableNames(): string[] {
    return [...this.memoryTables.keys()];
  }

  private relation(plan: LogicalPlan): Relation {
    assertRunsRemotely(plan);
    return compileRelation(plan, this.context);
  }

  /**
   * Sets REMOTE_SESSION_CONF on the server's session, once, as the first call of `what` (whose name
   * its errors carry); a failure is retried by the next call.
   */
  private prepared(what: string): Promise<void> {
    this.conf ??= this.client
      .config({ opType: { case: "set", value: { pairs: Object.entries(REMOTE_SESSION_CONF).map(([key, value]) => ({ key, value })) } } }, what)
      .then(
        () => undefined,
        (e: unknown) => {
          this.conf = null;
          throw e;
        },
      );
    return this.conf;
  }

  /** Runs a static plan on the server; its Arrow batches become one Sluice batch of the plan's schema. */
  async executeStatic(plan: LogicalPlan, action = "collect"): Promise<Batch> {
    const fields = schemaOf(plan);
    const root = this.relation(plan);
    await this.prepared(action);
    const responses = await this.client.executeAll({ opType: { case: "root", value: root } }, action);
    // Each ArrowBatch is a whole Arrow IPC stream (schema and one record batch), one per partition.
    const tables = responses.flatMap((r) => (r.responseType.case === "arrowBatch" ? [tableFromIPC(r.responseType.value.data)] : []));
    const table = tables.length === 1 ? tables[0]! : new Table(tables.flatMap((t) => t.batches));
    return batchFromSparkArrow(table, fields);
  }

  async explain(plan: LogicalPlan, mode: keyof typeof EXPLAIN_MODES): Promise<string> {
    const root = this.relation(plan);
    await this.prepared("explain");
    const res = await this.client.analyze({ case: "explain", value: { plan: { opType: { case: "root", value: root } }, explainMode: EXPLAIN_MODES[mode] } }, "explain");
    return res.result.case === "explain" ? res.result.value.explainString : "";
  }

  /**
   * Starts a streaming query on the server. What cannot run there is refused here, before anything
   * is sent; the server's own refusals (analysis errors) reach the query's calls.
   */
  startStream(plan: LogicalPlan, config: WriterConfig): StreamingQuery {
    const start = writeStreamStart(this.relation(plan), config);
    this.streams.reserveName(config.queryName);
    if (config.sink.kind === "memory" && config.queryName) this.memoryTables.set(config.queryName, schemaOf(plan));
    const query = new RemoteStreamingQuery(
      this.client,
      config.queryName,
      this.streams.bus,
      async () => {
        // The listener bus first: the server then reports the start, and no event of the query is missed.
        await Promise.all([this.events.open(), this.prepared("start")]);
        const responses = await this.client.executeAll(
          { opType: { case: "command", value: { commandType: { case: "writeStreamOperationStart", value: start } } } },
          `start of query ${config.queryName ?? ""}`.trim(),
        );
        for (const r of responses) {
          if (r.responseType.case === "writeStreamOperationStartResult") {
            const result = r.responseType.value;
            return { id: result.queryId?.id ?? "", runId: result.queryId?.runId ?? "", startedEventJson: result.queryStartedEventJson };
          }
        }
        throw new AnalysisError("the Spark Connect server answered the query's start without its id");
      },
      (q) => {
        this.streams.register(q);
        this.events.register(q);
      },
    );
    return query;
  }

  /**
   * The names (else ids) of the queries active in this server-side session, as the server answers
   * StreamingQueryManager.active: what runs on the server, whatever this process believes.
   */
  async activeOnServer(): Promise<string[]> {
    const responses = await this.client.executeAll(
      { opType: { case: "command", value: { commandType: { case: "streamingQueryManagerCommand", value: { command: { case: "active", value: true } } } } } },
      "active queries",
    );
    for (const r of responses) {
      if (r.responseType.case === "streamingQueryManagerCommandResult" && r.responseType.value.resultType.case === "active") {
        return r.responseType.value.resultType.value.activeQueries.map((q) => q.name ?? q.id?.id ?? "");
      }
    }
    return [];
  }

  /** Stops listening and ends the server's session: its streaming queries stop with it. */
  async close(): Promise<void> {
    clearInterval(this.keepAlive);
    await this.events.close();
    await this.client.close();
  }
}
