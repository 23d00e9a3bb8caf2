import { statSync } from "node:fs";
import type { KafkaSourceOptions } from "../../config/kafka-options.js";
import { AnalysisError, OptionError } from "../../errors/errors.js";
import { checkColumnsInRecord } from "../../formats/avro/avro-columns.js";
import { parseAvroSchema } from "../../formats/avro/avro-schema.js";
import type { AvroSchema } from "../../formats/avro/avro-schema-types.js";
import { isProtobufReadOption, protobufReadOptions } from "../../formats/protobuf/protobuf-options.js";
import { checkValueFormat, type ValueFormat } from "../../formats/value-format.js";
import { isRegistryOption, registryOptionsIn, type SchemaRegistryOptions } from "../../schema-registry/registry-options.js";
import type { Fields } from "../../types/dtype.js";

/**
 * How the Kafka source decodes values into the record schema's columns, worked out from its options
 * when the DataFrame is defined (`.load()`), as far as that can be done without waiting: JSON and
 * Avro entirely (the Avro schema is parsed and the columns checked against it here); Protobuf up to
 * its schema, which is read and parsed when the query starts (kafka-value-format.ts), because
 * parsing a .proto or a descriptor set is asynchronous. Plain data: it is part of the plan.
 */
export interface KafkaValueSpec {
  readonly format: ValueFormat | ProtobufToParse;
  /** Where writer schemas come from, for values in the Confluent wire format; null without schema.registry.url. */
  readonly registry: SchemaRegistryOptions | null;
}

/** A Protobuf format whose schema is read and parsed on the driver when the query starts. */
export interface ProtobufToParse {
  readonly kind: "protobufToParse";
  readonly messageName: string;
  readonly schema: { readonly descriptorFile: string } | { readonly text: string };
  readonly confluent: boolean;
  readonly emitDefaultValues: boolean;
  readonly enumsAsInts: boolean;
  readonly upcastUnsignedInts: boolean;
  /** The record schema as declared, before column pruning narrows it: every column is checked against the message. */
  readonly declaredFields: Fields;
  readonly columnNameOfCorruptRecord: string;
  /** How messages name the source, such as `readStream.format("kafka")`. */
  readonly where: string;
}

/** The options that say how values are encoded (besides the registry's and from_protobuf's), for the rules across them. */
const AVRO_OPTIONS = ["avroSchema"] as const;
const PROTOBUF_OPTIONS = ["protobuf.messageName", "protobuf.descriptorFile", "protobuf.schema"] as const;
const FORMAT_OPTIONS: ReadonlySet<string> = new Set(["valueFormat", ...AVRO_OPTIONS, ...PROTOBUF_OPTIONS]);

/**
 * Options that other modules check (the registry's, from_protobuf's), which the Kafka source's own
 * schema therefore leaves out.
 */
export function isForeignValueOption(key: string): boolean {
  return isRegistryOption(key) || isProtobufReadOption(key);
}

/** The options given that ask for decoded values (a format, its schema, a registry), which need `.schema(z)`. */
export function valueOptionsGiven(raw: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(raw).filter((k) => raw[k] !== undefined && (FORMAT_OPTIONS.has(k) || isForeignValueOption(k)));
}

