import { AnalysisError } from "../../errors/errors.js";
import type { DType, Fields } from "../../types/dtype.js";
import { describeField, simpleName } from "./proto-descriptor.js";
import type { ProtoEnum, ProtoField, ProtoMessage } from "./proto-descriptor.js";
import { columnTypeOf, protoFieldNamed, TIMESTAMP_MESSAGE } from "./proto-types.js";
import type { ProtoTypeOptions } from "./proto-types.js";
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LENGTH_DELIMITED, WIRE_VARINT, wireTypeOf } from "./wire-types.js";

/**
 * What the record decoder does with each field number, worked out once per query from the columns
 * and the reader's message: flat typed arrays indexed by a slot per field read, so the hot loop
 * looks nothing up by name and allocates nothing.
 *
 * Presence follows Spark's from_protobuf (ProtobufDeserializer): a field reads as null unless it
 * is present on the wire, or it is a proto2 field with a `[default = ...]` (which it then reads
 * as), or `emitDefaultValues` is set and it is a field without presence (a proto3 scalar), which
 * then reads as its type's zero. A proto3 scalar without presence that is present with its
 * default value counts as absent: protobuf-java does not record it as set.
 */

// The decoding operations: how a value is read from the wire and where it goes.
/** varint, low 32 bits -> int32 (int32, uint32 without upcasting). */
export const OP_INT32 = 0;
/** varint, low 32 bits unsigned -> int64 (uint32 with upcast.unsigned.ints). */
export const OP_UINT32_AS_INT64 = 1;
export const OP_SINT32 = 2;
/** varint, 64 bits -> int64 (int64, uint64). */
export const OP_INT64 = 3;
export const OP_SINT64 = 4;
export const OP_BOOL = 5;
export const OP_ENUM_NAME = 6;
export const OP_ENUM_NUMBER = 7;
/** 4 bytes -> int32 (sfixed32, fixed32 without upcasting). */
export const OP_FIXED32 = 8;
export const OP_FIXED32_AS_INT64 = 9;
export const OP_FLOAT = 10;
/** 8 bytes -> int64 (fixed64, sfixed64). */
export const OP_FIXED64 = 11;
export const OP_DOUBLE = 12;
export const OP_STRING = 13;
export const OP_BYTES = 14;
export const OP_TIMESTAMP = 15;
/** A required field that no column reads: only noted as present, so its absence is caught. */
export const OP_TRACK = 16;

/** Field numbers below this are looked up in an array; larger ones (rare) in a map. */
const DENSE_NUMBERS = 4096;
/** Enum numbers below this are looked up in an array; others in a map. */
const DENSE_ENUM_NUMBERS = 1024;

export const NO_SLOT = -1;
const NO_BYTES = new Uint8Array(0);
const encoder = new TextEncoder();

/** An enum's value names as UTF-8, by number; the first name declared wins for aliases, as in protobuf-java. */
export class EnumNames {
  private readonly dense: (Uint8Array | undefined)[] = [];
  private readonly sparse = new Map<number, Uint8Array>();

  constructor(readonly protoEnum: ProtoEnum) {
    for (const { name, number } of protoEnum.values) {
      if (this.get(number) !== undefined) continue;
      const bytes = encoder.encode(name);
      if (number >= 0 && number < DENSE_ENUM_NUMBERS) this.dense[number] = bytes;
      else this.sparse.set(number, bytes);
    }
  }

  get(number: number): Uint8Array | undefined {
    return number >= 0 && number < DENSE_ENUM_NUMBERS ? this.dense[number] : this.sparse.get(number);
  }

  /** protobuf-java's name for a number an open enum does not list, which Spark returns as the value. */
  unknownName(number: number): Uint8Array {
    return encoder.encode(`UNKNOWN_ENUM_VALUE_${simpleName(this.protoEnum.fullName)}_${number}`);
  }
}

export interface ReaderPlanOptions extends ProtoTypeOptions {
  /** Spark's `emit.default.values`: fields without presence read as their zero value when absent. */
  readonly emitDefaultValues?: boolean;
}

