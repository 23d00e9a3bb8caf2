import protobufjs from "protobufjs";
import "protobufjs/ext/descriptor.js";
import { describe, expect, it } from "vitest";
import { AnalysisError } from "../../errors/errors.js";
import { messageAt, messageNamed } from "./proto-descriptor.js";
import type { ProtoField } from "./proto-descriptor.js";
import { parseProtoMessage, parseProtoSchema, protoSchemaFromDescriptorSet } from "./proto-schema.js";

const ADS = `
syntax = "proto3";
package acme.ads;
import "google/protobuf/timestamp.proto";

message Event {
  enum Kind { KIND_UNSPECIFIED = 0; VIEW = 1; CLICK = 2; }
  message Geo { string country = 1; }
  string ad_id = 1;
  Kind kind = 2;
  optional int64 cost_micros = 3;
  google.protobuf.Timestamp ts = 4;
  repeated int32 slots = 5;
  map<string, int32> tag_counts = 6;
  Geo geo = 7;
  oneof target { string url = 8; bytes app = 9; }
}
message Batch { repeated Event events = 1; }
`;

/** A field as the descriptor has it, with the flags that are usually off left at their defaults. */
function field(name: string, number: number, type: ProtoField["type"], extra: Partial<ProtoField> = {}): ProtoField {
  return { name, number, type, label: "optional", map: false, packed: false, presence: "implicit", validateUtf8: false, ...extra };
}

const KIND = {
  fullName: "acme.ads.Event.Kind",
  values: [
    { name: "KIND_UNSPECIFIED", number: 0 },
    { name: "VIEW", number: 1 },
    { name: "CLICK", number: 2 },
  ],
  closed: false,
};

describe("parseProtoSchema: proto3", () => {
  it("gives the file's top-level messages, with nested ones, enums, presence and labels", async () => {
    const schema = await parseProtoSchema(ADS);
    expect(schema.messages.map((m) => m.fullName)).toEqual(["acme.ads.Event", "acme.ads.Batch"]);
    const event = schema.messages[0]!;
    expect(event.fields).toEqual([
      field("ad_id", 1, "string", { validateUtf8: true }),
      field("kind", 2, "enum", { typeName: "acme.ads.Event.Kind", enum: KIND }),
      field("cost_micros", 3, "int64", { presence: "explicit", oneof: "_cost_micros" }),
      field("ts", 4, "message", { typeName: "google.protobuf.Timestamp", presence: "explicit" }),
      field("slots", 5, "int32", { label: "repeated", packed: true }),
      field("tag_counts", 6, "message", { typeName: "acme.ads.Event.TagCountsEntry", label: "repeated", map: true }),
      field("geo", 7, "message", { typeName: "acme.ads.Event.Geo", presence: "explicit" }),
      field("url", 8, "string", { presence: "explicit", oneof: "target", validateUtf8: true }),
      field("app", 9, "bytes", { presence: "explicit", oneof: "target" }),
    ]);
    expect(event.nested.map((m) => m.fullName)).toEqual(["acme.ads.Event.Geo"]);
    expect(schema.messages[1]!.fields).toEqual([field("events", 1, "message", { typeName: "acme.ads.Event", label: "repeated" })]);
  });

  it("keeps field names as declared (snake_case), and is frozen plain data", async () => {
    const schema = await parseProtoSchema(ADS);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(Object.isFrozen(schema.messages[0]!.fields[0])).toBe(true);
  });

  it("reads a file without a package", async () => {
    const schema = await parseProtoSchema('syntax = "proto3"; message A { int32 x = 1; } message B { A a = 1; }');
    expect(schema.messages.map((m) => m.fullName)).toEqual(["A", "B"]);
    expect(schema.messages[1]!.fields[0]).toEqual(field("a", 1, "message", { typeName: "A", presence: "explicit" }));
  });
});

describe("parseProtoSchema: proto2", () => {
  const P2 = `
    syntax = "proto2";
    package legacy;
    enum Level { LOW = 1; HIGH = 2; }
    message Reading {
      required string sensor = 1;
      optional double value = 2 [default = 1.5];
      optional Level level = 3 [default = HIGH];
      repeated int32 raw = 4;
      repeated int32 packed_raw = 5 [packed = true];
      optional group Extra = 6 { optional int32 code = 1; }
      optional string note = 7 [default = "none"];
    }`;

  it("has explicit presence everywhere, required labels, defaults, closed enums, unpacked repeated fields and groups", async () => {
    const reading = await parseProtoMessage(P2, "Reading");
    const level = { fullName: "legacy.Level", values: [{ name: "LOW", number: 1 }, { name: "HIGH", number: 2 }], closed: true };
    expect(reading.fields).toEqual([
      field("sensor", 1, "string", { label: "required", presence: "explicit" }),
      field("value", 2, "double", { presence: "explicit", defaultValue: 1.5 }),
      field("level", 3, "enum", { typeName: "legacy.Level", enum: level, presence: "explicit", defaultValue: "HIGH" }),
      field("raw", 4, "int32", { label: "repeated" }),
      field("packed_raw", 5, "int32", { label: "repeated", packed: true }),
      field("extra", 6, "group", { typeName: "legacy.Reading.Extra", presence: "explicit" }),
      field("note", 7, "string", { presence: "explicit", defaultValue: "none" }),
    ]);
    expect(reading.nested.map((m) => m.fullName)).toEqual(["legacy.Reading.Extra"]);
  });
});

