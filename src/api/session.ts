import * as os from "node:os";
import type * as arrow from "apache-arrow";
import type { z } from "zod";
import { type Batch, makeBatch } from "../batch/batch.js";
import { canonicalColumn } from "../batch/numeric-columns.js";
import { rowsToBatch } from "../batch/rows.js";
import { sessionOptionsSchema, type SessionOptions } from "../config/options.js";
import { validateOptions } from "../config/validate.js";
import { AnalysisError } from "../errors/errors.js";
import type { LogicalPlan } from "../plan/logical.js";
import { dtypeOfArrow } from "../schema/arrow-types.js";
import { fieldsFromZod, type SchemaOfZod } from "../schema/zod-schema.js";
import { CONSOLE_PROGRESS_UPDATE_INTERVAL, SHOW_CONSOLE_PROGRESS } from "../config/sql-conf.js";
import { ConsoleProgressBar, FIRST_DELAY_MS, type ProgressTerminal } from "../runtime/console-progress.js";
import type { EngineContext, RetentionSettings } from "../runtime/engine-context.js";
import { StreamingQueryManager } from "../runtime/query-manager.js";
import { startStream } from "../runtime/start-stream.js";
import { executeStatic } from "../runtime/static-execution.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { WriterConfig } from "../runtime/writer-config.js";
import { closeSourceConnections } from "../sources/source-runtimes.js";
import { MemorySink } from "../sinks/memory-sink.js";
import { MemoryStreamData } from "../sources/memory/memory-stream.js";
import type { RowOf, SchemaShape } from "../types/dtype.js";
import { TaskPool, type TaskPoolOptions } from "../workers/pool.js";
import { WebServers } from "../ui/web-servers.js";
import { UI_RETAINED_PROGRESS_UPDATES, UI_RETAINED_QUERIES } from "../config/sql-conf.js";
import { DataFrame } from "./data-frame.js";
import { MemoryStream } from "./memory-stream.js";
import { RuntimeConfig } from "./runtime-config.js";
import { Catalog } from "./catalog.js";
import { TempViews } from "./temp-views.js";
import { sqlToDataFrame } from "../sql/run-sql.js";
import type { SqlServerOptions } from "../config/sql-server-options.js";
import { SqlServer } from "../sql-server/sql-server.js";
import { DataFrameReader, DataStreamReader, type SchemaOfArrow } from "./readers.js";
import type { ExplainMode, SessionInternals } from "./session-internals.js";
import { explainPlan } from "../plan/explain.js";
import { parseConnectionString } from "../remote/client/connection-string.js";
import { RemoteBackend } from "../remote/remote-backend.js";

/**
 * The entry point, as Spark's SparkSession: readers for streams and static data, the worker pool
 * tasks run in, the memory tables of memory sinks, and the streaming queries it started.
 *
 * ```ts
 * const session = new Session({ workers: 2 });
 * ...
 * await session.stop();
 * ```
 */
export class Session implements SessionInternals {
  // Listener callbacks often print: the progress bar steps aside while they run.
  readonly streams = new StreamingQueryManager((deliver) => this.consoleProgress.aside(deliver));
  /** Spark SQL settings (Spark's `spark.conf`); queries read them when they start. */
  readonly conf: RuntimeConfig;
  private readonly workers: number;
  private readonly poolOptions: Omit<TaskPoolOptions, "workers">;
  private readonly retention: RetentionSettings;
  private readonly checkpointRoot: string | null;
  private readonly stopTimeoutMs: number;
  private poolInstance: TaskPool | null = null;
  private readonly memoryStreams = new Map<string, MemoryStreamData>();
  private readonly tables = new Map<string, () => readonly Batch[]>();
  private readonly memorySinks = new Map<string, MemorySink>();
  private nextTable = 0;
  /**
   * @internal Where the progress bar is drawn (stderr) and how long work runs before it shows
   * (Spark's 500 ms); tests hand in a stream that is a terminal, and no delay.
   */
  progressOutput: { terminal: ProgressTerminal; firstDelayMs: number } = { terminal: process.stderr, firstDelayMs: FIRST_DELAY_MS };
  private readonly consoleProgress = new ConsoleProgressBar(
    () => this.progressOutput,
    () => ({ enabled: this.conf.values[SHOW_CONSOLE_PROGRESS], updateIntervalMs: this.conf.values[CONSOLE_PROGRESS_UPDATE_INTERVAL] }),
  );
  private readonly web: WebServers | null;
  private readonly tempViews = new TempViews();
  private readonly sqlServers = new Set<SqlServer>();
  /** The Spark Connect server queries run on, or null: the embedded engine. */
  private readonly remote: RemoteBackend | null;

