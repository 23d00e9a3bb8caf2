import type { Batch } from "../batch/batch.js";
import { COMPACT_INTERVAL, type FileSinkFormat, fileSinkOptionsSchema } from "../config/file-sink-options.js";
import { kafkaSinkOptionsSchema, kafkaSinkTransactions } from "../config/kafka-options.js";
import { checkKafkaSecurityOptions, securityOptionsOf } from "../config/kafka-security-options.js";
import {
  consoleSinkOptionsSchema,
  type OutputMode,
  outputModeSchema,
  type TriggerInput,
  toTrigger,
  triggerSchema,
  writerOptionsSchema,
} from "../config/options.js";
import { validateOptions } from "../config/validate.js";
import { AnalysisError, OptionError } from "../errors/errors.js";
import type { LogicalPlan } from "../plan/logical.js";
import type { StreamingQuery } from "../runtime/streaming-query.js";
import type { WriterConfig } from "../runtime/writer-config.js";
import type { SchemaShape } from "../types/dtype.js";
import { DataFrame } from "./data-frame.js";
import type { SessionInternals } from "./session-internals.js";

export type SinkFormat = "console" | "memory" | "kafka" | FileSinkFormat;
export type ForeachBatchFunction<S extends SchemaShape> = (batch: DataFrame<S>, batchId: number) => unknown;

/**
 * Builds and starts a streaming query, as Spark's `DataStreamWriter`:
 * `df.writeStream.outputMode("update").format("console").trigger({ processingTime: "1 second" }).start()`.
 * Every setting is validated at `start()`, which also rejects unsupported operator and output
 * mode combinations before anything runs.
 */
export class DataStreamWriter<S extends SchemaShape> {
  private mode: unknown = "append";
  private sinkFormat: string | null = null;
  private triggerInput: TriggerInput | undefined;
  private name: string | null = null;
  private readonly opts: Record<string, unknown> = {};
  private batchFn: ForeachBatchFunction<S> | null = null;

  /** @internal */
  constructor(
    private readonly session: SessionInternals,
    private readonly plan: LogicalPlan,
  ) {}

  outputMode(mode: OutputMode | Uppercase<OutputMode>): this {
    this.mode = mode;
    return this;
  }

  format(format: SinkFormat): this {
    this.sinkFormat = format;
    return this;
  }

  trigger(trigger: TriggerInput): this {
    this.triggerInput = trigger;
    return this;
  }

  queryName(name: string): this {
    this.name = name;
    return this;
  }

  option(key: string, value: string | number | boolean): this {
    this.opts[key] = value;
    return this;
  }

  options(options: Record<string, string | number | boolean>): this {
    Object.assign(this.opts, options);
    return this;
  }

  /** Calls `fn` on the driver with each batch's output as a static DataFrame and its batch id. */
  foreachBatch(fn: ForeachBatchFunction<S>): this {
    this.batchFn = fn;
    this.sinkFormat = "foreachBatch";
    return this;
  }

  /** Starts the query; `path` is the file sinks' output folder, as `option("path", path)`. */
  start(path?: string): StreamingQuery {
    if (path !== undefined) this.opts["path"] = path;
    return this.session.startStream(this.plan, this.config());
  }

  private config(): WriterConfig {
    const outputMode = validateOptions(outputModeSchema, this.mode, "writeStream.outputMode");
    const trigger = toTrigger(this.triggerInput === undefined ? undefined : validateOptions(triggerSchema, this.triggerInput, "writeStream.trigger"));
    const { checkpointLocation, ...sinkOptions } = validateOptions(writerOptionsSchema, this.opts, "writeStream.option");
    const base = { outputMode, trigger, queryName: this.name, checkpointLocation: checkpointLocation ?? null };
    switch (this.sinkFormat ?? "console") {
      case "console": {
        const o = validateOptions(consoleSinkOptionsSchema, sinkOptions, "console sink");
        return { ...base, sink: { kind: "console", numRows: o.numRows, truncate: o.truncate } };
      }
      case "memory":
        if (!this.name) throw new OptionError('the memory sink needs a query name: call queryName("name") before start(); the results are then readable as session.table("name")');
        noOptions(sinkOptions, "memory sink");
        return { ...base, sink: { kind: "memory" } };
      case "kafka": {
        const o = validateOptions(kafkaSinkOptionsSchema, sinkOptions, "kafka sink");
        checkKafkaSecurityOptions(o, "kafka sink");
        return {
          ...base,
          sink: {
            kind: "kafka",
            bootstrapServers: o["kafka.bootstrap.servers"],
            topic: o.topic ?? null,
            clientId: o["kafka.client.id"],
            transactional: kafkaSinkTransactions(o),
            security: securityOptionsOf(o),
          },
        };
      }
      case "json":
      case "parquet":
      case "arrow": {
        const format = this.sinkFormat as FileSinkFormat;
        if (outputMode !== "append") throw new AnalysisError(`Data source ${format} does not support ${outputMode[0]!.toUpperCase()}${outputMode.slice(1)} output mode`);
        const o = validateOptions(fileSinkOptionsSchema, sinkOptions, `${format} sink`);
        return { ...base, sink: { kind: "file", format, path: o.path, maxRecordsPerFile: o.maxRecordsPerFile, compactInterval: o[COMPACT_INTERVAL] } };
      }
      case "foreachBatch": {
        noOptions(sinkOptions, "foreachBatch sink");
        const fn = this.batchFn!;
        const session = this.session as SessionInternals & { withBatchFrame(batch: Batch, fn: (df: DataFrame<any>) => unknown): Promise<void> };
        return { ...base, sink: { kind: "foreachBatch", fn: (batch, id) => session.withBatchFrame(batch, (df) => fn(df, id)) } };
      }
      default:
        throw new OptionError(`writeStream.format("${this.sinkFormat}") is not a sink Sluice has; use "console", "memory", "kafka", "json", "parquet", "arrow" or foreachBatch(fn)`);
    }
  }
}

function noOptions(options: Record<string, unknown>, where: string): void {
  const keys = Object.keys(options);
  if (keys.length) throw new OptionError(`${where}: unknown option${keys.length > 1 ? "s" : ""} ${keys.map((k) => `"${k}"`).join(", ")}; it takes only checkpointLocation`);
}