export class ReaderPlan {
  readonly dense = new Int32Array(DENSE_NUMBERS).fill(NO_SLOT);
  private readonly sparse = new Map<number, number>();
  readonly fields: ProtoField[] = [];
  readonly column: Int32Array;
  readonly op: Int32Array;
  readonly wire: Int32Array;
  /** 1: the field's default value reads as null (no presence, and no emitDefaultValues). */
  readonly dropDefault: Uint8Array;
  /** 1: an absent field reads as `fillNumber` / `fillBytes`. */
  readonly fill: Uint8Array;
  readonly fillNumber: Float64Array;
  readonly fillBytes: (Uint8Array | null)[];
  readonly validateUtf8: Uint8Array;
  readonly enumNames: (EnumNames | null)[];
  readonly closedEnum: Uint8Array;
  /** The columns of the other members of the slot's oneof: writing one member clears them. */
  readonly oneofPeers: (Int32Array | null)[];
  /** Whether any slot has oneof peers: most messages have none, and then none is looked up. */
  readonly hasOneofs: boolean;
  readonly fillSlots: Int32Array;
  readonly requiredSlots: Int32Array;
  /** Slots whose column is not nullable. */
  readonly nonNullSlots: Int32Array;
  private readonly namesByNumber: Map<number, string>;

  /**
   * `fields` are the columns; `skipColumn` (the corrupt-record column, or -1) is not read from the
   * record. Every other column must name a field of `message` and have its type (proto-types.ts).
   */
  constructor(
    readonly message: ProtoMessage,
    fields: Fields,
    skipColumn: number,
    readonly options: ReaderPlanOptions,
  ) {
    this.namesByNumber = new Map(message.fields.map((f) => [f.number, f.name]));
    const columns: number[] = [];
    fields.forEach((column, c) => {
      if (c === skipColumn) return;
      const field = protoFieldNamed(message, column.name);
      const type = columnTypeOf(field, message, options);
      if (type !== column.type) {
        throw new AnalysisError(
          `column "${column.name}" is ${column.type}, but Protobuf ${describeField(field.number, field.name)} of ${message.fullName} is ${field.type}, ` +
            `read as ${type}: declare the column as ${type}`,
        );
      }
      this.fields.push(field);
      columns.push(c);
    });
    for (const field of message.fields) {
      if (field.label === "required" && !this.fields.includes(field)) {
        this.fields.push(field);
        columns.push(-1);
      }
    }
    const n = this.fields.length;
    this.column = Int32Array.from(columns);
    this.op = Int32Array.from(this.fields, (f, s) => (columns[s]! < 0 ? OP_TRACK : opOf(f, fields[columns[s]!]!.type, options)));
    // A required field nobody reads may be of any type: only its wire type is checked.
    this.wire = Int32Array.from(this.op, (op, s) => (op === OP_TRACK ? wireTypeOf(this.fields[s]!.type) : wireOf(op)));
    const emit = options.emitDefaultValues === true;
    this.dropDefault = Uint8Array.from(this.fields, (f) => (f.presence === "implicit" && !emit ? 1 : 0));
    this.fill = Uint8Array.from(this.fields, (f, s) => (this.op[s] !== OP_TRACK && ((f.presence === "implicit" && emit) || f.defaultValue !== undefined) ? 1 : 0));
    this.enumNames = this.fields.map((f) => (f.enum === undefined ? null : new EnumNames(f.enum)));
    this.closedEnum = Uint8Array.from(this.fields, (f) => (f.enum?.closed ? 1 : 0));
    this.fillNumber = new Float64Array(n);
    this.fillBytes = this.fields.map(() => null);
    for (let s = 0; s < n; s++) if (this.fill[s]) this.setFill(s);
    this.validateUtf8 = Uint8Array.from(this.fields, (f) => (f.validateUtf8 ? 1 : 0));
    this.oneofPeers = this.fields.map((f, s) => {
      if (f.oneof === undefined || columns[s]! < 0) return null;
      const peers = this.fields.flatMap((g, t) => (t !== s && g.oneof === f.oneof && columns[t]! >= 0 ? [columns[t]!] : []));
      return peers.length > 0 ? Int32Array.from(peers) : null;
    });
    this.hasOneofs = this.oneofPeers.some((peers) => peers !== null);
    const slots = [...this.fields.keys()];
    this.fillSlots = Int32Array.from(slots.filter((s) => this.fill[s] === 1));
    this.requiredSlots = Int32Array.from(slots.filter((s) => this.fields[s]!.label === "required"));
    this.nonNullSlots = Int32Array.from(slots.filter((s) => columns[s]! >= 0 && !fields[columns[s]!]!.nullable));
    this.fields.forEach((f, s) => {
      if (f.number < DENSE_NUMBERS) this.dense[f.number] = s;
      else this.sparse.set(f.number, s);
    });
  }

