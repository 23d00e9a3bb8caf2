import { z } from "zod";
import { validateOptions } from "../config/validate.js";
import { OptionError } from "../errors/errors.js";
import type { RegistryTarget } from "../expr/ast.js";
import { parseAvroSchema } from "../formats/avro/avro-schema.js";
import { avroSchemaOfFields, checkColumnsInRecord } from "../formats/avro/avro-columns.js";
import { messageIndexesOf, messageNamed, type ProtoSchema } from "../formats/protobuf/proto-descriptor.js";
import { isProtobufReadOption, protobufReadOptions } from "../formats/protobuf/protobuf-options.js";
import { isRegistryOption, registryOptionsIn, type SchemaRegistryOptions } from "../schema-registry/registry-options.js";
import { subjectName, subjectNameStrategies } from "../schema-registry/subject-names.js";
import { fieldsFromZod, type SchemaOfZod } from "../schema/zod-schema.js";
import type { ColType, SchemaShape } from "../types/dtype.js";
import type { Fixed } from "../types/expr-types.js";
import { Column, StructColumn } from "./column.js";

/**
 * Spark's functions for binary values: `from_avro` / `to_avro` (spark-avro) and `from_protobuf` /
 * `to_protobuf` (spark-protobuf), with Confluent's schema registry as Databricks' versions take it.
 * The decoders yield the columns of a zod schema, so the query's types follow from it; the schema's
 * fields are checked against the Avro or Protobuf schema when the query is defined.
 */

type AnyColumn = Column<any, any, any>;
type R<C> = C extends Column<any, infer X, any> ? X : never;
type N<C> = C extends Column<any, any, infer X> ? X : never;
type NullableShape<S extends SchemaShape> = { readonly [K in keyof S]: ColType<S[K]["type"], true> };

/**
 * The columns a `from_json`, `from_avro` or `from_protobuf` adds to a `select`: every field of the
 * schema, nullable (a malformed or null value gives nulls, as Spark's PERMISSIVE mode).
 */
export class DecodedColumns<S extends SchemaShape, Rs extends string> extends Column<Fixed<"string">, Rs, string> {
  declare readonly __decoded?: S;
}

/** The registry options every function here takes (`schema.registry.url`, `basic.auth.*`, `bearer.auth.*`, ...). */
export type RegistryOptions = Partial<SchemaRegistryOptions> & {
  readonly "schema.registry.requestTimeoutMs"?: number | string;
  readonly "schema.registry.maxRetries"?: number | string;
  readonly "schema.registry.retryBackoffMs"?: number | string;
};

/** What a select may not drop rows by: DROPMALFORMED would change the row count. */
const selectMode = (fn: string, fallback: "PERMISSIVE" | "FAILFAST") =>
  z
    .string({ error: `mode must be PERMISSIVE or FAILFAST` })
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(["PERMISSIVE", "FAILFAST"], { error: `mode must be PERMISSIVE or FAILFAST; DROPMALFORMED would change the row count of a select (drop the null rows with a filter after ${fn})` }))
    .default(fallback);

/** Validates a function's own options (zod, named in errors), leaving the registry's to registryOptionsIn. */
function ownOptions<T extends z.ZodRawShape>(fn: string, shape: T, options: object, registryKeys: (key: string) => boolean) {
  const own = Object.fromEntries(Object.entries(options).filter(([k]) => !registryKeys(k)));
  return validateOptions(z.strictObject(shape), own, `${fn} options`);
}

const isTargetKey = (k: string) => isRegistryOption(k) || k.endsWith(".subject.name.strategy");

const avroSchemaOption = z.union([z.string(), z.record(z.string(), z.unknown())], { error: "avroSchema must be the Avro schema: JSON text or a parsed object" }).optional();

export interface FromAvroOptions extends RegistryOptions {
  /**
   * Without a registry, the schema the values were written in (Spark's `jsonFormatSchema`); with one,
   * the reader schema that each writer schema resolves to. Default: the record of the zod schema's
   * fields, as `to_avro` writes it.
   */
  readonly avroSchema?: string | object;
  /** FAILFAST (Spark's default for from_avro): a malformed value fails the query; PERMISSIVE: a row of nulls. */
  readonly mode?: "PERMISSIVE" | "FAILFAST";
}

/**
 * Decodes Avro binary values into the columns of a zod schema, as Spark's `from_avro(data,
 * jsonFormatSchema)`. Use it at the top level of `select`:
 * `df.select(from_avro(col("value"), Order, { avroSchema }), "timestamp")`. With
 * `schema.registry.url`, values are in the Confluent wire format (magic byte, schema id); each id's
 * writer schema is fetched from the registry once per worker and resolved against the reader schema
 * (added fields take their defaults, removed ones are skipped). An id the registry does not know
 * makes its value malformed.
 */
