import { OptionError } from "../../errors/errors.js";
import type { ColType, Fields } from "../../types/dtype.js";

/**
 * Columns of a Kafka source, as Spark's. Keys and values are binary: the record's bytes as they
 * are, which queries decode next (`col("value").cast("string")`, `from_json(col("value"), schema)`).
 */
export const KAFKA_FIELDS: Fields = [
  { name: "key", type: "binary", nullable: true },
  { name: "value", type: "binary", nullable: true },
  { name: "topic", type: "string", nullable: false },
  { name: "partition", type: "int32", nullable: false },
  { name: "offset", type: "int64", nullable: false },
  { name: "timestamp", type: "timestamp", nullable: false },
  { name: "timestampType", type: "int32", nullable: false },
];

/**
 * `headers` (with includeHeaders): the record's headers, Spark's `array<struct<key: string, value:
 * binary>>`, in record order with duplicates; null when there are none.
 */
export const KAFKA_HEADERS_FIELD = { name: "headers", type: "headers", nullable: true } as const;

export function kafkaFields(includeHeaders: boolean): Fields {
  return includeHeaders ? [...KAFKA_FIELDS, KAFKA_HEADERS_FIELD] : KAFKA_FIELDS;
}

export type KafkaSchema = {
  readonly key: ColType<"binary", true>;
  readonly value: ColType<"binary", true>;
  readonly topic: ColType<"string", false>;
  readonly partition: ColType<"int32", false>;
  readonly offset: ColType<"int64", false>;
  readonly timestamp: ColType<"timestamp", false>;
  readonly timestampType: ColType<"int32", false>;
};

/** Kafka columns that travel with decoded values: everything but `value`. */
export function kafkaMetadataFields(includeHeaders: boolean): Fields {
  return kafkaFields(includeHeaders).filter((f) => f.name !== "value");
}

/** Columns of a Kafka source with a record schema: the decoded fields, then Kafka's metadata. */
export function kafkaDecodedFields(valueFields: Fields, includeHeaders: boolean): Fields {
  const meta = kafkaMetadataFields(includeHeaders);
  const clash = valueFields.find((f) => meta.some((m) => m.name === f.name));
  if (clash) {
    throw new OptionError(
      `the record schema has a field "${clash.name}", which is also a Kafka column (${meta.map((m) => m.name).join(", ")}); rename it in the schema`,
    );
  }
  return [...valueFields, ...meta];
}

export type KafkaMetadataSchema = Omit<KafkaSchema, "value">;

/** The `headers` column that `includeHeaders` adds. */
export type KafkaHeadersSchema = { readonly headers: ColType<"headers", true> };
