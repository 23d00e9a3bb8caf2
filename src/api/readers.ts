import type * as arrow from "apache-arrow";
import type { z } from "zod";
import { columnarOptionsSchema, jsonOptionsSchema, rateOptionsSchema } from "../config/options.js";
import { validateOptions } from "../config/validate.js";
import { OptionError } from "../errors/errors.js";
import type { JsonReadOptions } from "../sources/json/json-desc.js";
import { kafkaSourceDesc } from "../sources/kafka/kafka-desc.js";
import type { KafkaHeadersSchema, KafkaMetadataSchema, KafkaSchema } from "../sources/kafka/kafka-fields.js";
import type { SourceDesc } from "../sources/source-desc.js";
import { fieldsFromZod, type SchemaOfZod } from "../schema/zod-schema.js";
import { RATE_FIELDS } from "../sources/rate/generate-rate-rows.js";
import type { ColType, Fields, SchemaShape } from "../types/dtype.js";
import { DataFrame } from "./data-frame.js";
import type { SessionInternals } from "./session-internals.js";

/** Columns of the rate source, as Spark's. */
export type RateSchema = {
  readonly timestamp: ColType<"timestamp", false>;
  readonly value: ColType<"int64", false>;
};

export type StreamFormat = "json" | "parquet" | "arrow" | "rate" | "kafka";
/** File formats read by path: JSON lines, Parquet, Arrow IPC files. */
type FileFormat = "json" | "parquet" | "arrow";

/**
 * Kafka's columns, or with a record schema its decoded fields followed by Kafka's metadata
 * columns; `headers` too when `H` (`option("includeHeaders", true)`).
 */
export type KafkaOutput<S extends SchemaShape, H extends boolean = false> = (keyof S extends never ? KafkaSchema : S & KafkaMetadataSchema) &
  (H extends true ? KafkaHeadersSchema : {});
type OptionValue = string | number | boolean;

/** Options shared by the stream and the static reader. */
abstract class ReaderBase<S extends SchemaShape, F extends StreamFormat> {
  protected fields: Fields | null = null;
  protected sourceFormat: StreamFormat = "json";
  protected readonly opts: Record<string, OptionValue> = {};

  constructor(
    protected readonly session: SessionInternals,
    protected readonly streaming: boolean,
  ) {}

  protected setSchema(schema: z.ZodObject<any>): void {
    this.fields = fieldsFromZod(schema);
  }

  option(key: string, value: OptionValue): this {
    this.opts[key] = value;
    return this;
  }

  options(options: Record<string, OptionValue>): this {
    Object.assign(this.opts, options);
    return this;
  }

  /** JSON-lines files: a folder (streams read new files as they appear) or, for `read`, one file. */
  json(path: string): DataFrame<S> {
    if (!this.fields) {
      throw new OptionError('json(): declare the record schema first with .schema(z.object({ ... })); Sluice does not infer schemas');
    }
    const o = validateOptions(jsonOptionsSchema, this.opts, `${this.streaming ? "readStream" : "read"}.json("${path}")`);
    const options: JsonReadOptions = {
      mode: o.mode,
      columnNameOfCorruptRecord: o.columnNameOfCorruptRecord,
      maxFilesPerTrigger: o.maxFilesPerTrigger ?? null,
      pathGlobFilter: o.pathGlobFilter ?? null,
      maxPartitionBytes: o.maxPartitionBytes,
    };
    const corrupt = this.fields.find((f) => f.name === options.columnNameOfCorruptRecord);
    if (corrupt && corrupt.type !== "string") {
      throw new OptionError(`columnNameOfCorruptRecord: the schema field "${corrupt.name}" must be a nullable string to hold corrupt records, but is ${corrupt.type}`);
    }
    return this.frame({ format: "json", path, fields: this.fields, options });
  }

  /**
   * Parquet files: a folder (streams read new files as they appear) or one file. Columns are
   * matched by name against the declared schema; a file sink's folder is read through its manifest.
   */
  parquet(path: string): DataFrame<S> {
    return this.columnar("parquet", path);
  }

  protected columnar(format: "parquet" | "arrow", path: string): DataFrame<any> {
    if (!this.fields) {
      throw new OptionError(`${format}(): declare the record schema first with .schema(z.object({ ... })); Sluice does not infer schemas`);
    }
    const o = validateOptions(columnarOptionsSchema, this.opts, `${this.streaming ? "readStream" : "read"}.${format}("${path}")`);
    return this.frame({ format, path, fields: this.fields, options: { maxFilesPerTrigger: o.maxFilesPerTrigger ?? null, pathGlobFilter: o.pathGlobFilter ?? null } });
  }

  /** Reads a file format by path, as `load(path)` does after `format(...)`. */
  protected file(format: FileFormat, path: string | undefined): DataFrame<any> {
    if (path === undefined) throw new OptionError(`load(): the ${format} source needs a path to a file or a folder of ${format === "json" ? "JSON-lines" : format === "parquet" ? "Parquet" : "Arrow IPC"} files`);
    return format === "json" ? this.json(path) : this.columnar(format, path);
  }

