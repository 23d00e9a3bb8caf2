/**
 * Sluice: Spark Structured Streaming semantics for TypeScript, on Apache Arrow.
 * Everything public is exported from here.
 */
export { Session } from "./api/session.js";
export type { ExplainMode } from "./api/session-internals.js";
export type { Catalog } from "./api/catalog.js";
export { RuntimeConfig } from "./api/runtime-config.js";
export type { SqlConfKey, SqlConfInput } from "./config/sql-conf.js";
export { DataFrame, type JoinHow, type TimestampColumn } from "./api/data-frame.js";
export { GroupedData } from "./api/grouped-data.js";
export { KeyValueGroupedData } from "./api/key-value-grouped-data.js";
export { statefulProcessor, type StatefulProcessorDefinition, type StatefulProcessorOptions } from "./api/stateful-processor.js";
export type {
  ExpiredTimerInfo,
  ListState,
  MapState,
  ProcessorContext,
  ProcessorUdf,
  StatefulProcessor,
  StatefulProcessorHandle,
  StateOptions,
  TimeMode,
  TimerValues,
  ValueState,
} from "./operators/stateful-processor.js";
export { Column, StructColumn, type SortOrder, type Operand } from "./api/column.js";
export { MemoryStream } from "./api/memory-stream.js";
export { DataStreamReader, DataFrameReader, type KafkaOutput, type RateSchema, type StreamFormat } from "./api/readers.js";
export type { KafkaSchema, KafkaMetadataSchema } from "./sources/kafka/kafka-fields.js";
export { DataStreamWriter, type ForeachBatchFunction, type SinkFormat } from "./api/data-stream-writer.js";
export * as functions from "./api/functions.js";
export {
  col,
  lit,
  count,
  sum,
  avg,
  min,
  max,
  first,
  last,
  lower,
  upper,
  length,
  concat,
  substring,
  base64,
  unbase64,
  hex,
  to_timestamp,
  date_trunc,
  hour,
  unix_seconds,
  unix_millis,
  unix_micros,
  struct,
  to_json,
  type StructInput,
  not,
  negate,
  when,
  window,
  session_window,
  from_json,
  timestamp_seconds,
  window_time,
  interval,
  split,
  explode,
  expr,
  type SplitColumn,
  type TruncUnit,
} from "./api/functions.js";
export { udf, vectorUdf, type UdfDType, type UdfOptions, type UdfReturnType, type UserDefinedFunction } from "./api/udf.js";
export type { JsonValue, UdfRef } from "./expr/ast.js";
export {
  DecodedColumns,
  from_avro,
  from_protobuf,
  to_avro,
  to_protobuf,
  type FromAvroOptions,
  type FromProtobufOptions,
  type RegistryOptions,
  type SubjectOptions,
  type ToAvroOptions,
  type ToProtobufOptions,
} from "./api/value-functions.js";
// Schemas for the functions above: Protobuf descriptors (protobufjs is loaded on the first parse),
// Avro schemas and the record to_avro writes, and a client of a Confluent-compatible schema registry.
export { parseProtoSchema, protoSchemaFromDescriptorSet, type ProtoParseOptions } from "./formats/protobuf/proto-schema.js";
export type { ProtoSchema, ProtoMessage } from "./formats/protobuf/proto-descriptor.js";
export { parseAvroSchema } from "./formats/avro/avro-schema.js";
export type { AvroSchema } from "./formats/avro/avro-schema-types.js";
export { avroSchemaOfFields } from "./formats/avro/avro-columns.js";
export { SchemaRegistryClient } from "./schema-registry/registry-client.js";
export type { SchemaRegistryOptions } from "./schema-registry/registry-options.js";
export { MicroBatchStreamingQuery, type StreamingQuery } from "./runtime/streaming-query.js";
export { StreamingQueryManager } from "./runtime/query-manager.js";
export type {
  StreamingQueryListener,
  QueryStartedEvent,
  QueryProgressEvent,
  QueryIdleEvent,
  QueryTerminatedEvent,
} from "./runtime/listener.js";
export type {
  StreamingQueryProgress,
  StreamingQueryStatus,
  StateOperatorProgress,
  SourceProgress,
  SinkProgress,
  EventTimeProgress,
  DurationMs,
} from "./runtime/progress.js";
export type { OutputMode, SessionOptions, TriggerInput } from "./config/options.js";
// The web UI and Prometheus metrics (new Session({ ui, metrics })): the option's shape and what the REST API returns.
export type { ServerOption } from "./config/options.js";
export type { QueryRunStatus, QueryRunSummary } from "./ui/query-history.js";
export { SqlServer } from "./sql-server/sql-server.js";
// Remote sessions (new Session({ remote: "sc://host:15002" })): the option's shape.
export type { RemoteOption } from "./config/options.js";
export type { SqlServerAuth, SqlServerOptions } from "./config/sql-server-options.js";
export type { SinkGuarantee } from "./sinks/sink.js";
export {
  SluiceError,
  AnalysisError,
  ParseException,
  type ErrorCondition,
  OptionError,
  MalformedRecordError,
  CheckpointError,
  ConcurrentModificationError,
  StateSchemaError,
  InternalError,
  NumericRangeError,
  SchemaRegistryError,
  StreamingQueryException,
  TaskTimeoutError,
  UdfError,
  StatefulProcessorError,
  SqlServerError,
  RemoteUnsupportedError,
  type RemoteUnsupportedReason,
  SparkConnectError,
} from "./errors/errors.js";
export { ProducerFencedError } from "./sinks/kafka-transactions.js";
export { KafkaSecurityError } from "./sources/kafka/security-hints.js";
export type { ColType, DType, Field, Fields, RowOf, SchemaShape, WindowValue } from "./types/dtype.js";
export type { SchemaOfZod } from "./schema/zod-schema.js";
export type { Batch } from "./batch/batch.js";
export { toRecordBatch } from "./batch/batch.js";
export * as testing from "./testing/stream-test.js";
