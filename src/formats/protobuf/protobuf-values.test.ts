import { beforeAll, describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { AnalysisError, MalformedRecordError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import type { ProtoMessage } from "./proto-descriptor.js";
import { parseProtoMessage } from "./proto-schema.js";
import { protoFields } from "./proto-types.js";
import { decodeProtobufValues } from "./protobuf-values.js";
import type { ProtobufValuesOptions } from "./protobuf-values.js";
import { fixed32, fixed64, float32, float64, group, len, message, plainRows, rawTag, valuesColumn, varint, zigzag } from "./test-wire.js";

const SHOP = `
syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
message Order {
  enum Status { STATUS_UNSPECIFIED = 0; PAID = 1; SHIPPED = 2; }
  message Inner { int32 a = 1; }
  int32 id = 1;
  double price = 2;
  string name = 3;
  bytes blob = 4;
  int64 qty = 5;
  bool gift = 6;
  Status status = 7;
  google.protobuf.Timestamp placed = 8;
  optional int32 rank = 9;
  sint64 delta = 10;
  uint32 code = 11;
  repeated int32 tags = 12;
  fixed64 f64 = 13;
  sfixed32 sf32 = 14;
  float ratio = 15;
  oneof contact { string email = 16; string phone = 17; }
  Inner inner = 18;
  map<string, int32> counts = 19;
  sint32 small = 20;
}`;

let order: ProtoMessage;
beforeAll(async () => {
  order = await parseProtoMessage(SHOP, "Order");
});

type Records = readonly (readonly number[] | null)[];

function decode(records: Records, fields: Fields, options: Partial<ProtobufValuesOptions> = {}) {
  const c = valuesColumn(records);
  const result = decodeProtobufValues(c.bytes, c.offsets, c.validity, fields, {
    message: order,
    mode: "FAILFAST",
    describeRecord: (i) => `topic t partition 0 offset ${100 + i}`,
    ...options,
  });
  return { rows: plainRows(result.batch), numMalformed: result.numMalformed, malformedRows: [...result.malformedRows], keptRows: [...result.keptRows] };
}

/** The FAILFAST message for one record, or "no error". */
function failure(record: readonly number[], fields: Fields, options: Partial<ProtobufValuesOptions> = {}): string {
  try {
    decode([record], fields, options);
  } catch (e) {
    expect(e).toBeInstanceOf(MalformedRecordError);
    return (e as Error).message;
  }
  return "no error";
}

const basic = (): Fields => [field("id", "int32"), field("price", "float64"), field("name", "string")];

describe("decodeProtobufValues: values", () => {
  it("reads every scalar type into its column", () => {
    const fields = protoFields(order, {}, ["id", "price", "name", "blob", "qty", "gift", "status", "placed", "rank", "delta", "code", "f64", "sf32", "ratio", "small"]);
    const record = message(
      varint(1, -7),
      float64(2, 10.5),
      len(3, "café"),
      len(4, [0, 255, 7]),
      varint(5, 9007199254740993n),
      varint(6, 1),
      varint(7, 2),
      len(8, message(varint(1, 1714521600), varint(2, 123_456_789))),
      varint(9, 0),
      varint(10, zigzag(-3)),
      varint(11, 4294967295),
      fixed64(13, -2n),
      fixed32(14, -9),
      float32(15, 0.25),
      varint(20, zigzag(-2147483648)),
    );
    expect(decode([record], fields).rows).toEqual([
      {
        id: -7,
        price: 10.5,
        name: "café",
        blob: [0, 255, 7],
        qty: 9007199254740993n,
        gift: true,
        status: "SHIPPED",
        placed: "2024-05-01T00:00:00.123Z",
        rank: 0,
        delta: -3,
        code: -1,
        f64: -2,
        sf32: -9,
        ratio: 0.25,
        small: -2147483648,
      },
    ]);
  });

  it("int64 varints keep all 64 bits without rounding; an int32 field takes the low 32 bits, as protobuf-java", () => {
    const fields = [field("qty", "int64"), field("id", "int32")];
    const records = [message(varint(5, -(2n ** 63n)), varint(1, 2n ** 32n + 5n)), message(varint(5, 2n ** 63n - 1n), varint(1, -1))];
    expect(decode(records, fields).rows).toEqual([
      { qty: -(2n ** 63n), id: 5 },
      { qty: 2n ** 63n - 1n, id: -1 },
    ]);
  });

  it("upcast.unsigned.ints reads uint32 as a non-negative int64; enums.as.ints reads enum numbers", () => {
    const record = message(varint(11, 4294967295), varint(7, 1));
    expect(decode([record], [field("code", "int64"), field("status", "int32")], { upcastUnsignedInts: true, enumsAsInts: true }).rows).toEqual([{ code: 4294967295, status: 1 }]);
  });

  it("a number an open (proto3) enum lacks reads as protobuf-java names it", () => {
    expect(decode([message(varint(7, 9))], [field("status", "string")]).rows).toEqual([{ status: "UNKNOWN_ENUM_VALUE_Status_9" }]);
  });

  it("the last occurrence of a field wins; two occurrences of a Timestamp merge, as Protobuf's message fields do", () => {
    const record = message(varint(1, 1), len(3, "first"), len(8, varint(1, 60)), varint(1, 2), len(3, "second"), len(8, varint(2, 5_000_000)));
    expect(decode([record], [field("id", "int32"), field("name", "string"), field("placed", "timestamp")]).rows).toEqual([
      { id: 2, name: "second", placed: "1970-01-01T00:01:00.005Z" },
    ]);
  });

  it("a Timestamp before 1970 floors to the millisecond, as Spark's microseconds do; an empty one is the epoch", () => {
    const records = [message(len(8, message(varint(1, -1), varint(2, 999_999_999)))), message(len(8, message(varint(1, -1), varint(2, 1_500_000)))), message(len(8, []))];
    expect(decode(records, [field("placed", "timestamp")]).rows).toEqual([
      { placed: "1969-12-31T23:59:59.999Z" },
      { placed: "1969-12-31T23:59:59.001Z" },
      { placed: "1970-01-01T00:00:00.000Z" },
    ]);
  });

  it("setting one member of a oneof clears the other, as protobuf-java does", () => {
    const fields = [field("email", "string"), field("phone", "string")];
    expect(decode([message(len(16, "a@b.c"), len(17, "555")), message(len(17, "555"), len(16, "a@b.c"))], fields).rows).toEqual([
      { email: null, phone: "555" },
      { email: "a@b.c", phone: null },
    ]);
  });
});

describe("decodeProtobufValues: presence, as Spark's from_protobuf", () => {
  const fields = (): Fields => protoFields(order, {}, ["id", "price", "name", "blob", "gift", "status", "placed", "rank", "email"]);
  const nulls = { id: null, price: null, name: null, blob: null, gift: null, status: null, placed: null, rank: null, email: null };

  it("a proto3 field without presence reads as null when absent, and when written with its default value (protobuf-java does not count it set)", () => {
    const zeros = message(varint(1, 0), float64(2, 0), len(3, ""), len(4, []), varint(6, 0), varint(7, 0));
    expect(decode([[], zeros], fields()).rows).toEqual([nulls, nulls]);
  });

  it("fields with presence (optional, oneof members, messages) read their value when written, zero included", () => {
    const record = message(varint(9, 0), len(16, ""), len(8, []));
    expect(decode([record], fields()).rows).toEqual([{ ...nulls, rank: 0, email: "", placed: "1970-01-01T00:00:00.000Z" }]);
  });

  it("-0.0 is a value, not the default (protobuf-java compares the bits)", () => {
    expect(decode([message(float64(2, -0))], [field("price", "float64")]).rows).toEqual([{ price: -0 }]);
  });

  it("emit.default.values reads fields without presence as their zero when absent; fields with presence stay null", () => {
    expect(decode([[], message(varint(1, 0))], fields(), { emitDefaultValues: true }).rows).toEqual([
      { id: 0, price: 0, name: "", blob: [], gift: false, status: "STATUS_UNSPECIFIED", placed: null, rank: null, email: null },
      { id: 0, price: 0, name: "", blob: [], gift: false, status: "STATUS_UNSPECIFIED", placed: null, rank: null, email: null },
    ]);
  });

  it("proto2: absent fields are null unless they declare a default; a missing required field is a bad record", async () => {
    const legacy = await parseProtoMessage(
      `syntax = "proto2";
       enum Level { LOW = 1; HIGH = 2; }
       message Reading {
         required string sensor = 1;
         optional double value = 2 [default = 1.5];
         optional Level level = 3 [default = HIGH];
         optional int32 plain = 4;
         optional string note = 5 [default = "none"];
         optional int64 big = 6 [default = -5];
         optional bool on = 7 [default = true];
         required int32 unread = 8;
       }`,
      "Reading",
    );
    const fields = protoFields(legacy, {}, ["sensor", "value", "level", "plain", "note", "big", "on"]);
    const run = (records: Records, mode: ProtobufValuesOptions["mode"] = "PERMISSIVE") => decode(records, fields, { message: legacy, mode });
    expect(run([message(len(1, "s1"), varint(8, 0)), message(len(1, "s2"), varint(3, 1), varint(4, 0), varint(7, 0), varint(8, 0))]).rows).toEqual([
      { sensor: "s1", value: 1.5, level: "HIGH", plain: null, note: "none", big: -5, on: true },
      { sensor: "s2", value: 1.5, level: "LOW", plain: 0, note: "none", big: -5, on: false },
    ]);
    // A number a closed enum lacks is kept as an unknown field by protobuf-java: the field reads as absent.
    expect(run([message(len(1, "s3"), varint(3, 7), varint(8, 0))]).rows[0]!.level).toBe("HIGH");
    expect(() => run([message(len(1, "s4"))], "FAILFAST")).toThrow(
      new MalformedRecordError("Protobuf record does not match the schema at topic t partition 0 offset 100: required field 8 (unread) is missing", undefined, undefined),
    );
    expect(() => run([message(varint(8, 1))], "FAILFAST")).toThrow(/: required field 1 \(sensor\) is missing$/);
  });

  it("proto2 strings need not be UTF-8; proto3 strings must be", async () => {
    const legacy = await parseProtoMessage('syntax = "proto2"; message M { optional string s = 1; }', "M");
    const bad = message(len(1, [0x61, 0xff]));
    const rows = decode([bad], [field("s", "string")], { message: legacy }).rows;
    expect(rows).toEqual([{ s: "a\ufffd" }]);
    expect(failure(message(len(3, [0x61, 0xc0, 0x80])), [field("name", "string")])).toBe(
      "Protobuf record does not match the schema at topic t partition 0 offset 100: field 3 (name) is not valid UTF-8",
    );
  });

  it("a non-nullable column that reads as null makes the record bad", () => {
    expect(failure(message(varint(1, 0)), [field("id", "int32", false)])).toBe(
      'Protobuf record does not match the schema at topic t partition 0 offset 100: field 1 (id) reads as null, but column "id" is not nullable ' +
        "(proto3 does not write a default value: emitDefaultValues reads it as such)",
    );
    expect(decode([message(varint(1, 0))], [field("id", "int32", false)], { emitDefaultValues: true }).rows).toEqual([{ id: 0 }]);
  });
});

describe("decodeProtobufValues: fields not read are skipped", () => {
  it("unknown fields of every wire type, groups, packed and unpacked repeated fields, nested messages and maps", () => {
    const record = message(
      varint(99, 5),
      fixed64(98, 1n),
      len(97, "unknown"),
      fixed32(96, 3),
      group(95, varint(1, 1), group(2, len(3, "deep"))),
      len(12, [1, 2, 3]), // tags, packed
      varint(12, 4), // tags, unpacked
      varint(12, 5),
      len(18, varint(1, 42)), // inner
      len(19, message(len(1, "k"), varint(2, 1))), // counts
      varint(1, 11),
      varint(536870911, 1), // the largest field number
    );
    expect(decode([record], basic()).rows).toEqual([{ id: 11, price: null, name: null }]);
  });

  it("but repeated fields, nested messages and maps cannot be columns", () => {
    expect(() => decode([], [field("tags", "int32")])).toThrow(
      new AnalysisError("Protobuf field 12 (tags) of shop.Order is repeated int32, and Sluice has no array column type yet: leave it out of the columns read (unread fields are skipped)"),
    );
    expect(() => decode([], [field("inner", "string")])).toThrow(/^Protobuf field 18 \(inner\) of shop\.Order is the message shop\.Order\.Inner, and Sluice has no struct/);
    expect(() => decode([], [field("counts", "string")])).toThrow(/^Protobuf field 19 \(counts\) of shop\.Order is a map field/);
  });
});

describe("decodeProtobufValues: bad records", () => {
  const cases: [string, number[], string][] = [
    ["a truncated varint", [...rawTag(1, 0), 0x80, 0x80], "malformed Protobuf at topic t partition 0 offset 100: truncated varint in field 1 (id)"],
    ["a truncated tag", [0x88], "malformed Protobuf at topic t partition 0 offset 100: truncated varint in a field tag at byte 0 of the record"],
    ["a varint of 11 bytes", [0x08, ...new Array(10).fill(0xff), 0x01], "malformed Protobuf at topic t partition 0 offset 100: varint longer than 10 bytes in field 1 (id)"],
    ["a wrong wire type", varint(3, 1), "Protobuf record does not match the schema at topic t partition 0 offset 100: field 3 (name) is wire type 0, expected 2"],
    ["a length past the end", [...rawTag(4, 2), 90, 1, 2], "malformed Protobuf at topic t partition 0 offset 100: length 90 of field 4 (blob) runs past the record's end (2 byte(s) left)"],
    ["a truncated double", [...rawTag(2, 1), 0, 0, 0], "malformed Protobuf at topic t partition 0 offset 100: truncated double in field 2 (price)"],
    ["a truncated unknown fixed32", [...rawTag(50, 5), 0], "malformed Protobuf at topic t partition 0 offset 100: truncated fixed32 in field 50"],
    ["wire type 7", rawTag(5, 7), "malformed Protobuf at topic t partition 0 offset 100: invalid wire type 7 in field 5 (qty)"],
    ["field number 0", [0x00, 0x01], "malformed Protobuf at topic t partition 0 offset 100: field number 0, which no field has at byte 1 of the record"],
    ["an end of group without its start", rawTag(30, 4), "malformed Protobuf at topic t partition 0 offset 100: end of group 30 without its start"],
    ["an unclosed group", [...rawTag(30, 3), ...varint(1, 1)], "malformed Protobuf at topic t partition 0 offset 100: the group of field 30 is not closed before the record's end"],
    ["a group closed by another", [...rawTag(30, 3), ...rawTag(31, 4)], "malformed Protobuf at topic t partition 0 offset 100: end of group 31 inside the group of field 30"],
    [
      "a Timestamp out of range",
      len(8, varint(1, 10n ** 13n)),
      "Protobuf record does not match the schema at topic t partition 0 offset 100: field 8 (placed) is 10000000000000 s and 0 ns, outside the timestamp range (±8.64e15 ms, JavaScript's Date range)",
    ],
    [
      "a Timestamp field of the wrong wire type",
      len(8, len(1, "x")),
      "Protobuf record does not match the schema at topic t partition 0 offset 100: field 1 (seconds) of field 8 (placed) is wire type 2, expected 0",
    ],
  ];
  const fields = (): Fields => [...basic(), field("blob", "binary"), field("qty", "int64"), field("placed", "timestamp")];

  it.each(cases)("FAILFAST names the record and the problem: %s", (_, record, expected) => {
    expect(failure(record, fields())).toBe(expected);
  });

  it("a record is never read past its end: a truncated one does not swallow the next", () => {
    const records = [message(varint(1, 1)), [...rawTag(3, 2), 5, 0x61], message(varint(1, 3), len(3, "ok"))];
    expect(decode(records, basic(), { mode: "PERMISSIVE" }).rows).toEqual([
      { id: 1, price: null, name: null },
      { id: null, price: null, name: null },
      { id: 3, price: null, name: "ok" },
    ]);
  });

  const records: Records = [
    message(varint(1, 1), len(3, "one")), // 0
    null, // 1: a null record
    [...rawTag(1, 0), 0xff], // 2: truncated
    message(varint(1, 3), float64(2, 2.5)), // 3
    varint(3, 4), // 4: wrong wire type
    [], // 5: an empty message: every field absent
  ];

  it("PERMISSIVE keeps a null row for a bad record (Spark's from_protobuf), with its bytes in the corrupt-record column", () => {
    const result = decode(records, [...basic(), field("_corrupt", "binary")], { mode: "PERMISSIVE", columnNameOfCorruptRecord: "_corrupt" });
    expect(result.rows).toEqual([
      { id: 1, price: null, name: "one", _corrupt: null },
      { id: null, price: null, name: null, _corrupt: null },
      { id: null, price: null, name: null, _corrupt: [0x08, 0xff] },
      { id: 3, price: 2.5, name: null, _corrupt: null },
      { id: null, price: null, name: null, _corrupt: [0x18, 0x04] },
      { id: null, price: null, name: null, _corrupt: null },
    ]);
    expect([result.numMalformed, result.malformedRows, result.keptRows]).toEqual([2, [2, 4], [0, 1, 2, 3, 4, 5]]);
  });

  it("DROPMALFORMED drops bad records and says which input rows survived", () => {
    const result = decode(records, basic(), { mode: "DROPMALFORMED" });
    expect(result.rows).toEqual([
      { id: 1, price: null, name: "one" },
      { id: null, price: null, name: null },
      { id: 3, price: 2.5, name: null },
      { id: null, price: null, name: null },
    ]);
    expect([result.numMalformed, result.malformedRows, result.keptRows]).toEqual([2, [2, 4], [0, 1, 3, 5]]);
  });

  it("FAILFAST stops at the first bad record; without describeRecord it is named by its index", () => {
    const c = valuesColumn(records);
    expect(() => decodeProtobufValues(c.bytes, c.offsets, c.validity, basic(), { message: order, mode: "FAILFAST" })).toThrow(
      new MalformedRecordError("malformed Protobuf at record 2: truncated varint in field 1 (id)", undefined, undefined),
    );
  });

  it("null records are all-null rows, whatever bytes their slot holds, in every mode", () => {
    for (const mode of ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"] as const) {
      const c = valuesColumn([null, message(varint(1, 5)), null], [0xff, 0xff]);
      const result = decodeProtobufValues(c.bytes, c.offsets, c.validity, basic(), { message: order, mode });
      expect(plainRows(result.batch)).toEqual([
        { id: null, price: null, name: null },
        { id: 5, price: null, name: null },
        { id: null, price: null, name: null },
      ]);
      expect([result.numMalformed, [...result.keptRows]]).toEqual([0, [0, 1, 2]]);
    }
  });
});

describe("decodeProtobufValues: columns and input checked up front", () => {
  it("refuses a column the message lacks, a column of another type, a repeated name and a bad corrupt-record column", () => {
    expect(() => decode([], [field("nope", "string")])).toThrow(/^column "nope" is not a field of the Protobuf message shop\.Order; its fields are id, price, name,/);
    expect(() => decode([], [field("price", "int32")])).toThrow(
      new AnalysisError('column "price" is int32, but Protobuf field 2 (price) of shop.Order is double, read as float64: declare the column as float64'),
    );
    expect(() => decode([], [field("id", "int32"), field("id", "int32")])).toThrow(new AnalysisError('the columns name "id" twice; column names must be distinct'));
    expect(() => decode([], [field("id", "int32"), field("_c", "string")], { columnNameOfCorruptRecord: "_c" })).toThrow(
      new AnalysisError('the corrupt-record column "_c" must be a nullable binary column (a record\'s bytes), but it is a string'),
    );
  });

  it("refuses offsets that leave the bytes or go backwards, and short validity", () => {
    const bytes = new Uint8Array(4);
    const fields = basic();
    const options = { message: order, mode: "FAILFAST" } as const;
    expect(() => decodeProtobufValues(bytes, Int32Array.of(0, 5), null, fields, options)).toThrow(new RangeError("offsets[1] is 5, past the end of the 4 bytes"));
    expect(() => decodeProtobufValues(bytes, Int32Array.of(2, 1), null, fields, options)).toThrow(new RangeError("offsets[1] is 1, before offsets[0] (2)"));
    expect(() => decodeProtobufValues(bytes, Int32Array.of(-1, 1), null, fields, options)).toThrow(new RangeError("offsets[0] is -1, before the start of the bytes"));
    expect(() => decodeProtobufValues(bytes, Int32Array.of(0, 1, 2), Uint8Array.of(1), fields, options)).toThrow(new RangeError("validity has 1 entries for 2 records"));
    expect(decodeProtobufValues(bytes, new Int32Array(0), null, fields, options).batch.numRows).toBe(0);
  });
});