  constructor(options: SessionOptions = {}) {
    const o = validateOptions(sessionOptionsSchema, options, "Session");
    this.workers = o.workers ?? os.availableParallelism();
    this.poolOptions = {
      maxTaskAttempts: o.maxTaskAttempts,
      taskTimeoutMs: o.taskTimeout,
      taskRetryBackoffMs: o.taskRetryBackoff,
      taskRetryMaxBackoffMs: o.taskRetryMaxBackoff,
      resourceLimits: o.workerResourceLimits,
    };
    this.retention = { minBatchesToRetain: o.minBatchesToRetain, minDeltasForSnapshot: o.minDeltasForSnapshot };
    this.checkpointRoot = o.checkpointLocation ?? null;
    this.stopTimeoutMs = o.stopTimeout;
    this.conf = new RuntimeConfig(options.conf);
    this.remote = o.remote === undefined ? null : remoteBackend(o.remote, this.streams, (id) => this.engine.tableBatches(id));
    this.web = WebServers.start({ ui: o.ui, metrics: o.metrics }, this.streams, () => ({
      retainedProgressUpdates: this.conf.values[UI_RETAINED_PROGRESS_UPDATES],
      retainedQueries: this.conf.values[UI_RETAINED_QUERIES],
    }));
  }

  /**
   * The web UI's address (Spark's `uiWebUrl`), e.g. "http://127.0.0.1:4040"; null when the UI is
   * off, and until it listens (`await session.webReady()`).
   */
  get uiWebUrl(): string | null {
    return this.web?.uiWebUrl ?? null;
  }

  /** Where Prometheus scrapes the session's query metrics, e.g. "http://127.0.0.1:4040/metrics"; null when off or not yet listening. */
  get metricsUrl(): string | null {
    return this.web?.metricsUrl ?? null;
  }

  /**
   * Resolves once the web UI and metrics servers listen (at once when both are off); rejects with
   * an OptionError naming the option when a port cannot be had.
   */
  async webReady(): Promise<void> {
    await this.web?.ready;
  }

  /** True when the session's queries run on a Spark Connect server (`new Session({ remote })`). */
  get isRemote(): boolean {
    return this.remote !== null;
  }

  /** The Spark version that runs the session's queries: the server's (AnalyzePlan) in a remote session; null for the embedded engine. */
  async sparkVersion(): Promise<string | null> {
    return this.remote ? this.remote.sparkVersion() : null;
  }

  /** @internal The Spark Connect backend of a remote session (null: embedded), for tests that ask the server itself. */
  get remoteBackend(): RemoteBackend | null {
    return this.remote;
  }

  /** Worker threads tasks run in (0: inline on the driver). */
  get numWorkers(): number {
    return this.workers;
  }

  /** @internal */
  get pool(): TaskPool {
    this.poolInstance ??= new TaskPool({ workers: this.workers, ...this.poolOptions });
    return this.poolInstance;
  }

  get readStream(): DataStreamReader {
    return new DataStreamReader(this, true);
  }

  get read(): DataFrameReader {
    return new DataFrameReader(this, false);
  }

  /** A stream fed from code: `stream.addData(rows)`, `stream.toDF()`. */
  memoryStream<Z extends z.ZodObject<any>>(schema: Z): MemoryStream<SchemaOfZod<Z>> {
    const data = new MemoryStreamData<SchemaOfZod<Z>>(fieldsFromZod(schema));
    this.memoryStreams.set(data.id, data);
    return new MemoryStream(this, data);
  }

  /** A static DataFrame over rows, typed by a zod schema. */
  createDataFrame<Z extends z.ZodObject<any>>(rows: readonly RowOf<SchemaOfZod<Z>>[], schema: Z): DataFrame<SchemaOfZod<Z>> {
    const fields = fieldsFromZod(schema);
    return this.dataFrameOf(rowsToBatch(rows as readonly Record<string, unknown>[], fields));
  }

