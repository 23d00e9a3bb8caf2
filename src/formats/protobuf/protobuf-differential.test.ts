import protobufjs from "protobufjs";
import { beforeAll, describe, expect, it } from "vitest";
import { rowsToBatch } from "../../batch/rows.js";
import type { Fields } from "../../types/dtype.js";
import { seededRandom } from "../test-rows.js";
import type { ProtoField, ProtoMessage } from "./proto-descriptor.js";
import { parseProtoMessage } from "./proto-schema.js";
import { columnTypeOrReason, protoFields } from "./proto-types.js";
import { encodeProtobufValues } from "./protobuf-encode.js";
import { decodeProtobufValues } from "./protobuf-values.js";
import { plainRows, valuesColumn } from "./test-wire.js";

/**
 * Sluice's Protobuf decoder and encoder against protobufjs's own, on seeded random messages of a
 * proto3 and a proto2 schema holding every supported type, plus fields the columns cannot read
 * (repeated packed and unpacked, nested messages, maps, groups), and fields only the writer knows
 * (unknown to the reader). What the library decodes is turned into what Spark's from_protobuf
 * reads (reader-plan.ts): present fields, proto2 defaults, and null for an absent field or a
 * proto3 scalar at its default.
 */

const PROTO3 = (extra: string) => `
syntax = "proto3";
package diff;
import "google/protobuf/timestamp.proto";
message Every {
  enum Color { RED = 0; GREEN = 1; BLUE = 2; }
  message Nested { int32 a = 1; repeated string b = 2; }
  int32 i32 = 1; sint32 s32 = 2; sfixed32 sf32 = 3; uint32 u32 = 4; fixed32 f32 = 5;
  int64 i64 = 6; sint64 s64 = 7; sfixed64 sf64 = 8; uint64 u64 = 9; fixed64 f64 = 10;
  float fl = 11; double db = 12; bool b = 13; string s = 14; bytes by = 15; Color color = 16;
  google.protobuf.Timestamp ts = 17;
  optional int32 oi = 18; optional string os = 19; optional double od = 27;
  repeated int32 packed_ints = 20; repeated int32 unpacked_ints = 21 [packed = false]; repeated string names = 22;
  Nested nested = 23; map<string, int64> counts = 24;
  oneof choice { int64 ci = 25; string cs = 26; }
  ${extra}
}`;

const PROTO2 = (extra: string) => `
syntax = "proto2";
package diff2;
message Every {
  enum Level { LOW = 1; MID = 2; HIGH = 3; }
  required int32 id = 9;
  optional int32 i32 = 1; optional sint64 s64 = 2; optional uint64 u64 = 3; optional double db = 4 [default = 2.5];
  optional string s = 5 [default = "dflt"]; optional bytes by = 6; optional Level level = 7 [default = MID];
  optional bool b = 8 [default = true]; optional fixed32 f32 = 10; optional float fl = 11; optional sfixed64 sf64 = 15 [default = -3];
  repeated int32 unpacked = 12; repeated int32 packed_ints = 13 [packed = true];
  optional group Grp = 14 { optional int32 a = 1; repeated string b = 2; }
  ${extra}
}`;

/** Fields only the writer has: unknown to the reader, of every wire type. */
const WRITER_ONLY = "int64 w_varint = 100; fixed64 w_fixed64 = 101; string w_text = 102; fixed32 w_fixed32 = 103; repeated sint32 w_list = 104;";
const WRITER_ONLY_2 = "optional int64 w_varint = 100; optional fixed64 w_fixed64 = 101; optional string w_text = 102; optional fixed32 w_fixed32 = 103; optional group W = 104 { optional int32 x = 1; }";

interface Setup {
  readonly reader: ProtoMessage;
  readonly fields: Fields;
  readonly readerType: protobufjs.Type;
  readonly writerType: protobufjs.Type;
}

function libraryType(text: string, name: string): protobufjs.Type {
  const root = protobufjs.parse(text, { keepCase: true }).root;
  root.addJSON(protobufjs.common.get("google/protobuf/timestamp.proto")!.nested!);
  root.resolveAll();
  return root.lookupType(name);
}

async function setUp(text: (extra: string) => string, writerOnly: string, name: string): Promise<Setup> {
  const reader = await parseProtoMessage(text(""), name);
  const readable = reader.fields.filter((f) => typeof columnTypeOrReason(f) === "string").map((f) => f.name);
  return { reader, fields: protoFields(reader, {}, readable), readerType: libraryType(text(""), name), writerType: libraryType(text(writerOnly), name) };
}

