import { beforeAll, describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { rowsToBatch } from "../../batch/rows.js";
import { AnalysisError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import type { ProtoMessage } from "./proto-descriptor.js";
import { parseProtoMessage } from "./proto-schema.js";
import { encodeProtobufValues } from "./protobuf-encode.js";
import type { ProtobufEncodeOptions } from "./protobuf-encode.js";
import { confluent, fixed32, float32, len, message, varint, zigzag } from "./test-wire.js";

const SHOP = `
syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
message Order {
  enum Status { STATUS_UNSPECIFIED = 0; PAID = 1; }
  int32 id = 1;
  string name = 2;
  double price = 3;
  google.protobuf.Timestamp placed = 4;
  optional int32 rank = 5;
  sint32 delta = 6;
  Status status = 7;
  bytes blob = 8;
  uint32 code = 9;
  sint64 big = 10;
  fixed32 f32 = 11;
  float ratio = 12;
  repeated int32 tags = 13;
  oneof contact { string email = 14; string phone = 15; }
}`;

let order: ProtoMessage;
beforeAll(async () => {
  order = await parseProtoMessage(SHOP, "Order");
});

/** Each row's message as a list of bytes. */
function encode(rows: Record<string, unknown>[], fields: Fields, options?: ProtobufEncodeOptions): number[][] {
  const { offsets, bytes } = encodeProtobufValues(rowsToBatch(rows, fields), order, options);
  return rows.map((_, i) => [...bytes.subarray(offsets[i]!, offsets[i + 1]!)]);
}

const FIELDS: Fields = [
  field("status", "string"),
  field("id", "int32"),
  field("name", "string"),
  field("price", "float64"),
  field("placed", "timestamp"),
  field("rank", "int32"),
  field("delta", "int32"),
  field("blob", "binary"),
];

describe("encodeProtobufValues", () => {
  it("writes each row's non-null values in field-number order; a null is an absent field", () => {
    const rows = [
      { status: "PAID", id: 150, name: "hi", price: null, placed: new Date(1500), rank: 3, delta: -1, blob: Uint8Array.of(1, 2) },
      { status: null, id: -1, name: null, price: 2.5, placed: new Date(-1), rank: null, delta: null, blob: null },
    ];
    expect(encode(rows, FIELDS)).toEqual([
      message(varint(1, 150), len(2, "hi"), len(4, message(varint(1, 1), varint(2, 500_000_000))), varint(5, 3), varint(6, zigzag(-1)), varint(7, 1), len(8, [1, 2])),
      // -1 as int32: sign-extended to ten bytes, as protobuf writes it; 1 ms before the epoch: second -1, 999 ms.
      message(varint(1, -1n), [0x19, ...new Uint8Array(new Float64Array([2.5]).buffer)], len(4, message(varint(1, -1n), varint(2, 999_000_000)))),
    ]);
  });

  it("leaves out the default values of proto3 fields without presence, but writes those of fields with presence", () => {
    const rows = [{ status: "STATUS_UNSPECIFIED", id: 0, name: "", price: 0, placed: new Date(0), rank: 0, delta: 0, blob: new Uint8Array(0) }];
    expect(encode(rows, FIELDS)).toEqual([message(len(4, []), varint(5, 0))]);
    // -0.0 has other bits than the default: it is written.
    expect(encode([{ price: -0 }], [field("price", "float64")])).toEqual([[0x19, 0, 0, 0, 0, 0, 0, 0, 0x80]]);
  });

  it("writes uint32 unsigned, sint64 zigzag, fixed32 and float in four bytes, enums from their numbers too", () => {
    const fields: Fields = [field("code", "int32"), field("big", "int64"), field("f32", "int32"), field("ratio", "float64"), field("status", "int32")];
    expect(encode([{ code: -1, big: -(2n ** 63n), f32: -2, ratio: 0.1, status: 5 }], fields)).toEqual([
      message(varint(7, 5), varint(9, 4294967295), varint(10, zigzag(-(2n ** 63n))), fixed32(11, -2), float32(12, 0.1)),
    ]);
    expect(encode([{ code: 4294967295 }], [field("code", "int64")])).toEqual([varint(9, 4294967295)]);
  });

  it("of two oneof members, writes the one in the later column, as Spark's builder keeps", () => {
    const fields: Fields = [field("phone", "string"), field("email", "string")];
    expect(encode([{ phone: "555", email: "a@b" }, { phone: "555", email: null }], fields)).toEqual([len(14, "a@b"), len(15, "555")]);
  });

  it("reads sliced columns (Arrow views at an offset) as their rows", () => {
    const fields: Fields = [field("id", "int32"), field("name", "string"), field("placed", "timestamp"), field("big", "int64"), field("ratio", "float64")];
    const rows = Array.from({ length: 12 }, (_, i) => ({ id: i % 3 === 0 ? null : i, name: `n${i}`, placed: new Date(i * 1000), big: -i, ratio: i / 2 }));
    const batch = rowsToBatch(rows, fields);
    const sliced = { ...batch, columns: batch.columns.map((c) => c.slice(5, 4)), numRows: 4 };
    const { offsets, bytes } = encodeProtobufValues(sliced, order);
    const parts = [0, 1, 2, 3].map((i) => [...bytes.subarray(offsets[i]!, offsets[i + 1]!)]);
    expect(parts).toEqual(encode(rows.slice(5, 9), fields));
  });

  it("puts the Confluent wire-format header before each message", () => {
    const rows = [{ id: 1 }, { id: null }];
    expect(encode(rows, [field("id", "int32")], { confluent: { schemaId: 42 } })).toEqual([confluent(42, [0], varint(1, 1)), confluent(42, [0], [])]);
    expect(encode(rows, [field("id", "int32")], { confluent: { schemaId: 7, messageIndexes: [1, 0] } })).toEqual([confluent(7, [1, 0], varint(1, 1)), confluent(7, [1, 0], [])]);
  });

  it("refuses columns the message lacks or cannot hold, columns of another type, and enum names the enum lacks", () => {
    expect(() => encode([], [field("nope", "int32")])).toThrow(/^column "nope" is not a field of the Protobuf message shop\.Order/);
    expect(() => encode([], [field("price", "int32")])).toThrow(
      new AnalysisError('column "price" is int32, but Protobuf field 3 (price) of shop.Order is double, written from float64'),
    );
    expect(() => encode([], [field("tags", "int32")])).toThrow(
      new AnalysisError('column "tags" cannot be written to Protobuf field 13 (tags) of shop.Order, which is repeated int32, and Sluice has no array column type yet'),
    );
    expect(() => encode([{ status: "LOST" }], [field("status", "string")])).toThrow(
      new AnalysisError('row 0: column "status" holds "LOST", which is not a value of the enum shop.Order.Status (STATUS_UNSPECIFIED, PAID)'),
    );
  });

  it("needs a column for every proto2 required field, and no null in it", async () => {
    const legacy = await parseProtoMessage('syntax = "proto2"; message M { required int32 id = 1; optional string note = 2; }', "M");
    const run = (rows: Record<string, unknown>[], fields: Fields) => encodeProtobufValues(rowsToBatch(rows, fields), legacy);
    expect(() => run([], [field("note", "string")])).toThrow(new AnalysisError("the Protobuf message M requires field 1 (id), which no column gives"));
    expect(() => run([{ id: 1 }, { id: null }], [field("id", "int32")])).toThrow(new AnalysisError('row 1: column "id" is null, but Protobuf field 1 (id) is required'));
    // proto2 writes zeros: every field has presence.
    const { bytes } = run([{ id: 0, note: "" }], [field("id", "int32"), field("note", "string")]);
    expect([...bytes]).toEqual(message(varint(1, 0), len(2, "")));
  });
});
