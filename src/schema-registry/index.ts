// A Confluent-compatible schema registry: its client, its wire format and its subject naming strategies.
export { SchemaRegistryClient, type SchemaOptions } from "./registry-client.js";
export {
  COMPATIBILITY_LEVELS,
  SCHEMA_TYPES,
  type CompatibilityLevel,
  type CompatibilityResult,
  type RegisteredSchema,
  type SchemaReference,
  type SchemaType,
  type SubjectVersion,
} from "./registry-answers.js";
export { resolveSchemaRegistryOptions, type SchemaRegistryOptions } from "./registry-options.js";
export { subjectName, subjectNameOptions, subjectNameStrategies, SUBJECT_NAME_STRATEGIES, type SubjectNameStrategy, type SubjectOf } from "./subject-names.js";
export { MAGIC_BYTE, WIRE_HEADER_LENGTH, readWireHeader, wireHeader, wireHeaderLength, writeWireHeader, type ReadWireHeaderOptions, type WireHeader } from "./wire-format.js";