// ---- random messages, as protobufjs objects ----

const INT32S = [0, 1, -1, 7, 2147483647, -2147483648, 300, -300];
const UINT32S = [0, 1, 2147483648, 4294967295, 128];
const INT64S = [0n, 1n, -1n, 9007199254740993n, -(2n ** 63n), 2n ** 63n - 1n, 4294967296n, -4294967297n];
const UINT64S = [0n, 1n, 2n ** 64n - 1n, 2n ** 63n, 9007199254740993n];
const DOUBLES = [0, -0, 1.5, -2.25, 1e300, Number.NaN, Number.POSITIVE_INFINITY, 5e-324];
const FLOATS = [0, -0, 1.5, Math.fround(0.1), Math.fround(3.4e38), Number.NEGATIVE_INFINITY, Number.NaN];
const STRINGS = ["", "a", "café", "中文 😀", "with\nnewline", "x".repeat(200)];

function randomObject(type: protobufjs.Type, rnd: () => number, depth = 0): Record<string, unknown> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const value = (f: protobufjs.Field): unknown => {
    const resolved = f.resolvedType;
    if (resolved instanceof protobufjs.Enum) {
      const numbers = Object.values(resolved.values);
      return rnd() < 0.1 ? 7 : pick(numbers); // 7: a number the enum does not list
    }
    if (resolved instanceof protobufjs.Type) {
      if (resolved.fullName === ".google.protobuf.Timestamp") {
        return { seconds: Math.floor((rnd() - 0.5) * 2e10), nanos: pick([0, 1, 999_999_999, Math.floor(rnd() * 1e9)]) };
      }
      return depth < 2 ? randomObject(resolved, rnd, depth + 1) : {};
    }
    switch (f.type) {
      case "int32":
      case "sint32":
      case "sfixed32":
        return pick(INT32S);
      case "uint32":
      case "fixed32":
        return pick(UINT32S);
      case "int64":
      case "sint64":
      case "sfixed64":
        return pick(INT64S).toString();
      case "uint64":
      case "fixed64":
        return pick(UINT64S).toString();
      case "double":
        return pick(DOUBLES);
      case "float":
        return pick(FLOATS);
      case "bool":
        return rnd() < 0.5;
      case "string":
        return pick(STRINGS);
      default:
        return Uint8Array.from({ length: pick([0, 1, 5, 60]) }, () => Math.floor(rnd() * 256));
    }
  };
  const object: Record<string, unknown> = {};
  const oneofsSet = new Set<string>();
  for (const f of type.fieldsArray) {
    if (rnd() < 0.4) continue;
    if (f.partOf && f.partOf.oneof.length > 1) {
      if (oneofsSet.has(f.partOf.name)) continue;
      oneofsSet.add(f.partOf.name);
    }
    if (f.map) object[f.name] = Object.fromEntries(Array.from({ length: Math.floor(rnd() * 3) }, (_, i) => [`k${i}`, pick(INT64S).toString()]));
    else if (f.repeated) object[f.name] = Array.from({ length: Math.floor(rnd() * 4) }, () => value(f));
    else object[f.name] = value(f);
  }
  return object;
}

// ---- what Spark reads from what the library decoded ----

function isDefault(v: unknown): boolean {
  if (typeof v === "number") return v === 0 && 1 / v > 0;
  if (typeof v === "bigint") return v === 0n;
  if (typeof v === "string") return v === "";
  if (typeof v === "boolean") return !v;
  return Array.isArray(v) && v.length === 0;
}

/** A 64-bit value as plainRows gives it: a number within 2^53, else a bigint. */
const exact = (v: bigint) => (v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n ? Number(v) : v);

function columnValue(field: ProtoField, raw: unknown): unknown {
  switch (field.type) {
    case "uint32":
    case "fixed32":
      return (raw as number) | 0;
    case "int64":
    case "sint64":
    case "sfixed64":
    case "uint64":
    case "fixed64":
      return exact(BigInt.asIntN(64, raw as bigint));
    case "enum": {
      const number = raw as number;
      return field.enum!.values.find((v) => v.number === number)?.name ?? `UNKNOWN_ENUM_VALUE_Color_${number}`;
    }
    case "message": {
      const ts = raw as { seconds?: bigint; nanos?: number };
      return new Date(Number(ts.seconds ?? 0n) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6)).toISOString();
    }
    default:
      return raw;
  }
}

