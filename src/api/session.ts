import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as arrow from "apache-arrow";
import type { z } from "zod";
import { type Batch, makeBatch } from "../batch/batch.js";
import { rowsToBatch } from "../batch/rows.js";
import { Checkpoint } from "../checkpoint/checkpoint.js";
import { sessionOptionsSchema, type SessionOptions } from "../config/options.js";
import { validateOptions } from "../config/validate.js";
import { AnalysisError } from "../errors/errors.js";
import { buildStaticJoinTable } from "../operators/static-join.js";
import type { LogicalPlan } from "../plan/logical.js";
import { checkStreamingQuery } from "../plan/unsupported-operations.js";
import type { PhysicalPlan } from "../planner/physical.js";
import { planPhysical } from "../planner/planner.js";
import { dtypeOfArrow } from "../schema/arrow-types.js";
import { fieldsFromZod, type SchemaOfZod } from "../schema/zod-schema.js";
import { openStatefulStage, statefulName } from "../runtime/open-stateful.js";
import { applyPostSteps, runPipelines } from "../runtime/batch-runner.js";
import { MicroBatchExecution } from "../runtime/micro-batch-execution.js";
import { StreamingQueryManager } from "../runtime/query-manager.js";
import { StreamingQuery } from "../runtime/streaming-query.js";
import type { WriterConfig } from "../runtime/writer-config.js";
import { ConsoleSink } from "../sinks/console-sink.js";
import { KafkaSink } from "../sinks/kafka-sink.js";
import { closeClusters } from "../sources/kafka/kafka-cluster.js";
import { FileSink } from "../sinks/file/file-sink.js";
import { ForeachBatchSink } from "../sinks/foreach-batch-sink.js";
import { MemorySink } from "../sinks/memory-sink.js";
import type { Sink } from "../sinks/sink.js";
import { createStreamSource } from "../sources/create-stream-source.js";
import { MemoryStreamData } from "../sources/memory/memory-stream.js";
import { describeSource } from "../sources/source.js";
import { staticSplits } from "../sources/static-splits.js";
import { StateStoreRegistry } from "../runtime/state-registry.js";
import type { RowOf, SchemaShape } from "../types/dtype.js";
import { TaskPool } from "../workers/pool.js";
import { DataFrame } from "./data-frame.js";
import { MemoryStream } from "./memory-stream.js";
import { DataFrameReader, DataStreamReader, type SchemaOfArrow } from "./readers.js";
import type { SessionInternals } from "./session-internals.js";

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
  readonly streams = new StreamingQueryManager();
  private readonly workers: number;
  private readonly maxTaskAttempts: number | undefined;
  private poolInstance: TaskPool | null = null;
  private readonly memoryStreams = new Map<string, MemoryStreamData>();
  private readonly tables = new Map<string, () => readonly Batch[]>();
  private readonly memorySinks = new Map<string, MemorySink>();
  /** State survives stop()/start() of a query in this process, keyed by checkpoint folder. */
  private readonly stateStores = new StateStoreRegistry();
  private nextTable = 0;

  constructor(options: SessionOptions = {}) {
    const o = validateOptions(sessionOptionsSchema, options, "Session");
    this.workers = o.workers ?? os.availableParallelism();
    this.maxTaskAttempts = o.maxTaskAttempts;
  }

  /** Worker threads tasks run in (0: inline on the driver). */
  get numWorkers(): number {
    return this.workers;
  }

  /** @internal */
  get pool(): TaskPool {
    this.poolInstance ??= new TaskPool({ workers: this.workers, maxTaskAttempts: this.maxTaskAttempts });
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

  /** A static DataFrame over an Arrow table (its buffers are used as they are). */
  fromArrow<T extends arrow.TypeMap>(table: arrow.Table<T>): DataFrame<SchemaOfArrow<T>> {
    const fields = table.schema.fields.map((f) => ({ name: f.name, type: dtypeOfArrow(f.type, f.name), nullable: f.nullable }));
    const batches = table.batches.map((rb) => makeBatch(fields, rb.data.children, rb.numRows));
    return this.tableFrame(() => batches, fields);
  }

  /** The rows a memory sink has received, as a static DataFrame (read when an action runs). */
  table<S extends SchemaShape = SchemaShape>(name: string): DataFrame<S> {
    const sink = this.memorySinks.get(name);
    if (!sink) {
      throw new AnalysisError(`Table or view not found: ${name}; a memory sink creates it: writeStream.format("memory").queryName("${name}")`);
    }
    return this.tableFrame(() => sink.contents(), sink.fields);
  }

  /** @internal A static DataFrame over one batch (foreachBatch hands these out). */
  dataFrameOf(batch: Batch): DataFrame<any> {
    return this.tableFrame(() => [batch], batch.fields);
  }

  private tableFrame(batches: () => readonly Batch[], fields: Batch["fields"]): DataFrame<any> {
    const tableId = `table-${this.nextTable++}`;
    this.tables.set(tableId, batches);
    return new DataFrame(this, { kind: "source", streaming: false, source: { format: "table", tableId, fields }, fields });
  }

  /** Stops every query and the worker pool. */
  async stop(): Promise<void> {
    await this.streams.stopAll();
    await closeClusters();
    await this.poolInstance?.destroy();
    this.poolInstance = null;
  }

  // ---- execution ----

  private async buildStaticTables(plan: PhysicalPlan): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const t of plan.staticTables) out[t.tableId] = buildStaticJoinTable(await this.executeStatic(t.plan), t.on);
    return out;
  }

  /** @internal Runs a static plan to one batch, with the same operators streams use. */
  async executeStatic(plan: LogicalPlan): Promise<Batch> {
    const physical = planPhysical(plan);
    const staticTables = await this.buildStaticTables(physical);
    const lookup = (id: string) => this.tables.get(id)?.() ?? [];
    const splits = await Promise.all(physical.inputs.map((p) => staticSplits(p.source, lookup)));
    const out = await runPipelines(this.pool, physical.inputs, splits, { batchId: 0, watermarkMs: null, batchTimestampMs: Date.now() }, staticTables, physical.watermarks.length);
    const stage = openStatefulStage(physical, "complete", null, 0);
    return applyPostSteps(stage.run(out.batches, null).output, physical.post);
  }

  /** @internal */
  startStream(plan: LogicalPlan, config: WriterConfig): StreamingQuery {
    const physical = planPhysical(plan);
    checkStreamingQuery(physical, config.outputMode);
    for (const p of physical.inputs) {
      if (p.source.format === "table") throw new AnalysisError("Union between streaming and batch DataFrames/Datasets is not supported");
    }
    if (config.trigger.kind === "availableNow" && physical.inputs.some((p) => p.source.format === "rate")) {
      throw new AnalysisError("the rate source does not support Trigger.AvailableNow: it never runs out of data");
    }
    this.streams.reserveName(config.queryName);
    const sink = this.createSink(config, physical);
    const checkpointDir = config.checkpointLocation ?? path.join(os.tmpdir(), "sluice-checkpoints", randomUUID());
    const temporary = config.checkpointLocation === null;

    let query!: StreamingQuery;
    query = new StreamingQuery(
      randomUUID(),
      config.queryName,
      this.streams.bus,
      async (q) => {
        const checkpoint = new Checkpoint(checkpointDir);
        const meta = await checkpoint.claim(
          { sources: physical.inputs.map((p) => describeSource(p.source)), stateful: statefulName(physical) },
          q.id,
        );
        const staticTables = await this.buildStaticTables(physical);
        const sources = physical.inputs.map((p, i) =>
          createStreamSource(p.source, i, { memoryStream: (id) => this.memoryStreams.get(id), sourceDir: (i) => checkpoint.sourceDir(i) }),
        );
        const stores = this.stateStores.forCheckpoint(path.resolve(checkpointDir));
        const execution = new MicroBatchExecution({
          id: meta.id,
          runId: q.runId,
          name: config.queryName,
          plan: physical,
          sources,
          sink,
          outputMode: config.outputMode,
          trigger: config.trigger,
          checkpoint,
          pool: this.pool,
          openStateful: (version) => openStatefulStage(physical, config.outputMode, stores, version),
          staticTables,
          onProgress: (p) => q.recordProgress(p),
          onIdle: () => q.recordIdle(),
        });
        return { execution, id: meta.id, done: execution.run() };
      },
      async () => {
        if (temporary) await fs.rm(checkpointDir, { recursive: true, force: true });
      },
    );
    this.streams.register(query);
    return query;
  }

  private createSink(config: WriterConfig, physical: PhysicalPlan): Sink {
    switch (config.sink.kind) {
      case "console":
        return new ConsoleSink({ numRows: config.sink.numRows, truncate: config.sink.truncate });
      case "memory": {
        const existing = this.memorySinks.get(config.queryName!);
        const sink = existing ?? new MemorySink(config.queryName!, physical.outputFields);
        this.memorySinks.set(config.queryName!, sink);
        return sink;
      }
      case "kafka":
        KafkaSink.checkSchema(physical.outputFields, config.sink.topic);
        return new KafkaSink(config.sink);
      case "foreachBatch":
        return new ForeachBatchSink(config.sink.fn);
      case "file":
        return new FileSink(config.sink, physical.outputFields);
    }
  }
}