  /** The slot of a field number too large for `dense`, or NO_SLOT. */
  sparseSlot(number: number): number {
    return this.sparse.get(number) ?? NO_SLOT;
  }

  /** "field 2 (price)", with the name when the reader's message declares the number. */
  describe(number: number): string {
    return describeField(number, this.namesByNumber.get(number));
  }

  /** What an absent field reads as: the proto2 default, or the zero of a field without presence. */
  private setFill(s: number): void {
    const field = this.fields[s]!;
    const value = field.defaultValue;
    switch (this.op[s]) {
      case OP_ENUM_NAME:
        this.fillBytes[s] = encoder.encode(value === undefined ? field.enum!.values[0]!.name : String(value));
        return;
      case OP_ENUM_NUMBER:
        this.fillNumber[s] = value === undefined ? field.enum!.values[0]!.number : enumNumber(field, String(value));
        return;
      case OP_STRING:
        this.fillBytes[s] = value === undefined ? NO_BYTES : encoder.encode(String(value));
        return;
      case OP_BYTES:
        // The parser unescapes a bytes default into one character per byte.
        this.fillBytes[s] = value === undefined ? NO_BYTES : Uint8Array.from(String(value), (c) => c.charCodeAt(0) & 0xff);
        return;
      default:
        this.fillNumber[s] = value === undefined ? 0 : Number(value);
    }
  }
}

function enumNumber(field: ProtoField, name: string): number {
  const value = field.enum!.values.find((v) => v.name === name);
  if (value === undefined) throw new AnalysisError(`Protobuf ${describeField(field.number, field.name)} has the default ${name}, which its enum ${field.enum!.fullName} does not list`);
  return value.number;
}

/** The operation that moves values of `field` between the wire and a column of type `column`. */
export function opOf(field: ProtoField, column: DType, options: ProtoTypeOptions): number {
  const upcast = options.upcastUnsignedInts === true;
  switch (field.type) {
    case "int32":
      return OP_INT32;
    case "uint32":
      return upcast ? OP_UINT32_AS_INT64 : OP_INT32;
    case "sint32":
      return OP_SINT32;
    case "int64":
    case "uint64":
      return OP_INT64;
    case "sint64":
      return OP_SINT64;
    case "bool":
      return OP_BOOL;
    case "enum":
      return column === "string" ? OP_ENUM_NAME : OP_ENUM_NUMBER;
    case "fixed32":
      return upcast ? OP_FIXED32_AS_INT64 : OP_FIXED32;
    case "sfixed32":
      return OP_FIXED32;
    case "float":
      return OP_FLOAT;
    case "fixed64":
    case "sfixed64":
      return OP_FIXED64;
    case "double":
      return OP_DOUBLE;
    case "string":
      return OP_STRING;
    case "bytes":
      return OP_BYTES;
    case "message":
    case "group":
      // columnTypeOf let only google.protobuf.Timestamp through.
      if (field.typeName === TIMESTAMP_MESSAGE) return OP_TIMESTAMP;
      throw new AnalysisError(`Protobuf ${describeField(field.number, field.name)} is a ${field.type}, which no column can hold`);
  }
}

function wireOf(op: number): number {
  switch (op) {
    case OP_FIXED32:
    case OP_FIXED32_AS_INT64:
    case OP_FLOAT:
      return WIRE_FIXED32;
    case OP_FIXED64:
    case OP_DOUBLE:
      return WIRE_FIXED64;
    case OP_STRING:
    case OP_BYTES:
    case OP_TIMESTAMP:
      return WIRE_LENGTH_DELIMITED;
    default:
      return WIRE_VARINT;
  }
}
