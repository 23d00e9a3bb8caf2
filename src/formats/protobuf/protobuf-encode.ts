import type * as arrow from "apache-arrow";
import type { Batch } from "../../batch/batch.js";
import { int64WordsOf, readNumbers, wordsToNumber } from "../../batch/numeric-columns.js";
import { readValidity } from "../../batch/validity.js";
import { AnalysisError } from "../../errors/errors.js";
import { wireHeader } from "../../schema-registry/wire-format.js";
import { FieldMatcher, NO_FIELD } from "../field-matcher.js";
import { describeField } from "./proto-descriptor.js";
import type { ProtoField, ProtoMessage } from "./proto-descriptor.js";
import { columnTypeOrReason, protoFieldNamed } from "./proto-types.js";
import * as plans from "./reader-plan.js";
import { wireTypeOf } from "./wire-types.js";
import { MAX_SCALAR_BYTES, WireWriter } from "./wire-writer.js";

/**
 * A batch's rows encoded as Protobuf messages, as Spark's `to_protobuf`: each column is written to
 * the message field of its name, in field-number order (as protobuf-java writes); a null is an
 * absent field, and so is the default value of a field without presence (a proto3 scalar), which
 * protobuf-java does not write either. The result is a Binary column's offsets and bytes, one
 * message per row, optionally each behind a Confluent wire-format header.
 *
 * A column's type must be what decoding gives for its field (proto-types.ts), with either choice
 * of Spark's options: an enum from a string column (value names) or an int32 one (numbers), a
 * uint32 or fixed32 from int32 or int64. Every proto2 required field needs a column, and a null
 * there, or an enum name the enum lacks, is an AnalysisError naming the row.
 */

export interface ProtobufEncodeOptions {
  /** Put the Confluent wire-format header (magic byte, schema id, message indexes: [0] by default) before each message. */
  readonly confluent?: { readonly schemaId: number; readonly messageIndexes?: readonly number[] };
}

export interface EncodedValues {
  /** numRows + 1 positions: row i's message is `bytes[offsets[i], offsets[i + 1])`. */
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
}

const MS_PER_SECOND = 1000;
const NANOS_PER_MS = 1_000_000;
const TIMESTAMP_SECONDS_TAG = (1 << 3) | 0;
const TIMESTAMP_NANOS_TAG = (2 << 3) | 0;

/** One column's field: how its values are read from the batch and written to the wire. */
interface ColumnEncoder {
  readonly field: ProtoField;
  readonly name: string;
  readonly op: number;
  readonly tag: number;
  readonly valid: Uint8Array | null;
  /** The column's values in their kernel form: int32s, int64 words, doubles (booleans 0 / 1). */
  readonly ints: Int32Array;
  readonly words: Int32Array;
  readonly numbers: Float64Array;
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  /** Omit the type's default value (no presence: the reader cannot tell it from absence). */
  readonly omitDefault: boolean;
  /** uint32 numbers are written unsigned; int32 and enum numbers sign-extended to 64 bits, as protobuf does. */
  readonly unsigned: boolean;
  readonly enumNames: FieldMatcher | null;
  /** Members of the same oneof in later columns: a row writes the last member that is not null. */
  laterMembers: readonly ColumnEncoder[];
}

const NO_INTS = new Int32Array(0);
const NO_NUMBERS = new Float64Array(0);
const NO_BYTES = new Uint8Array(0);

