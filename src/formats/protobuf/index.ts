// Protobuf records straight into Arrow columns and back, as Spark's from_protobuf / to_protobuf.
export { decodeProtobufValues, type ProtobufValuesOptions, type ProtobufValuesResult } from "./protobuf-values.js";
export { encodeProtobufValues, type EncodedValues, type ProtobufEncodeOptions } from "./protobuf-encode.js";
export { schemaIdsIn } from "./confluent-framing.js";
export { protobufReadOptions, type ProtobufReadSettings } from "./protobuf-options.js";
export { parseProtoMessage, parseProtoSchema, protoSchemaFromDescriptorSet, type ProtoParseOptions } from "./proto-schema.js";
export {
  messageAt,
  messageNamed,
  PROTO_SCALAR_TYPES,
  type ProtoEnum,
  type ProtoEnumValue,
  type ProtoField,
  type ProtoFieldType,
  type ProtoMessage,
  type ProtoScalarType,
  type ProtoSchema,
} from "./proto-descriptor.js";
export { columnTypeOf, protoFields, type ProtoTypeOptions } from "./proto-types.js";
export { protoTextOf, type ProtoTextOptions } from "./proto-text.js";