export function from_avro<C extends AnyColumn, Z extends z.ZodObject<any>>(c: C, schema: Z, options: FromAvroOptions = {}): DecodedColumns<NullableShape<SchemaOfZod<Z>>, R<C>> {
  const fn = "from_avro()";
  const o = ownOptions(fn, { avroSchema: avroSchemaOption, mode: selectMode(fn, "FAILFAST") }, options, isRegistryOption);
  const registry = registryOptionsIn(options as Readonly<Record<string, unknown>>, `${fn} options`) ?? null;
  const fields = fieldsFromZod(schema);
  // Without a schema of the user's, the columns are the reader (any writer record name will do), and
  // plain values are taken to be written as to_avro writes these columns.
  const given = o.avroSchema === undefined ? null : parseAvroSchema(o.avroSchema as string | object);
  if (given !== null) checkColumnsInRecord(given, fields, fn);
  const writerSchema = registry !== null ? null : (given ?? parseAvroSchema(avroSchemaOfFields(fields)));
  return new DecodedColumns({
    kind: "decodeValues",
    child: c.expr,
    fields,
    mode: o.mode,
    format: { kind: "avro", readerSchema: given, writerSchema },
    registry,
  });
}

export interface FromProtobufOptions extends RegistryOptions {
  /** FAILFAST (Spark's default for from_protobuf): a malformed value fails the query; PERMISSIVE: a row of nulls. */
  readonly mode?: "PERMISSIVE" | "FAILFAST";
  /** Fields without presence read as their zero value when absent, rather than null. */
  readonly "emit.default.values"?: boolean | string;
  /** Enums as their numbers (int32 columns) rather than names. */
  readonly "enums.as.ints"?: boolean | string;
  /** uint32 and fixed32 as int64, uint64 and fixed64 exact in int64 words. */
  readonly "upcast.unsigned.ints"?: boolean | string;
}

/**
 * Decodes Protobuf messages into the columns of a zod schema, as Spark's `from_protobuf(data,
 * messageName, descFilePath, options)`. `descriptor` is the parsed schema:
 * `await parseProtoSchema(protoText)` or `await protoSchemaFromDescriptorSet(bytes)`. Columns are
 * matched to the message's fields by name. With `schema.registry.url`, values are in the Confluent
 * wire format, and each writer schema (fetched by id) is checked to be the reader's message and wire
 * compatible with it.
 */
export function from_protobuf<C extends AnyColumn, Z extends z.ZodObject<any>>(
  c: C,
  schema: Z,
  messageName: string,
  descriptor: ProtoSchema,
  options: FromProtobufOptions = {},
): DecodedColumns<NullableShape<SchemaOfZod<Z>>, R<C>> {
  const fn = "from_protobuf()";
  const registry = registryOptionsIn(options as Readonly<Record<string, unknown>>, `${fn} options`) ?? null;
  const own = Object.fromEntries(Object.entries(options).filter(([k]) => !isRegistryOption(k)));
  const mode = validateOptions(z.object({ mode: selectMode(fn, "FAILFAST") }), { mode: own.mode }, `${fn} options`).mode;
  const read = protobufReadOptions(own, `${fn} options`);
  const unknown = Object.keys(own).filter((k) => k !== "mode" && !isProtobufReadOption(k));
  if (unknown.length > 0) throw new OptionError(`${fn} options: unknown option(s) ${unknown.map((k) => `"${k}"`).join(", ")}`);
  return new DecodedColumns({
    kind: "decodeValues",
    child: c.expr,
    fields: fieldsFromZod(schema),
    mode,
    format: {
      kind: "protobuf",
      message: messageNamed(descriptor, messageName),
      confluent: registry !== null,
      emitDefaultValues: read.emitDefaultValues,
      enumsAsInts: read.enumsAsInts,
      upcastUnsignedInts: read.upcastUnsignedInts,
    },
    registry,
  });
}

/** Where the schema of written values is registered: a subject, or a topic and Confluent's naming strategy. */
export interface SubjectOptions extends RegistryOptions {
  /** The subject to register under. */
  readonly subject?: string;
  /** Or the topic the values go to, whose subject the strategy names (TopicNameStrategy: `<topic>-value`). */
  readonly topic?: string;
  /** The values are the topic's keys (the strategy's `-key` subject). */
  readonly isKey?: boolean;
  readonly "key.subject.name.strategy"?: string;
  readonly "value.subject.name.strategy"?: string;
}

