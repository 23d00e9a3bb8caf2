import { readFile } from "node:fs/promises";
import { AnalysisError, OptionError } from "../../errors/errors.js";
import { messageNamed, type ProtoMessage, type ProtoSchema } from "../../formats/protobuf/proto-descriptor.js";
import { parseProtoSchema, protoSchemaFromDescriptorSet } from "../../formats/protobuf/proto-schema.js";
import { checkValueFormat, type ValueFormat } from "../../formats/value-format.js";
import type { KafkaValues } from "./kafka-desc.js";
import type { KafkaValueSpec, ProtobufToParse } from "./kafka-value-spec.js";

/**
 * The value format a Kafka source's tasks decode with, on the driver, once per query run (or static
 * read): what the options said at `.load()`, with a Protobuf schema now read and parsed, its message
 * found and the declared columns checked against it. The result is plain data; each split carries it
 * to the worker that decodes, so no worker parses a schema.
 */
export async function resolveValueFormat(spec: KafkaValueSpec): Promise<ValueFormat> {
  const format = spec.format;
  if (format.kind !== "protobufToParse") return format;
  const schema = await parsedSchema(format);
  let message: ProtoMessage;
  try {
    message = messageNamed(schema, format.messageName);
  } catch (e) {
    if (e instanceof AnalysisError) throw new AnalysisError(`${format.where}: protobuf.messageName: ${e.message}`, { cause: e });
    throw e;
  }
  const resolved: ValueFormat = {
    kind: "protobuf",
    message,
    confluent: format.confluent,
    emitDefaultValues: format.emitDefaultValues,
    enumsAsInts: format.enumsAsInts,
    upcastUnsignedInts: format.upcastUnsignedInts,
  };
  checkValueFormat(resolved, format.declaredFields, `${format.where} (valueFormat protobuf)`, format.columnNameOfCorruptRecord);
  return resolved;
}

/** A source's values with their format resolved: what its splits carry. */
export type ResolvedValues = KafkaValues & { readonly format: ValueFormat };

export async function resolveValues(values: KafkaValues | null): Promise<ResolvedValues | null> {
  return values === null ? null : { ...values, format: await resolveValueFormat(values.spec) };
}

async function parsedSchema(format: ProtobufToParse): Promise<ProtoSchema> {
  const source = format.schema;
  const option = "descriptorFile" in source ? `protobuf.descriptorFile "${source.descriptorFile}"` : "protobuf.schema";
  try {
    if (!("descriptorFile" in source)) return await parseProtoSchema(source.text);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(source.descriptorFile);
    } catch (e) {
      throw new OptionError(`${format.where}: ${option} cannot be read: ${(e as Error).message}`, { cause: e });
    }
    return await protoSchemaFromDescriptorSet(bytes);
  } catch (e) {
    if (e instanceof AnalysisError) throw new AnalysisError(`${format.where}: ${option}: ${e.message}`, { cause: e });
    throw e;
  }
}