  /**
   * A static DataFrame over an Arrow table. Columns already in Sluice's Arrow types are used as
   * they are (no copy); others convert once, here (timestamps of other units to milliseconds,
   * narrower integers and floats widened: see batch/numeric-columns.ts).
   */
  fromArrow<T extends arrow.TypeMap>(table: arrow.Table<T>): DataFrame<SchemaOfArrow<T>> {
    const fields = table.schema.fields.map((f) => ({ name: f.name, type: dtypeOfArrow(f.type, f.name), nullable: f.nullable }));
    const batches = table.batches.map((rb) => makeBatch(fields, rb.data.children.map((d, i) => canonicalColumn(d, fields[i]!.type, fields[i]!.name)), rb.numRows));
    return this.tableFrame(() => batches, fields);
  }

  /**
   * A temporary view, or the rows a memory sink has received as a static DataFrame (read when an
   * action runs).
   */
  table<S extends SchemaShape = SchemaShape>(name: string): DataFrame<S> {
    const found = this.relation(name);
    if (!found) {
      throw new AnalysisError(`Table or view not found: ${name}; a memory sink creates it: writeStream.format("memory").queryName("${name}"), a DataFrame with createOrReplaceTempView("${name}")`, {
        errorClass: "TABLE_OR_VIEW_NOT_FOUND",
        sqlState: "42P01",
      });
    }
    return found;
  }

  /**
   * A SQL query over the session's temporary views and memory-sink tables, as a DataFrame over the
   * same logical plan the DataFrame API builds (Spark's `spark.sql`): streaming when it reads a
   * stream. `S` states the result's schema type where the caller knows it; the columns at run time
   * come from the query.
   */
  sql<S extends SchemaShape = SchemaShape>(sqlText: string): DataFrame<S> {
    return sqlToDataFrame(sqlText, {
      view: (name) => this.relation(name),
      oneRow: () => this.dataFrameOf(rowsToBatch([{ one_row: 1 }], [{ name: "one_row", type: "int32", nullable: false }])),
    });
  }
  /**
   * Serves `SELECT` over the session's memory-sink tables and temp views on the Postgres wire
   * protocol, so psql, the pg package and BI tools can query tables while streaming queries update
   * them (what Spark's Thrift server does for beeline). Off until called; `stop()` closes it.
   *
   * ```ts
   * const server = await session.serveSql({ port: 5432, password: process.env.SLUICE_SQL_PASSWORD });
   * // psql "postgresql://sluice@127.0.0.1:5432/sluice" -c "SELECT * FROM word_counts"
   * ```
   */
  async serveSql(options: SqlServerOptions = {}): Promise<SqlServer> {
    const server = await SqlServer.start(
      {
        plan: (text) => {
          const df = this.sql(text);
          return { fields: df.schema, isStreaming: df.isStreaming, execute: () => this.executeStatic(df.plan) };
        },
      },
      options,
    );
    this.sqlServers.add(server);
    server.onClose(() => this.sqlServers.delete(server));
    return server;
  }


  /** Spark's `spark.catalog`: temporary views (`dropTempView`) and memory-sink tables. */
  get catalog(): Catalog {
    return new Catalog(this.tempViews, () => (this.remote ? this.remote.memoryTableNames() : [...this.memorySinks.keys()]));
  }

  /** @internal `df.createTempView` / `createOrReplaceTempView`. */
  createTempView(name: string, df: DataFrame<any>, replace: boolean): void {
    this.tempViews.create(name, df, replace);
  }

  /** A temporary view, else a memory sink's table (its queryName; case-insensitively when no exact match). */
  private relation(name: string): DataFrame<any> | undefined {
    const view = this.tempViews.get(name);
    if (view) return view;
    if (this.remote) {
      // A memory sink of a remote query fills a table on the server: read there.
      const table = this.remote.memoryTable(name);
      return table && new DataFrame(this, { kind: "source", streaming: false, source: { format: "table", tableId: table.tableId, fields: table.fields }, fields: table.fields });
    }
    const sinkName = this.memorySinks.has(name) ? name : [...this.memorySinks.keys()].find((k) => k.toLowerCase() === name.toLowerCase());
    const sink = sinkName === undefined ? undefined : this.memorySinks.get(sinkName);
    // One table entry per sink, whatever the number of queries that read it (a BI tool polls).
    return sink && this.tableFrame(() => sink.contents(), sink.fields, `memory-sink:${sinkName}`);
  }