export function encodeProtobufValues(batch: Batch, message: ProtoMessage, options: ProtobufEncodeOptions = {}): EncodedValues {
  const encoders = batch.fields.map((f, c) => columnEncoder(message, f.name, f.type, batch.columns[c]!));
  // Setting a oneof member clears the others in protobuf-java's builder, which Spark fills in column order.
  for (const [c, e] of encoders.entries()) {
    if (e.field.oneof === undefined) continue;
    e.laterMembers = encoders.slice(c + 1).filter((other) => other.field.oneof === e.field.oneof);
  }
  encoders.sort((a, b) => a.field.number - b.field.number);
  for (const f of message.fields) {
    if (f.label === "required" && !encoders.some((e) => e.field === f)) {
      throw new AnalysisError(`the Protobuf message ${message.fullName} requires ${describeField(f.number, f.name)}, which no column gives`);
    }
  }
  const header = options.confluent === undefined ? NO_BYTES : wireHeader(options.confluent.schemaId, options.confluent.messageIndexes ?? [0]);
  const n = batch.numRows;
  const out = new WireWriter(estimateBytes(encoders, n, header.length));
  const offsets = new Int32Array(n + 1);
  for (let row = 0; row < n; row++) {
    out.ensure(header.length);
    out.raw(header, 0, header.length);
    for (let e = 0; e < encoders.length; e++) writeField(out, encoders[e]!, row);
    offsets[row + 1] = out.pos;
  }
  return { offsets, bytes: out.bytes.subarray(0, out.pos) };
}

function columnEncoder(message: ProtoMessage, name: string, type: string, data: arrow.Data): ColumnEncoder {
  const field = protoFieldNamed(message, name);
  const unsignedType = field.type === "uint32" || field.type === "fixed32";
  const accepted = columnTypeOrReason(field, { enumsAsInts: type === "int32", upcastUnsignedInts: unsignedType && type === "int64" });
  if (typeof accepted !== "string") throw new AnalysisError(`column "${name}" cannot be written to Protobuf ${describeField(field.number, field.name)} of ${message.fullName}, which ${accepted.reason}`);
  if (accepted !== type) {
    throw new AnalysisError(`column "${name}" is ${type}, but Protobuf ${describeField(field.number, field.name)} of ${message.fullName} is ${field.type}, written from ${accepted}`);
  }
  const op = plans.opOf(field, accepted, { upcastUnsignedInts: accepted === "int64" });
  const is64 = type === "int64" || type === "timestamp";
  const isBytes = type === "string" || type === "binary";
  return {
    field,
    name,
    op,
    tag: ((field.number << 3) | wireTypeOf(field.type)) >>> 0,
    valid: readValidity(data),
    ints: type === "int32" ? (data.values as Int32Array) : NO_INTS,
    words: is64 ? int64WordsOf(data) : NO_INTS,
    numbers: type === "float64" || type === "boolean" ? readNumbers(data) : NO_NUMBERS,
    offsets: isBytes ? (data.valueOffsets as Int32Array) : NO_INTS,
    bytes: isBytes ? (data.values as Uint8Array) : NO_BYTES,
    omitDefault: field.presence === "implicit",
    unsigned: field.type === "uint32",
    enumNames: op === plans.OP_ENUM_NAME ? new FieldMatcher(field.enum!.values.map((v) => v.name)) : null,
    laterMembers: [],
  };
}

/** A first guess at the output size: strings' bytes plus a tag and a varint per field. */
function estimateBytes(encoders: readonly ColumnEncoder[], n: number, headerLength: number): number {
  let total = n * headerLength;
  for (const e of encoders) total += e.bytes.length + n * (e.op === plans.OP_TIMESTAMP ? 20 : 8);
  return total;
}