export interface ToAvroOptions extends SubjectOptions {
  /** The written record's name (Spark's `recordName`; default "topLevelRecord"). */
  readonly recordName?: string;
  /** The written record's namespace (Spark's `recordNamespace`). */
  readonly recordNamespace?: string;
}

const subjectShape = {
  subject: z.string().min(1, "subject must be a subject name").optional(),
  topic: z.string().min(1, "topic must be a topic name").optional(),
  isKey: z.boolean({ error: "isKey must be true or false" }).optional(),
};

/**
 * Encodes each row as one Avro binary value, as Spark's `to_avro`: of a `struct(...)`, a record of its
 * fields (in the schema `avroSchemaOfFields` gives); of another column, that column's value. With
 * `schema.registry.url`, the schema is registered under the subject when the query starts (or found
 * there, when the subject holds it already) and each value carries its id in the Confluent wire format.
 */
export function to_avro<C extends StructColumn<any, any> | AnyColumn>(
  c: C,
  options: ToAvroOptions = {},
): Column<Fixed<"binary">, C extends StructColumn<infer X, any> ? X : R<C>, `to_avro(${C extends StructColumn<any, infer X> ? X : N<C>})`> {
  const fn = "to_avro()";
  const o = ownOptions(
    fn,
    { ...subjectShape, recordName: z.string().min(1).optional(), recordNamespace: z.string().optional() },
    options,
    isTargetKey,
  );
  const naming = { ...(o.recordName === undefined ? {} : { name: o.recordName }), ...(o.recordNamespace ? { namespace: o.recordNamespace } : {}) };
  const record = c instanceof StructColumn;
  const fullName = o.recordNamespace ? `${o.recordNamespace}.${o.recordName ?? "topLevelRecord"}` : (o.recordName ?? "topLevelRecord");
  const registry = registryTarget(fn, options, o, record ? fullName : undefined, null);
  return new Column({ kind: "encodeValues", child: c.expr, encoding: { kind: "avro", naming, record }, registry }) as any;
}

export interface ToProtobufOptions extends SubjectOptions {
  /**
   * With a registry: the .proto text of `descriptor`, registered under the subject. Without it, values
   * carry the id of the subject's latest version (Confluent's use.latest.version).
   */
  readonly protoSchema?: string;
}

/**
 * Encodes each row of a `struct(...)` as one Protobuf message, as Spark's `to_protobuf(data,
 * messageName, descFilePath)`: each struct field is written to the message field of its name. With
 * `schema.registry.url`, values are in the Confluent wire format under the subject's id.
 */
export function to_protobuf<C extends StructColumn<any, any>>(
  c: C,
  messageName: string,
  descriptor: ProtoSchema,
  options: ToProtobufOptions = {},
): Column<Fixed<"binary">, C extends StructColumn<infer X, any> ? X : never, `to_protobuf(${C extends StructColumn<any, infer X> ? X : string})`> {
  const fn = "to_protobuf()";
  const o = ownOptions(fn, { ...subjectShape, protoSchema: z.string().min(1, "protoSchema must be the .proto text").optional() }, options, isTargetKey);
  const message = messageNamed(descriptor, messageName);
  const registry = registryTarget(fn, options, o, message.fullName, o.protoSchema ?? null);
  const messageIndexes = messageIndexesOf(descriptor, message.fullName) ?? [0];
  return new Column({ kind: "encodeValues", child: c.expr, encoding: { kind: "protobuf", message, messageIndexes }, registry }) as any;
}

function registryTarget(
  fn: string,
  options: object,
  o: { subject?: string; topic?: string; isKey?: boolean },
  recordName: string | undefined,
  schema: string | null,
): RegistryTarget | null {
  const registry = registryOptionsIn(options as Readonly<Record<string, unknown>>, `${fn} options`);
  if (registry === undefined) {
    if (o.subject !== undefined || o.topic !== undefined) throw new OptionError(`${fn} options: subject and topic name where to register the schema; set schema.registry.url too`);
    return null;
  }
  if ((o.subject === undefined) === (o.topic === undefined)) {
    throw new OptionError(`${fn} options: with schema.registry.url, give the subject to register under (subject) or the topic the values go to (topic), one of them`);
  }
  const isKey = o.isKey ?? false;
  const strategies = subjectNameStrategies(options as Readonly<Record<string, unknown>>, `${fn} options`);
  const subject = o.subject ?? subjectName(isKey ? strategies.key : strategies.value, { topic: o.topic!, isKey, ...(recordName === undefined ? {} : { recordName }) });
  return { registry, subject, schema };
}

