import { create } from "@bufbuild/protobuf";
import type { Batch } from "../../batch/batch.js";
import type { KafkaSourceOptions } from "../../config/kafka-options.js";
import type { LogicalPlan } from "../../plan/logical.js";
import type { ColumnarSourceDesc } from "../../sources/columnar/columnar-desc.js";
import type { JsonSourceDesc } from "../../sources/json/json-desc.js";
import type { KafkaSourceDesc } from "../../sources/kafka/kafka-desc.js";
import { kafkaFields } from "../../sources/kafka/kafka-fields.js";
import { assertNever } from "../../expr/ast.js";
import { type Relation, RelationSchema } from "../gen/spark/connect/relations_pb.js";
import { column, fn } from "./compile-expression.js";
import { decodeJsonRelations, type JsonDecode, jsonDecodeInputs, jsonDecodeOutputs } from "./json-decode.js";
import { localRelation } from "./local-relation.js";
import { arrowFilesRefused, memoryStreamRefused, registryRefused, sourceOptionRefused, valueFormatRefused } from "./refusals.js";
import { stringLiteral } from "./spark-literals.js";
import { sparkDdl } from "./spark-types.js";
import type { Fields } from "../../types/dtype.js";

/** What compiling needs from the session: the rows of its in-memory tables. */
export interface CompileContext {
  tableBatches(tableId: string): readonly Batch[];
}

/**
 * A table that lives on the server (a memory sink's table, say): the remote session names it by
 * a table id with this prefix, followed by the table's name on the server.
 */
export const REMOTE_TABLE_PREFIX = "remote-table:";

type SourcePlan = Extract<LogicalPlan, { kind: "source" }>;

/**
 * A source as Spark's DataSource read (`read { is_streaming, data_source { format, schema, options,
 * paths } }`) with Spark's option names, a server-side table (`read.named_table`), or in-memory
 * rows (`local_relation`). `wrap` sets a relation's common fields (its plan id).
 */
export function compileSource(p: SourcePlan, ctx: CompileContext, wrap: (r: Relation) => Relation): Relation {
  const src = p.source;
  switch (src.format) {
    case "memory":
      throw memoryStreamRefused();
    case "table":
      if (src.tableId.startsWith(REMOTE_TABLE_PREFIX)) {
        const name = src.tableId.slice(REMOTE_TABLE_PREFIX.length);
        return wrap(create(RelationSchema, { relType: { case: "read", value: { isStreaming: false, readType: { case: "namedTable", value: { unparsedIdentifier: name } } } } }));
      }
      return wrap(localRelation(ctx.tableBatches(src.tableId), p.fields));
    case "rate":
      return wrap(
        read(p.streaming, "rate", undefined, {
          rowsPerSecond: String(src.rowsPerSecond),
          numPartitions: String(src.numPartitions),
          // Spark reads rampUpTime in whole seconds.
          rampUpTime: `${Math.ceil(src.rampUpTimeMs / 1000)}s`,
        }),
      );
    case "json":
      return jsonSource(p.streaming, src, p.fields, wrap);
    case "parquet":
      return wrap(read(p.streaming, "parquet", sparkDdl(p.fields), fileSelection(src), [src.path]));
    case "arrow":
      throw arrowFilesRefused(src.path);
    case "kafka":
      return kafkaSource(p.streaming, src, wrap);
    default:
      return assertNever(src, "source");
  }
}

function read(isStreaming: boolean, format: string, schema: string | undefined, options: Record<string, string>, paths: string[] = []): Relation {
  return create(RelationSchema, {
    relType: { case: "read", value: { isStreaming, readType: { case: "dataSource", value: { format, ...(schema === undefined ? {} : { schema }), options, paths } } } },
  });
}

function fileSelection(src: JsonSourceDesc | ColumnarSourceDesc): Record<string, string> {
  return {
    ...(src.options.maxFilesPerTrigger === null ? {} : { maxFilesPerTrigger: String(src.options.maxFilesPerTrigger) }),
    ...(src.options.pathGlobFilter === null ? {} : { pathGlobFilter: src.options.pathGlobFilter }),
  };
}

/**
 * JSON lines as Sluice reads them: Spark's text source gives the lines (maxFilesPerTrigger and
 * pathGlobFilter apply to it as to its JSON source), blank lines are skipped as by both JSON
 * readers, and json-decode.ts parses each line with Sluice's rules and modes. maxPartitionBytes
 * only sizes tasks (Spark's is a session setting): rows are the same without it.
 */