describe("imports", () => {
  it("take other files' text by import path (a registry's references), and only the file's own messages count", async () => {
    const common = 'syntax = "proto3"; package acme.common; message Money { int64 micros = 1; string currency = 2; }';
    const order = 'syntax = "proto3"; package acme.common; import "acme/common/money.proto"; message Order { acme.common.Money total = 1; }';
    const schema = await parseProtoSchema(order, { imports: { "acme/common/money.proto": common } });
    expect(schema.messages.map((m) => m.fullName)).toEqual(["acme.common.Order"]);
    expect(schema.messages[0]!.fields[0]!.typeName).toBe("acme.common.Money");
  });

  it("refuse a file that is neither given nor a well-known type, naming it", async () => {
    await expect(parseProtoSchema('syntax = "proto3"; import "acme/money.proto"; message A { int32 x = 1; }', { imports: { "other.proto": "" } })).rejects.toThrow(
      new AnalysisError(
        'the Protobuf schema imports "acme/money.proto", which is not a well-known type file (google/protobuf/...); pass its text in the imports option (given: other.proto)',
      ),
    );
  });
});

describe("bad schemas", () => {
  it("a syntax error or an unknown type is an AnalysisError that passes on the parser's words", async () => {
    await expect(parseProtoSchema('syntax = "proto3"; message A { int32 = 1; }')).rejects.toThrow(/^cannot parse the Protobuf schema: illegal name '='/);
    await expect(parseProtoSchema('syntax = "proto3"; message A { Nope x = 1; }')).rejects.toThrow(/^cannot resolve the Protobuf schema: no such Type or Enum 'Nope'/);
    await expect(parseProtoSchema("message A {")).rejects.toBeInstanceOf(AnalysisError);
  });
});

describe("message lookup", () => {
  it("by full name (a leading dot allowed), or by a simple name that is unique", async () => {
    const schema = await parseProtoSchema(ADS);
    expect(messageNamed(schema, "acme.ads.Event").fullName).toBe("acme.ads.Event");
    expect(messageNamed(schema, ".acme.ads.Event.Geo").fullName).toBe("acme.ads.Event.Geo");
    expect(messageNamed(schema, "Geo").fullName).toBe("acme.ads.Event.Geo");
  });

  it("refuses an ambiguous simple name and an unknown one, listing the candidates", async () => {
    const schema = await parseProtoSchema('syntax = "proto3"; package p; message A { message Item { int32 x = 1; } } message B { message Item { int32 y = 1; } }');
    expect(() => messageNamed(schema, "Item")).toThrow(new AnalysisError('Protobuf message name "Item" is ambiguous: p.A.Item, p.B.Item; give the full name'));
    expect(() => messageNamed(schema, "C")).toThrow(new AnalysisError('no Protobuf message named "C" in the schema; its messages are p.A, p.A.Item, p.B, p.B.Item'));
  });

  it("by Confluent message indexes: top-level position, then nested positions", async () => {
    const schema = await parseProtoSchema(ADS);
    expect(messageAt(schema, [0])?.fullName).toBe("acme.ads.Event");
    expect(messageAt(schema, [1])?.fullName).toBe("acme.ads.Batch");
    expect(messageAt(schema, [0, 0])?.fullName).toBe("acme.ads.Event.Geo");
    expect([messageAt(schema, [2]), messageAt(schema, [0, 1]), messageAt(schema, [1, 0])]).toEqual([undefined, undefined, undefined]);
  });
});

describe("protoSchemaFromDescriptorSet (Spark's descFilePath)", () => {
  /** What `protoc --descriptor_set_out` writes, made here by protobufjs from the same text. */
  function descriptorSet(text: string): Uint8Array {
    const root = protobufjs.parse(text, { keepCase: true }).root;
    root.addJSON(protobufjs.common.get("google/protobuf/timestamp.proto")!.nested!);
    root.resolveAll();
    const set = root.toDescriptor("proto3");
    return set.$type.encode(set).finish();
  }

  it("gives the same messages as the text", async () => {
    const fromSet = await protoSchemaFromDescriptorSet(descriptorSet(ADS));
    const fromText = await parseProtoSchema(ADS);
    expect(messageNamed(fromSet, "acme.ads.Event")).toEqual(messageNamed(fromText, "acme.ads.Event"));
    expect(messageNamed(fromSet, "acme.ads.Batch")).toEqual(messageNamed(fromText, "acme.ads.Batch"));
  });

  it("refuses bytes that are no descriptor set", async () => {
    await expect(protoSchemaFromDescriptorSet(Uint8Array.of(0x0a, 0x05, 1))).rejects.toThrow(/^cannot read the FileDescriptorSet: /);
  });
});