  /** @internal A static DataFrame over one batch. */
  dataFrameOf(batch: Batch): DataFrame<any> {
    return this.tableFrame(() => [batch], batch.fields);
  }

  /**
   * @internal Calls a foreachBatch function with a static DataFrame over its batch, usable while the
   * call runs (as in Spark): the batch is let go when it returns, so a long-running stream does not
   * keep every batch it ever handed out.
   */
  async withBatchFrame(batch: Batch, fn: (df: DataFrame<any>) => unknown): Promise<void> {
    const tableId = `batch-${this.nextTable++}`;
    try {
      await fn(this.tableFrame(() => [batch], batch.fields, tableId));
    } finally {
      this.tables.delete(tableId);
    }
  }

  private tableFrame(batches: () => readonly Batch[], fields: Batch["fields"], tableId = `table-${this.nextTable++}`): DataFrame<any> {
    this.tables.set(tableId, batches);
    return new DataFrame(this, { kind: "source", streaming: false, source: { format: "table", tableId, fields }, fields });
  }

  /** Stops every query, the worker pool and the web UI and metrics servers. */
  async stop(): Promise<void> {
    await Promise.all([...this.sqlServers].map((s) => s.close()));
    await this.streams.stopAll();
    await closeSourceConnections();
    await this.poolInstance?.destroy();
    this.poolInstance = null;
    await this.web?.close();
    await this.remote?.close();
  }

  // ---- what the runtime needs from the session ----

  /** @internal Runs a static plan to one batch, with the same operators streams use. */
  executeStatic(plan: LogicalPlan, action?: string): Promise<Batch> {
    return this.remote ? this.remote.executeStatic(plan, action) : executeStatic(this.engine, plan, action);
  }

  /** @internal */
  startStream(plan: LogicalPlan, config: WriterConfig): StreamingQuery {
    return this.remote ? this.remote.startStream(plan, config) : startStream(this.engine, plan, config);
  }

  /** @internal */
  async explain(plan: LogicalPlan, mode: ExplainMode): Promise<string> {
    return this.remote ? this.remote.explain(plan, mode) : explainPlan(plan);
  }

  private get engine(): EngineContext {
    const session = this;
    return {
      get pool() {
        return session.pool;
      },
      streams: this.streams,
      consoleProgress: this.consoleProgress,
      retention: this.retention,
      checkpointRoot: this.checkpointRoot,
      stopTimeoutMs: this.stopTimeoutMs,
      get conf() {
        return session.conf.values;
      },
      memoryStream: (id) => this.memoryStreams.get(id),
      tableBatches: (id) => {
        const read = this.tables.get(id);
        if (read) return read();
        throw new AnalysisError(
          id.startsWith("batch-")
            ? "this DataFrame was handed to a foreachBatch function whose call has returned, and its batch is let go: use it inside the call (collect() its rows to keep them)"
            : `table ${id} is not in this session: a DataFrame over in-memory data is used in the session that made it`,
        );
      },
      memorySink: (name, fields) => {
        let sink = this.memorySinks.get(name);
        if (!sink) this.memorySinks.set(name, (sink = new MemorySink(name, fields)));
        return sink;
      },
    };
  }
}

/** The backend of `new Session({ remote })`, with the client's settings' defaults. */
function remoteBackend(
  option: NonNullable<z.output<typeof sessionOptionsSchema>["remote"]>,
  streams: StreamingQueryManager,
  tableBatches: (tableId: string) => readonly Batch[],
): RemoteBackend {
  const o = typeof option === "string" ? { url: option } : option;
  return new RemoteBackend(
    parseConnectionString(o.url),
    {
      keepAliveMs: o.keepAliveInterval ?? 60_000,
      callTimeoutMs: o.callTimeout ?? 60_000,
      pingIntervalMs: o.pingInterval ?? 10_000,
      maxReattachAttempts: o.maxReattachAttempts ?? 5,
    },
    streams,
    { tableBatches },
  );
}