/** How values decode into `fields`, from the source's raw options (`raw`) and its validated ones (`o`); OptionError or AnalysisError naming what to fix. */
export function kafkaValueSpec(raw: Readonly<Record<string, unknown>>, o: KafkaSourceOptions, fields: Fields, where: string): KafkaValueSpec {
  const kind = o.valueFormat ?? "json";
  const fail = (message: string): never => {
    throw new OptionError(`${where}: ${message}`);
  };
  const given = (names: readonly string[]) => names.filter((k) => raw[k] !== undefined);
  const protobufOptions = [...given(PROTOBUF_OPTIONS), ...Object.keys(raw).filter((k) => raw[k] !== undefined && isProtobufReadOption(k))];
  if (kind !== "avro" && given(AVRO_OPTIONS).length > 0) fail(`avroSchema applies to Avro values, but valueFormat is ${kind}: set valueFormat to avro, or remove avroSchema`);
  if (kind !== "protobuf" && protobufOptions.length > 0) {
    fail(`${protobufOptions.join(", ")} ${protobufOptions.length > 1 ? "apply" : "applies"} to Protobuf values, but valueFormat is ${kind}: set valueFormat to protobuf, or remove ${protobufOptions.length > 1 ? "them" : "it"}`);
  }
  const registry = registryOptionsIn(raw, where) ?? null;
  if (kind === "json") {
    if (registry !== null) fail("schema.registry.url applies to Avro and Protobuf values (the Confluent wire format), but valueFormat is json: set valueFormat to avro or protobuf, or remove the registry options");
    return { format: { kind: "json" }, registry };
  }
  if (kind === "avro") {
    if (raw["columnNameOfCorruptRecord"] !== undefined) {
      fail("columnNameOfCorruptRecord does not apply to Avro values: as Spark's from_avro, a malformed record is a row of nulls in PERMISSIVE mode; set deadLetterTopic to keep its bytes");
    }
    return avroSpec(o, fields, registry, where);
  }
  return { format: protobufToParse(raw, o, fields, registry !== null, where), registry };
}

function avroSpec(o: KafkaSourceOptions, fields: Fields, registry: SchemaRegistryOptions | null, where: string): KafkaValueSpec {
  let schema: AvroSchema | null = null;
  if (o.avroSchema !== undefined) {
    try {
      schema = parseAvroSchema(o.avroSchema);
    } catch (e) {
      throw new OptionError(`${where}: avroSchema: ${(e as Error).message}`, { cause: e });
    }
    checkColumnsInRecord(schema, fields, `${where} (valueFormat avro)`);
  } else if (registry === null) {
    throw new OptionError(
      `${where}: valueFormat avro needs avroSchema, the writer schema of the values (plain Avro datums), or schema.registry.url for values in the Confluent wire format (writer schemas by id)`,
    );
  }
  const format: ValueFormat = {
    kind: "avro",
    readerSchema: schema,
    writerSchema: registry === null ? schema : null,
  };
  checkValueFormat(format, fields, `${where} (valueFormat avro)`);
  return { format, registry };
}

function protobufToParse(raw: Readonly<Record<string, unknown>>, o: KafkaSourceOptions, fields: Fields, confluent: boolean, where: string): ProtobufToParse {
  const fail = (message: string): never => {
    throw new OptionError(`${where}: ${message}`);
  };
  const messageName = o["protobuf.messageName"] ?? fail("valueFormat protobuf needs protobuf.messageName: the full name of the message the values hold, such as shop.Order");
  const file = o["protobuf.descriptorFile"];
  const text = o["protobuf.schema"];
  if (file !== undefined && text !== undefined) fail("set protobuf.descriptorFile or protobuf.schema, not both");
  if (file === undefined && text === undefined) {
    fail("valueFormat protobuf needs the message's schema: protobuf.descriptorFile (a FileDescriptorSet, protoc --include_imports --descriptor_set_out) or protobuf.schema (the .proto text)");
  }
  if (file !== undefined) checkReadableFile(file, where);
  // Spark's from_protobuf options, read as from_protobuf reads them; the source's own mode applies, not theirs.
  const settings = protobufReadOptions(Object.fromEntries(Object.entries(raw).filter(([k]) => isProtobufReadOption(k))), where);
  return {
    kind: "protobufToParse",
    messageName,
    schema: file !== undefined ? { descriptorFile: file } : { text: text! },
    confluent,
    emitDefaultValues: settings.emitDefaultValues,
    enumsAsInts: settings.enumsAsInts,
    upcastUnsignedInts: settings.upcastUnsignedInts,
    declaredFields: fields,
    columnNameOfCorruptRecord: o.columnNameOfCorruptRecord,
    where,
  };
}

/** The descriptor file is read when the query starts; a wrong path fails now, naming the option. */
function checkReadableFile(file: string, where: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (e) {
    throw new OptionError(`${where}: protobuf.descriptorFile "${file}" cannot be read: ${(e as Error).message}`, { cause: e });
  }
  if (!isFile) throw new OptionError(`${where}: protobuf.descriptorFile "${file}" is not a file: give the path of a FileDescriptorSet`);
}