function writeField(out: WireWriter, e: ColumnEncoder, row: number): void {
  if (e.valid !== null && e.valid[row] === 0) {
    if (e.field.label === "required") throw new AnalysisError(`row ${row}: column "${e.name}" is null, but Protobuf ${describeField(e.field.number, e.field.name)} is required`);
    return;
  }
  if (e.laterMembers.length > 0 && e.laterMembers.some((later) => later.valid === null || later.valid[row] === 1)) return;
  out.ensure(MAX_SCALAR_BYTES);
  switch (e.op) {
    case plans.OP_INT32:
    case plans.OP_ENUM_NUMBER: {
      const v = e.ints[row]!;
      if (v === 0 && e.omitDefault) return;
      out.varint32(e.tag);
      out.varint64(v, e.unsigned || v >= 0 ? 0 : -1);
      return;
    }
    case plans.OP_SINT32: {
      const v = e.ints[row]!;
      if (v === 0 && e.omitDefault) return;
      out.varint32(e.tag);
      out.varint32((v << 1) ^ (v >> 31));
      return;
    }
    case plans.OP_FIXED32: {
      const v = e.ints[row]!;
      if (v === 0 && e.omitDefault) return;
      out.varint32(e.tag);
      out.fixed32(v);
      return;
    }
    case plans.OP_INT64:
    case plans.OP_SINT64:
    case plans.OP_FIXED64:
    case plans.OP_UINT32_AS_INT64:
    case plans.OP_FIXED32_AS_INT64:
      writeWords(out, e, e.words[2 * row]!, e.words[2 * row + 1]!);
      return;
    case plans.OP_BOOL:
    case plans.OP_FLOAT:
    case plans.OP_DOUBLE: {
      const v = e.numbers[row]!;
      // Only +0 is the default: protobuf-java writes -0, whose bits differ.
      if (v === 0 && 1 / v > 0 && e.omitDefault) return;
      out.varint32(e.tag);
      if (e.op === plans.OP_BOOL) out.varint32(v);
      else if (e.op === plans.OP_FLOAT) out.float32(v);
      else out.float64(v);
      return;
    }
    case plans.OP_ENUM_NAME:
      writeEnumName(out, e, row);
      return;
    case plans.OP_STRING:
    case plans.OP_BYTES: {
      const start = e.offsets[row]!;
      const end = e.offsets[row + 1]!;
      if (start === end && e.omitDefault) return;
      out.ensure(MAX_SCALAR_BYTES + end - start);
      out.varint32(e.tag);
      out.varint32(end - start);
      out.raw(e.bytes, start, end);
      return;
    }
    case plans.OP_TIMESTAMP:
      writeTimestamp(out, e, wordsToNumber(e.words[2 * row]!, e.words[2 * row + 1]!));
      return;
  }
}

function writeWords(out: WireWriter, e: ColumnEncoder, lo: number, hi: number): void {
  if ((lo | hi) === 0 && e.omitDefault) return;
  out.varint32(e.tag);
  switch (e.op) {
    case plans.OP_SINT64: {
      // Zigzag on the words: (n << 1) ^ (n >> 63).
      const sign = hi >> 31;
      out.varint64(((lo << 1) ^ sign) >>> 0, ((hi << 1) | (lo >>> 31)) ^ sign);
      return;
    }
    case plans.OP_FIXED64:
      out.fixed64(lo, hi);
      return;
    case plans.OP_UINT32_AS_INT64:
      out.varint64(lo, 0);
      return;
    case plans.OP_FIXED32_AS_INT64:
      out.fixed32(lo);
      return;
    default:
      out.varint64(lo, hi);
  }
}

function writeEnumName(out: WireWriter, e: ColumnEncoder, row: number): void {
  const start = e.offsets[row]!;
  const end = e.offsets[row + 1]!;
  const index = e.enumNames!.match(e.bytes, start, end);
  const values = e.field.enum!.values;
  if (index === NO_FIELD) {
    const name = new TextDecoder().decode(e.bytes.subarray(start, end));
    throw new AnalysisError(`row ${row}: column "${e.name}" holds "${name}", which is not a value of the enum ${e.field.enum!.fullName} (${values.map((v) => v.name).join(", ")})`);
  }
  const number = values[index]!.number;
  if (number === 0 && e.omitDefault) return;
  out.varint32(e.tag);
  out.varint64(number, number < 0 ? -1 : 0);
}

/** Epoch milliseconds as a google.protobuf.Timestamp: seconds floored, nanos in [0, 1e9), zeros left out. */
function writeTimestamp(out: WireWriter, e: ColumnEncoder, ms: number): void {
  const seconds = Math.floor(ms / MS_PER_SECOND);
  const nanos = (ms - seconds * MS_PER_SECOND) * NANOS_PER_MS;
  out.varint32(e.tag);
  const lengthAt = out.pos++;
  if (seconds !== 0) {
    out.varint32(TIMESTAMP_SECONDS_TAG);
    out.varintOfInteger(seconds);
  }
  if (nanos !== 0) {
    out.varint32(TIMESTAMP_NANOS_TAG);
    out.varint32(nanos);
  }
  // At most 1 + 10 + 1 + 5 bytes: the length always fits one byte.
  out.bytes[lengthAt] = out.pos - lengthAt - 1;
}
