import { z } from "zod";

/**
 * The Kafka source's options for how values are encoded, when `.schema(z)` declares the columns they
 * decode into: JSON text (the default), Avro binary or Protobuf, each optionally in the Confluent wire
 * format when `schema.registry.url` is set. Spark's from_protobuf options (`emit.default.values`,
 * `enums.as.ints`, `upcast.unsigned.ints`) and the schema registry's (`schema.registry.*`,
 * `basic.auth.*`, `bearer.auth.*`) are checked by their own modules (protobufReadOptions,
 * registryOptionsIn); sources/kafka/kafka-value-spec.ts checks the options across each other.
 */

export const VALUE_FORMATS = ["json", "avro", "protobuf"] as const;
export type KafkaValueFormatName = (typeof VALUE_FORMATS)[number];

const text = (option: string, what: string) => z.string({ error: `${option} must be text: ${what}` }).trim().min(1, `${option} must not be empty: give ${what}`);

export const kafkaValueOptions = {
  valueFormat: z
    .string({ error: "valueFormat must be json, avro or protobuf" })
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.enum(VALUE_FORMATS, { error: "valueFormat must be json, avro or protobuf" }))
    .optional(),
  /**
   * Avro: the schema as JSON text. Without a schema registry it is the writer schema of every value
   * (plain Avro datums) and the reader schema; with one, the reader schema that writer schemas are
   * resolved against (defaults, aliases).
   */
  avroSchema: text("avroSchema", 'the Avro schema as JSON, such as {"type":"record","name":"Order","fields":[...]}').optional(),
  /** Protobuf: the message the values hold, by full name (or simple name when unique). */
  "protobuf.messageName": text("protobuf.messageName", "the full name of the message, such as shop.Order").optional(),
  /** Protobuf: a FileDescriptorSet file (`protoc --include_imports --descriptor_set_out`), Spark's descFilePath. */
  "protobuf.descriptorFile": text("protobuf.descriptorFile", "the path of a FileDescriptorSet (protoc --include_imports --descriptor_set_out)").optional(),
  /** Protobuf: the .proto file's text (its imports limited to the well-known google/protobuf types). */
  "protobuf.schema": text("protobuf.schema", "the text of a .proto file").optional(),
} as const;