function defaultValue(field: ProtoField): unknown {
  const d = field.defaultValue!;
  return field.type === "sfixed64" || field.type === "int64" ? Number(d) : d;
}

function expectedRow(setup: Setup, decoded: protobufjs.Message, emitDefaults: boolean): Record<string, unknown> {
  const object = setup.readerType.toObject(decoded, { longs: BigInt, bytes: Array });
  const row: Record<string, unknown> = {};
  for (const column of setup.fields) {
    const field = setup.reader.fields.find((f) => f.name === column.name)!;
    const present = Object.prototype.hasOwnProperty.call(decoded, field.name);
    let raw = present ? object[field.name] : undefined;
    // protobuf-java keeps a number a closed enum lacks as an unknown field.
    if (field.enum?.closed && !field.enum.values.some((v) => v.number === raw)) raw = undefined;
    if (raw !== undefined && !(field.presence === "implicit" && isDefault(raw) && !emitDefaults)) row[field.name] = columnValue(field, raw);
    else if (field.defaultValue !== undefined) row[field.name] = defaultValue(field);
    else if (field.presence === "implicit" && emitDefaults) row[field.name] = columnValue(field, field.type === "enum" ? 0 : zeroOf(column.type));
    else row[field.name] = null;
  }
  return row;
}

function zeroOf(type: string): unknown {
  return type === "string" ? "" : type === "binary" ? [] : type === "boolean" ? false : type === "int64" ? 0n : 0;
}

function encodeAll(type: protobufjs.Type, objects: readonly Record<string, unknown>[]): Uint8Array[] {
  return objects.map((o) => type.encode(type.fromObject(o)).finish());
}

const CASES = [
  ["proto3", PROTO3, WRITER_ONLY, "diff.Every"],
  ["proto2", PROTO2, WRITER_ONLY_2, "diff2.Every"],
] as const;

describe.each(CASES)("%s: decodeProtobufValues agrees with protobufjs's decoder", (_, text, writerOnly, name) => {
  let setup: Setup;
  let bytes: Uint8Array[];
  beforeAll(async () => {
    setup = await setUp(text, writerOnly, name);
    const rnd = seededRandom(name.length * 17);
    bytes = encodeAll(setup.writerType, Array.from({ length: 1500 }, () => randomObject(setup.writerType, rnd)));
  });

  it.each([false, true])("on random messages with unknown and unread fields (emitDefaultValues %s)", (emitDefaults) => {
    const c = valuesColumn(bytes);
    const result = decodeProtobufValues(c.bytes, c.offsets, c.validity, setup.fields, { message: setup.reader, mode: "FAILFAST", emitDefaultValues: emitDefaults });
    const expected = bytes.map((b) => expectedRow(setup, setup.readerType.decode(b), emitDefaults));
    expect(plainRows(result.batch)).toEqual(expected);
  });

  it("on the same messages truncated at random points: bad for both decoders, or good for both with the same rows", () => {
    const rnd = seededRandom(99);
    const cut = bytes.map((b) => b.subarray(0, Math.floor(rnd() * b.length)));
    const c = valuesColumn(cut);
    const result = decodeProtobufValues(c.bytes, c.offsets, c.validity, setup.fields, { message: setup.reader, mode: "PERMISSIVE" });
    const rows = plainRows(result.batch);
    const bad = new Set(result.malformedRows);
    let agreed = 0;
    cut.forEach((b, i) => {
      let decoded: protobufjs.Message | null = null;
      try {
        decoded = setup.readerType.decode(b);
        // The library does not check required fields when decoding; protobuf-java does.
        if (setup.readerType.fieldsArray.some((f) => f.required && !Object.prototype.hasOwnProperty.call(decoded, f.name))) decoded = null;
      } catch {
        decoded = null;
      }
      expect([i, bad.has(i)]).toEqual([i, decoded === null]);
      if (decoded !== null) expect(rows[i]).toEqual(expectedRow(setup, decoded, false));
      agreed++;
    });
    expect(agreed).toBe(cut.length);
    expect(bad.size).toBeGreaterThan(500);
  });
});

// ---- the other direction: Sluice rows encoded, decoded by the library ----