  /** Kafka topics: options as Spark's Kafka source (`kafka.bootstrap.servers`, `subscribe`, ...). */
  protected kafka(): DataFrame<any> {
    return this.frame(kafkaSourceDesc(this.opts, this.fields, this.streaming));
  }

  protected frame(source: SourceDesc): DataFrame<any> {
    return new DataFrame(this.session, { kind: "source", streaming: this.streaming, source, fields: source.fields });
  }
}

/**
 * `session.readStream`, as Spark's DataStreamReader:
 * `readStream.schema(Click).option("maxFilesPerTrigger", 1).json("clicks/")` or
 * `readStream.format("rate").option("rowsPerSecond", 100).load()`.
 */
export class DataStreamReader<S extends SchemaShape = {}, F extends StreamFormat = "json", H extends boolean = false> extends ReaderBase<S, F> {
  /** `option("includeHeaders", true)` adds Kafka's `headers` column to the DataFrame's type too. */
  override option(key: "includeHeaders", value: true | "true"): DataStreamReader<S, F, true>;
  override option(key: string, value: OptionValue): this;
  override option(key: string, value: OptionValue): any {
    return super.option(key, value);
  }

  format<F2 extends StreamFormat>(format: F2): DataStreamReader<S, F2, H> {
    if (!(["json", "parquet", "arrow", "rate", "kafka"] as const).includes(format)) {
      throw new OptionError(`readStream.format("${format}") is not a source Sluice has; use "json", "parquet", "arrow", "rate", "kafka", or session.memoryStream(schema)`);
    }
    this.sourceFormat = format;
    return this as any;
  }

  /** Declares the record schema with a zod object; column names and types follow from it. */
  schema<Z extends z.ZodObject<any>>(schema: Z): DataStreamReader<SchemaOfZod<Z>, F, H> {
    this.setSchema(schema);
    return this as any;
  }

  load(path?: string): DataFrame<F extends "rate" ? RateSchema : F extends "kafka" ? KafkaOutput<S, H> : S> {
    if (this.sourceFormat === "kafka") return this.kafka();
    if (this.sourceFormat === "rate") {
      const o = validateOptions(rateOptionsSchema, this.opts, "rate source");
      return this.frame({ format: "rate", fields: RATE_FIELDS, rowsPerSecond: o.rowsPerSecond, numPartitions: o.numPartitions, rampUpTimeMs: o.rampUpTime });
    }
    return this.file(this.sourceFormat, path);
  }
}

/** `session.read`: the same readers for static data. */
export class DataFrameReader<S extends SchemaShape = {}, F extends FileFormat | "kafka" = "json", H extends boolean = false> extends ReaderBase<S, "json"> {
  /** `option("includeHeaders", true)` adds Kafka's `headers` column to the DataFrame's type too. */
  override option(key: "includeHeaders", value: true | "true"): DataFrameReader<S, F, true>;
  override option(key: string, value: OptionValue): this;
  override option(key: string, value: OptionValue): any {
    return super.option(key, value);
  }

  format<F2 extends FileFormat | "kafka">(format: F2): DataFrameReader<S, F2, H> {
    if (!(["json", "parquet", "arrow", "kafka"] as const).includes(format)) {
      throw new OptionError(`read.format("${format}") is not a source Sluice has; use "json", "parquet", "arrow" or "kafka"`);
    }
    this.sourceFormat = format;
    return this as any;
  }

  load(path?: string): DataFrame<F extends "kafka" ? KafkaOutput<S, H> : S> {
    if (this.sourceFormat === "kafka") return this.kafka();
    return this.file(this.sourceFormat as FileFormat, path);
  }

  /** Declares the record schema with a zod object; column names and types follow from it. */
  schema<Z extends z.ZodObject<any>>(schema: Z): DataFrameReader<SchemaOfZod<Z>, F, H> {
    this.setSchema(schema);
    return this as any;
  }
}

/** Schema shape of an Arrow table type map, for `read.arrow(table)`. */
export type SchemaOfArrow<T extends arrow.TypeMap> = {
  readonly [K in keyof T & string]: ColType<
    T[K] extends arrow.Utf8 | arrow.Dictionary<arrow.Utf8>
      ? "string"
      : T[K] extends arrow.Float
        ? "float64"
        : T[K] extends arrow.Int64 | arrow.Uint64 | arrow.Uint32
          ? "int64"
          : T[K] extends arrow.Int
            ? "int32"
            : T[K] extends arrow.Bool
              ? "boolean"
              : T[K] extends arrow.Timestamp | arrow.Date_
                ? "timestamp"
                : T[K] extends arrow.Binary | arrow.LargeBinary
                  ? "binary"
                  : never,
    true
  >;
};
