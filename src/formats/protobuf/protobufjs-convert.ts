import type * as pb from "protobufjs";
import { AnalysisError } from "../../errors/errors.js";
import { PROTO_SCALAR_TYPES } from "./proto-descriptor.js";
import type { ProtoEnum, ProtoField, ProtoFieldType, ProtoMessage, ProtoScalarType, ProtoSchema } from "./proto-descriptor.js";
import type { Protobufjs } from "./protobufjs-loader.js";

/**
 * protobufjs reflection objects (a resolved Root) turned into Sluice's descriptors. The types are
 * imported for their shape only; the classes come from the module loaded at run time.
 */

/**
 * The edition features protobufjs resolves for every object (proto2 and proto3 are mapped to their
 * edition defaults). It keeps them in a field it does not declare; reading them here, and only
 * here, is what gives enum closedness and UTF-8 validation their exact per-file values.
 */
interface Featured {
  readonly _features?: {
    readonly enum_type?: "OPEN" | "CLOSED";
    readonly utf8_validation?: "VERIFY" | "NONE";
  };
}

function featuresOf(object: pb.ReflectionObject): NonNullable<Featured["_features"]> {
  return (object as unknown as Featured)._features ?? {};
}

const SCALARS: ReadonlySet<string> = new Set(PROTO_SCALAR_TYPES);

export function schemaOf(protobufjs: Protobufjs, types: readonly pb.Type[]): ProtoSchema {
  const enums = new Map<pb.Enum, ProtoEnum>();
  return deepFreeze({ messages: types.map((t) => messageOf(protobufjs, t, enums)) });
}

/** The message types directly inside a namespace, in declaration order. */
export function typesIn(protobufjs: Protobufjs, namespace: pb.NamespaceBase): pb.Type[] {
  return namespace.nestedArray.filter((n): n is pb.Type => n instanceof protobufjs.Type);
}

function messageOf(protobufjs: Protobufjs, type: pb.Type, enums: Map<pb.Enum, ProtoEnum>): ProtoMessage {
  return {
    fullName: type.fullName.slice(1),
    fields: type.fieldsArray.map((f) => fieldOf(protobufjs, f, enums)),
    nested: typesIn(protobufjs, type).map((t) => messageOf(protobufjs, t, enums)),
  };
}

function fieldOf(protobufjs: Protobufjs, field: pb.Field, enums: Map<pb.Enum, ProtoEnum>): ProtoField {
  field.resolve();
  const resolved = field.resolvedType;
  const repeated = field.repeated || field.map;
  const isEnum = resolved instanceof protobufjs.Enum;
  const type: ProtoFieldType = field.map ? "message" : resolved === null ? scalarOf(field) : isEnum ? "enum" : field.delimited ? "group" : "message";
  // Message fields always know whether they were written; protobufjs's hasPresence speaks of scalars only.
  const explicit = !repeated && (field.hasPresence || (resolved !== null && !isEnum));
  const typeName = field.map ? `${field.parent!.fullName.slice(1)}.${entryName(field.name)}` : resolved?.fullName.slice(1);
  return {
    name: field.name,
    number: field.id,
    type,
    ...(typeName === undefined ? {} : { typeName }),
    ...(isEnum ? { enum: enumOf(resolved, enums) } : {}),
    label: repeated ? "repeated" : field.required ? "required" : "optional",
    map: field.map,
    // protobufjs reports any repeated field of a packing file as packed; only numbers and enums can be.
    packed: field.repeated && field.packed && type !== "string" && type !== "bytes" && type !== "message" && type !== "group",
    presence: explicit ? "explicit" : "implicit",
    ...(field.partOf ? { oneof: field.partOf.name } : {}),
    ...defaultOf(field),
    validateUtf8: type === "string" && featuresOf(field).utf8_validation === "VERIFY",
  };
}

function scalarOf(field: pb.Field): ProtoScalarType {
  if (!SCALARS.has(field.type)) throw new AnalysisError(`Protobuf field "${field.name}" has type "${field.type}", which the schema does not define`);
  return field.type as ProtoScalarType;
}

/** protoc's name for a map field's entry type: "tag_counts" -> "TagCountsEntry". */
function entryName(fieldName: string): string {
  const camel = fieldName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return `${camel.charAt(0).toUpperCase()}${camel.slice(1)}Entry`;
}

/**
 * proto2's `[default = ...]`. protobufjs keeps it as parsed: a number, a boolean, text (bytes
 * defaults too, as their escaped text) or an enum value's name; `inf` and `nan` come out as null,
 * and such a default is dropped (the field then reads as null when absent).
 */
function defaultOf(field: pb.Field): { defaultValue?: string | number | boolean } {
  const value: unknown = field.options?.["default"];
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? { defaultValue: value } : {};
}

function enumOf(type: pb.Enum, enums: Map<pb.Enum, ProtoEnum>): ProtoEnum {
  let known = enums.get(type);
  if (known === undefined) {
    known = {
      fullName: type.fullName.slice(1),
      values: Object.entries(type.values).map(([name, number]) => ({ name, number })),
      closed: featuresOf(type).enum_type === "CLOSED",
    };
    enums.set(type, known);
  }
  return known;
}

/** Descriptors are shared by plans and workers: nobody may change one under another's feet. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
