import { AnalysisError } from "../../errors/errors.js";

/**
 * Sluice's own description of Protobuf messages: the little that decoding and encoding need (field
 * numbers, types, labels, presence, enum values), as plain frozen data. A plan can carry it to a
 * worker thread and a checkpoint can record it, neither of which a parser library's object graph
 * survives. `proto-schema.ts` builds it from .proto text or a FileDescriptorSet.
 */

export const PROTO_SCALAR_TYPES = [
  "double",
  "float",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
  "sfixed32",
  "sfixed64",
  "bool",
  "string",
  "bytes",
] as const;
export type ProtoScalarType = (typeof PROTO_SCALAR_TYPES)[number];

/** `group` is proto2's tag-delimited message (editions: `features.message_encoding = DELIMITED`). */
export type ProtoFieldType = ProtoScalarType | "enum" | "message" | "group";

export interface ProtoEnumValue {
  readonly name: string;
  readonly number: number;
}

export interface ProtoEnum {
  /** Without a leading dot, such as "acme.ads.Event.Kind". */
  readonly fullName: string;
  /** In declaration order: the first one is the enum's default. */
  readonly values: readonly ProtoEnumValue[];
  /**
   * Closed (proto2): a number the enum does not list is kept aside as an unknown field, so the
   * field reads as if absent. Open (proto3): the number is the field's value all the same.
   */
  readonly closed: boolean;
}

export interface ProtoField {
  readonly name: string;
  readonly number: number;
  readonly type: ProtoFieldType;
  /** The full name of the field's message or enum type (no leading dot); absent for scalars. */
  readonly typeName?: string;
  /** The field's enum, when `type` is "enum". */
  readonly enum?: ProtoEnum;
  readonly label: "optional" | "required" | "repeated";
  /** A map field: repeated entries of a synthetic key/value message. */
  readonly map: boolean;
  /** Repeated scalars written as one length-delimited run. */
  readonly packed: boolean;
  /**
   * Whether the wire format can tell "absent" from the default value: explicit for proto2 fields,
   * proto3 `optional`, oneof members and message fields; implicit for other proto3 scalars, whose
   * default value is never written.
   */
  readonly presence: "explicit" | "implicit";
  /** The oneof the field belongs to (proto3 `optional` makes a oneof of its own). */
  readonly oneof?: string;
  /** proto2's `[default = ...]`: what an absent field reads as. Enum defaults are value names. */
  readonly defaultValue?: string | number | boolean;
  /** proto3 strings must be valid UTF-8 (a parser rejects the message otherwise); proto2 strings need not. */
  readonly validateUtf8: boolean;
}

export interface ProtoMessage {
  /** Without a leading dot, such as "acme.ads.Event". */
  readonly fullName: string;
  /** In declaration order. */
  readonly fields: readonly ProtoField[];
  /**
   * The message types declared inside this one, in declaration order: the Confluent wire
   * format's message indexes count them. Map entry types are not among them (see messageAt).
   */
  readonly nested: readonly ProtoMessage[];
}

/** One .proto file (or descriptor set): its top-level messages in declaration order. */
export interface ProtoSchema {
  readonly messages: readonly ProtoMessage[];
}

/** The full name's last part: "Event" for "acme.ads.Event". */
export function simpleName(fullName: string): string {
  return fullName.slice(fullName.lastIndexOf(".") + 1);
}

function* allMessages(messages: readonly ProtoMessage[]): Generator<ProtoMessage> {
  for (const m of messages) {
    yield m;
    yield* allMessages(m.nested);
  }
}

/**
 * The message named `name` in `schema`: a full name ("acme.ads.Event", a leading dot allowed, as
 * Spark's `messageName`) or a simple name ("Event") that names one message only.
 */
export function messageNamed(schema: ProtoSchema, name: string): ProtoMessage {
  const wanted = name.startsWith(".") ? name.slice(1) : name;
  const messages = [...allMessages(schema.messages)];
  const exact = messages.find((m) => m.fullName === wanted);
  if (exact !== undefined) return exact;
  const bySimpleName = messages.filter((m) => simpleName(m.fullName) === wanted);
  if (bySimpleName.length === 1) return bySimpleName[0]!;
  if (bySimpleName.length > 1) {
    throw new AnalysisError(`Protobuf message name "${name}" is ambiguous: ${bySimpleName.map((m) => m.fullName).join(", ")}; give the full name`);
  }
  throw new AnalysisError(`no Protobuf message named "${name}" in the schema; its messages are ${messages.map((m) => m.fullName).join(", ") || "none"}`);
}

/**
 * The message at a Confluent message-index path: [i] is the i-th top-level message, [i, j] the j-th
 * message declared inside it, and so on; undefined when the path leads nowhere. protoc also counts
 * the synthetic entry types of map fields among a message's nested types; Confluent's serializers,
 * which derive descriptors from schema text, append them after the declared ones, so declared
 * nested messages keep the indexes counted here.
 */
export function messageAt(schema: ProtoSchema, indexes: readonly number[]): ProtoMessage | undefined {
  let candidates = schema.messages;
  let message: ProtoMessage | undefined;
  for (const index of indexes) {
    message = candidates[index];
    if (message === undefined) return undefined;
    candidates = message.nested;
  }
  return message;
}

/** "field 2 (price)": how messages name a field, by number first since that is what the wire carries. */
export function describeField(number: number, name: string | undefined): string {
  return name === undefined ? `field ${number}` : `field ${number} (${name})`;
}

/** The Confluent wire format's message indexes of the message named `fullName` in `schema` (the reverse of messageAt); undefined when it has none. */
export function messageIndexesOf(schema: ProtoSchema, fullName: string): number[] | undefined {
  const search = (messages: readonly ProtoMessage[], path: number[]): number[] | undefined => {
    for (const [i, m] of messages.entries()) {
      if (m.fullName === fullName) return [...path, i];
      const inner = search(m.nested, [...path, i]);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  return search(schema.messages, []);
}
