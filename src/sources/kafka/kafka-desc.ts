import { checkKafkaSourceOptions, kafkaSourceSchema, refuseKafkaClientOptions, type KafkaSourceOptions } from "../../config/kafka-options.js";
import { validateOptions } from "../../config/validate.js";
import { OptionError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import { kafkaDecodedFields, kafkaFields } from "./kafka-fields.js";

/** Kafka topics (Spark's Kafka source); `options` are validated, `fields` the Kafka columns. */
export interface KafkaSourceDesc {
  readonly format: "kafka";
  readonly options: KafkaSourceOptions;
  /** Fields of the JSON record schema given with `.schema()`, or null for raw key/value columns. */
  readonly valueFields: Fields | null;
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
  const o = validateOptions(kafkaSourceSchema, options, where);
  checkKafkaSourceOptions(options, o, streaming);
  if (!valueFields && (options["mode"] !== undefined || o.deadLetterTopic !== undefined)) {
    throw new OptionError(`${where}: mode and deadLetterTopic apply to decoded values; declare the record schema with .schema(z.object({ ... }))`);
  }
  const fields = valueFields ? kafkaDecodedFields(valueFields, o.includeHeaders) : kafkaFields(o.includeHeaders);
  return { format: "kafka", options: o, valueFields, fields };
}
