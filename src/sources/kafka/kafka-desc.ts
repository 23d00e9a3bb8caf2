import { checkKafkaSourceOptions, kafkaSourceSchema, refuseKafkaClientOptions, type KafkaSourceOptions } from "../../config/kafka-options.js";
import { validateOptions } from "../../config/validate.js";
import { OptionError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import { kafkaDecodedFields, kafkaFields } from "./kafka-fields.js";
import { isForeignValueOption, kafkaValueSpec, valueOptionsGiven, type KafkaValueSpec } from "./kafka-value-spec.js";

/** Kafka topics (Spark's Kafka source); `options` are validated, `fields` the Kafka columns. */
export interface KafkaSourceDesc {
  readonly format: "kafka";
  /** The source's own options; the schema registry's and from_protobuf's are in `values`. */
  readonly options: KafkaSourceOptions;
  /** Fields of the record schema given with `.schema()`, or null for raw key/value columns. */
  readonly valueFields: Fields | null;
  /** How values decode into `valueFields` (JSON, Avro, Protobuf); null without a record schema. */
  readonly values: KafkaValueSpec | null;
  readonly fields: Fields;
}

/**
 * A Kafka read as `readStream.format("kafka")` / `read.format("kafka")` describe it: the options
 * validated (Spark's names and rules), and the columns: Kafka's, or a record schema's decoded
 * fields followed by Kafka's metadata columns.
 */
export function kafkaSourceDesc(options: Readonly<Record<string, unknown>>, valueFields: Fields | null, streaming: boolean): KafkaSourceDesc {
  const where = streaming ? 'readStream.format("kafka")' : 'read.format("kafka")';
  refuseKafkaClientOptions(options);
  // The registry's and from_protobuf's options are checked by their own modules (kafkaValueSpec).
  const own = Object.fromEntries(Object.entries(options).filter(([k]) => !isForeignValueOption(k)));
  const o = validateOptions(kafkaSourceSchema, own, where);
  checkKafkaSourceOptions(options, o, streaming);
  if (!valueFields) {
    const decoding = [...(options["mode"] !== undefined ? ["mode"] : []), ...(o.deadLetterTopic !== undefined ? ["deadLetterTopic"] : []), ...valueOptionsGiven(options)];
    if (decoding.length > 0) {
      throw new OptionError(`${where}: ${decoding.join(", ")} ${decoding.length > 1 ? "apply" : "applies"} to decoded values; declare the record schema with .schema(z.object({ ... }))`);
    }
  }
  const values = valueFields ? kafkaValueSpec(options, o, valueFields, where) : null;
  const fields = valueFields ? kafkaDecodedFields(valueFields, o.includeHeaders) : kafkaFields(o.includeHeaders);
  return { format: "kafka", options: o, valueFields, values, fields };
}

/** The columns values decode into (narrowed by column pruning) and how; null without a record schema. */
export interface KafkaValues {
  readonly fields: Fields;
  readonly spec: KafkaValueSpec;
}

export function kafkaValuesOf(desc: KafkaSourceDesc): KafkaValues | null {
  return desc.valueFields !== null && desc.values !== null ? { fields: desc.valueFields, spec: desc.values } : null;
}