function randomRows(fields: Fields, reader: ProtoMessage, count: number, seed: number): Record<string, unknown>[] {
  const rnd = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  return Array.from({ length: count }, () =>
    Object.fromEntries(
      fields.map((column) => {
        const field = reader.fields.find((f) => f.name === column.name)!;
        if (rnd() < 0.3 && field.label !== "required") return [column.name, null];
        switch (column.type) {
          case "int32":
            return [column.name, pick(INT32S)];
          case "int64":
            return [column.name, pick(INT64S)];
          case "float64":
            return [column.name, field.type === "float" ? pick(FLOATS) : pick(DOUBLES)];
          case "boolean":
            return [column.name, rnd() < 0.5];
          case "binary":
            return [column.name, Uint8Array.from({ length: pick([0, 3]) }, () => Math.floor(rnd() * 256))];
          case "timestamp":
            return [column.name, new Date(Math.floor((rnd() - 0.5) * 2e13))];
          default:
            return [column.name, field.enum === undefined ? pick(STRINGS) : pick(field.enum.values).name];
        }
      }),
    ),
  );
}

/** What the library should decode from a Sluice value: the wire value of its field, or absent. */
function wireValue(field: ProtoField, v: unknown): unknown {
  if (v === null) return undefined;
  switch (field.type) {
    case "uint32":
    case "fixed32":
      return (v as number) >>> 0;
    case "uint64":
    case "fixed64":
      return BigInt.asUintN(64, BigInt(v as number | bigint));
    case "int64":
    case "sint64":
    case "sfixed64":
      return BigInt(v as number | bigint);
    case "enum":
      return field.enum!.values.find((e) => e.name === v)!.number;
    case "float":
      return Math.fround(v as number);
    case "bytes":
      return [...(v as Uint8Array)];
    case "message": {
      const ms = (v as Date).getTime();
      const seconds = Math.floor(ms / 1000);
      return { seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1e6 };
    }
    default:
      return v;
  }
}

describe.each(CASES)("%s: encodeProtobufValues agrees with protobufjs's decoder", (_, text, writerOnly, name) => {
  it("on random rows: every non-null value is on the wire (but the defaults of fields without presence), and reads back", async () => {
    const setup = await setUp(text, writerOnly, name);
    const written = randomRows(setup.fields, setup.reader, 1000, 5);
    // Of two members of a oneof, the later column wins (Spark fills protobuf-java's builder in column order).
    const rows = written.map((row) => (row["ci"] != null && row["cs"] != null ? { ...row, ci: null } : row));
    const batch = rowsToBatch(written, setup.fields);
    const { offsets, bytes } = encodeProtobufValues(batch, setup.reader);
    rows.forEach((row, i) => {
      const decoded = setup.readerType.decode(bytes.subarray(offsets[i]!, offsets[i + 1]!));
      const object = setup.readerType.toObject(decoded, { longs: BigInt, bytes: Array });
      for (const column of setup.fields) {
        const field = setup.reader.fields.find((f) => f.name === column.name)!;
        let expected = wireValue(field, row[column.name]);
        if (field.presence === "implicit" && expected !== undefined && isDefault(expected)) expected = undefined;
        const got = Object.prototype.hasOwnProperty.call(decoded, field.name) ? object[field.name] : undefined;
        const normalized = field.type === "message" && got !== undefined ? { seconds: BigInt((got as { seconds?: bigint }).seconds ?? 0n), nanos: (got as { nanos?: number }).nanos ?? 0 } : got;
        expect([i, column.name, normalized]).toEqual([i, column.name, expected]);
      }
    });
    // And Sluice reads its own output back: the values, but a proto3 default reads as null and an absent proto2 field as its default.
    const c = valuesColumn(rows.map((_, i) => bytes.subarray(offsets[i]!, offsets[i + 1]!)));
    const back = plainRows(decodeProtobufValues(c.bytes, c.offsets, c.validity, setup.fields, { message: setup.reader, mode: "FAILFAST" }).batch);
    expect(back).toEqual(rows.map((row) => Object.fromEntries(setup.fields.map((column) => [column.name, readBack(setup.reader, column.name, row[column.name])]))));
  });
});

/** What decoding gives for a value Sluice encoded. */
function readBack(reader: ProtoMessage, name: string, v: unknown): unknown {
  const field = reader.fields.find((f) => f.name === name)!;
  const wire = wireValue(field, v);
  if (wire === undefined) return field.defaultValue === undefined ? null : defaultValue(field);
  if (field.presence === "implicit" && isDefault(wire)) return null;
  if (typeof v === "bigint" || field.type.endsWith("64")) return field.type === "double" ? v : exact(BigInt(v as number | bigint));
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return [...v];
  return field.type === "float" ? Math.fround(v as number) : v;
}
