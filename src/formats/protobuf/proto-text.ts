import { AnalysisError } from "../../errors/errors.js";
import type { DType, Fields } from "../../types/dtype.js";
import { TIMESTAMP_MESSAGE } from "./proto-types.js";

/**
 * Sluice columns as a proto3 message, the reverse of proto-types.ts: the .proto text to register
 * with a schema registry (or to give writers) for the batches `encodeProtobufValues` writes. Fields
 * are numbered 1, 2, ... in column order. Nullable columns become `optional` fields, whose
 * presence is on the wire, so that a null and a zero stay apart when read back; non-nullable ones
 * plain proto3 fields (proto3 has no required fields: they read back as nullable columns).
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function protoTypeOf(type: DType, name: string): string {
  switch (type) {
    case "string":
      return "string";
    case "float64":
      return "double";
    case "int32":
      return "int32";
    case "int64":
      return "int64";
    case "boolean":
      return "bool";
    case "binary":
      return "bytes";
    case "timestamp":
      return TIMESTAMP_MESSAGE;
    case "window":
    case "headers":
      throw new AnalysisError(`column "${name}" has type ${type}, which has no Protobuf field type here: select its parts (or drop it) before writing Protobuf`);
  }
}

export interface ProtoTextOptions {
  /** The package the message is declared in, such as "acme.clicks". */
  readonly package?: string;
}

/** The .proto text of a proto3 message `messageName` with one field per column. */
export function protoTextOf(fields: Fields, messageName: string, options: ProtoTextOptions = {}): string {
  if (!IDENTIFIER.test(messageName)) throw new AnalysisError(`"${messageName}" is not a Protobuf message name: letters, digits and _, not starting with a digit`);
  const packageName = options.package;
  if (packageName !== undefined && !packageName.split(".").every((part) => IDENTIFIER.test(part))) {
    throw new AnalysisError(`"${packageName}" is not a Protobuf package name: identifiers separated by dots`);
  }
  const lines = fields.map((f, i) => {
    if (!IDENTIFIER.test(f.name)) throw new AnalysisError(`column "${f.name}" is not a Protobuf field name: rename it to letters, digits and _, not starting with a digit`);
    const type = protoTypeOf(f.type, f.name);
    // A message field has presence anyway; `optional` gives it to scalars.
    const label = f.nullable && f.type !== "timestamp" ? "optional " : "";
    return `  ${label}${type} ${f.name} = ${i + 1};`;
  });
  const header = ['syntax = "proto3";'];
  if (packageName !== undefined) header.push(`package ${packageName};`);
  if (fields.some((f) => f.type === "timestamp")) header.push('import "google/protobuf/timestamp.proto";');
  return `${header.join("\n\n")}\n\nmessage ${messageName} {\n${lines.join("\n")}\n}\n`;
}
