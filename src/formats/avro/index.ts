// Avro: schemas, their resolution, binary values decoded straight into columns and encoded from them.
export { parseAvroSchema } from "./avro-schema.js";
export type {
  AvroArray,
  AvroEnum,
  AvroField,
  AvroFixed,
  AvroLogicalType,
  AvroMap,
  AvroNamed,
  AvroPrimitive,
  AvroPrimitiveName,
  AvroRecord,
  AvroSchema,
  AvroUnion,
} from "./avro-schema-types.js";
export { canonicalForm, rabinFingerprint64, schemaFingerprint64 } from "./avro-canonical.js";
export { avroSchemaOfFields, columnTypeOfAvro, fieldsOfAvroSchema, DEFAULT_RECORD_NAME, type AvroRecordNaming } from "./avro-columns.js";
export { decodeAvroValues, schemaIdsIn, type AvroValuesOptions, type AvroValuesResult, type AvroWriterSchemas } from "./avro-values.js";
export { encodeAvroColumn, encodeAvroValues, type AvroEncodeOptions, type EncodedAvroValues } from "./avro-encode.js";
