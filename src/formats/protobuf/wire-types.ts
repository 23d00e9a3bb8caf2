import type { ProtoFieldType } from "./proto-descriptor.js";

/** The Protobuf wire types: how a field's value is laid out after its tag (tag = number << 3 | wire type). */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** The wire type of one value of a field of this type (a packed repeated field's run is length-delimited instead). */
export function wireTypeOf(type: ProtoFieldType): number {
  switch (type) {
    case "int32":
    case "int64":
    case "uint32":
    case "uint64":
    case "sint32":
    case "sint64":
    case "bool":
    case "enum":
      return WIRE_VARINT;
    case "fixed64":
    case "sfixed64":
    case "double":
      return WIRE_FIXED64;
    case "fixed32":
    case "sfixed32":
    case "float":
      return WIRE_FIXED32;
    case "string":
    case "bytes":
    case "message":
      return WIRE_LENGTH_DELIMITED;
    case "group":
      return WIRE_START_GROUP;
  }
}