function jsonSource(streaming: boolean, src: JsonSourceDesc, fields: Fields, wrap: (r: Relation) => Relation): Relation {
  const lines = wrap(read(streaming, "text", undefined, fileSelection(src), [src.path]));
  const blank = fn("rlike", [column("value"), stringLiteral("^[ \\t\\r]*$")]);
  const records = wrap(create(RelationSchema, { relType: { case: "filter", value: { input: lines, condition: fn("not", [blank]) } } }));
  const corrupt = fields.some((f) => f.name === src.options.columnNameOfCorruptRecord) ? src.options.columnNameOfCorruptRecord : null;
  // A UTF-8 byte order mark starting a file is not part of its first record (json-lines.ts); Spark's text source keeps it.
  const text = fn("regexp_replace", [column("value"), stringLiteral("^\uFEFF"), stringLiteral("")]);
  const decode: JsonDecode = { index: 0, text, fields, mode: src.options.mode, corruptColumn: corrupt, where: src.path };
  return decodeJsonRelations(wrap, records, jsonDecodeInputs(decode), [decode], jsonDecodeOutputs(decode));
}

/** Options of Spark's Kafka source that Sluice's has too, under the same names. */
const SPARK_KAFKA_OPTIONS = [
  "subscribe",
  "subscribePattern",
  "assign",
  "startingOffsets",
  "startingOffsetsByTimestamp",
  "startingTimestamp",
  "startingOffsetsByTimestampStrategy",
  "endingOffsets",
  "maxOffsetsPerTrigger",
  "minOffsetsPerTrigger",
  "minPartitions",
  "failOnDataLoss",
  "includeHeaders",
  "kafkaConsumer.pollTimeoutMs",
  "fetchOffset.numRetries",
  "fetchOffset.retryIntervalMs",
] as const satisfies readonly (keyof KafkaSourceOptions)[];

/**
 * Client settings of Sluice's own that the JVM consumer has no key for: its connect timeout
 * (kafkajs's); the JVM client keeps its own defaults, the rows are the same.
 */
const SLUICE_CLIENT_SETTINGS: ReadonlySet<string> = new Set(["kafka.connection.timeout.ms"]);

/** Sluice options a Spark Kafka source has nothing like: refused when set, rather than dropped. */
const SLUICE_ONLY: Readonly<Record<string, string>> = {
  commitOffsetsToGroup: "Spark keeps offsets in its checkpoint only",
  deadLetterTopic: "from_json in Spark keeps no malformed records aside",
  "kafka.sasl.login.callback.handler.module": "it names an ES module, which the JVM cannot load; set kafka.sasl.login.callback.handler.class to a Java class on the server instead",
};

const kafkaWhere = (streaming: boolean) => (streaming ? 'readStream.format("kafka")' : 'read.format("kafka")');

export function kafkaOptions(o: KafkaSourceOptions, streaming: boolean): Record<string, string> {
  const where = kafkaWhere(streaming);
  const all = o as unknown as Readonly<Record<string, unknown>>;
  for (const [key, why] of Object.entries(SLUICE_ONLY)) if (all[key] !== undefined) throw sourceOptionRefused(where, key, why);
  const out: Record<string, string> = {};
  for (const key of SPARK_KAFKA_OPTIONS) if (all[key] !== undefined) out[key] = String(all[key]);
  // Spark parses maxTriggerDelay as a duration text.
  out["maxTriggerDelay"] = `${o.maxTriggerDelay}ms`;
  for (const [key, value] of Object.entries(all)) {
    if (key.startsWith("kafka.") && value !== undefined && !SLUICE_CLIENT_SETTINGS.has(key) && !(key in SLUICE_ONLY)) out[key] = String(value);
  }
  return out;
}

/**
 * Spark's Kafka source has Sluice's raw columns (key, value, topic, partition, offset, timestamp,
 * timestampType, headers), of the same types. With a record schema (JSON values), Sluice decodes
 * each value into the schema's columns followed by the metadata columns: here from_json over the
 * value's text, then its fields and the metadata in Sluice's order.
 */
function kafkaSource(streaming: boolean, src: KafkaSourceDesc, wrap: (r: Relation) => Relation): Relation {
  const raw = wrap(read(streaming, "kafka", undefined, kafkaOptions(src.options, streaming)));
  if (src.valueFields === null || src.values === null) return raw;
  if (src.values.registry !== null) throw registryRefused(`${kafkaWhere(streaming)} with a record schema`);
  const format = src.values.format.kind === "protobufToParse" ? "protobuf" : src.values.format.kind;
  if (format !== "json") throw valueFormatRefused(`the Kafka source's ${format} values`, format);
  const corrupt = src.valueFields.some((f) => f.name === src.options.columnNameOfCorruptRecord) ? src.options.columnNameOfCorruptRecord : null;
  const decode: JsonDecode = { index: 0, text: column("value"), fields: src.valueFields, mode: src.options.mode, corruptColumn: corrupt, where: "the Kafka source's values" };
  const meta = kafkaFields(src.options.includeHeaders)
    .filter((f) => f.name !== "value")
    .map((f) => column(f.name));
  return decodeJsonRelations(wrap, raw, [...jsonDecodeInputs(decode), ...meta], [decode], [...jsonDecodeOutputs(decode), ...meta]);
}
