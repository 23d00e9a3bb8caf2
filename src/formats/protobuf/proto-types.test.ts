import { describe, expect, it } from "vitest";
import { AnalysisError } from "../../errors/errors.js";
import { parseProtoMessage } from "./proto-schema.js";
import { protoFields } from "./proto-types.js";

const EVERY_TYPE = `
syntax = "proto3";
package t;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
message Row {
  enum Color { RED = 0; GREEN = 1; }
  message Inner { int32 x = 1; }
  int32 i32 = 1; sint32 s32 = 2; sfixed32 sf32 = 3; uint32 u32 = 4; fixed32 f32 = 5;
  int64 i64 = 6; sint64 s64 = 7; sfixed64 sf64 = 8; uint64 u64 = 9; fixed64 f64 = 10;
  float fl = 11; double db = 12; bool b = 13; string s = 14; bytes by = 15; Color color = 16;
  google.protobuf.Timestamp ts = 17;
  repeated int32 list = 18; map<string, int32> dict = 19; Inner inner = 20; google.protobuf.Duration took = 21;
}`;

const SCALARS = ["i32", "s32", "sf32", "u32", "f32", "i64", "s64", "sf64", "u64", "f64", "fl", "db", "b", "s", "by", "color", "ts"];

const typesOf = (fields: readonly { name: string; type: string }[]) => Object.fromEntries(fields.map((f) => [f.name, f.type]));

describe("Protobuf field types as column types (Spark's SchemaConverters)", () => {
  it("by default", async () => {
    const row = await parseProtoMessage(EVERY_TYPE, "Row");
    expect(typesOf(protoFields(row, {}, SCALARS))).toEqual({
      i32: "int32",
      s32: "int32",
      sf32: "int32",
      u32: "int32",
      f32: "int32",
      i64: "int64",
      s64: "int64",
      sf64: "int64",
      u64: "int64",
      f64: "int64",
      fl: "float64",
      db: "float64",
      b: "boolean",
      s: "string",
      by: "binary",
      color: "string",
      ts: "timestamp",
    });
  });

  it("enums.as.ints reads enums as int32; upcast.unsigned.ints reads uint32 and fixed32 as int64", async () => {
    const row = await parseProtoMessage(EVERY_TYPE, "Row");
    expect(typesOf(protoFields(row, { enumsAsInts: true, upcastUnsignedInts: true }, ["color", "u32", "f32", "i32"]))).toEqual({
      color: "int32",
      u32: "int64",
      f32: "int64",
      i32: "int32",
    });
  });

  it("columns are nullable, except proto2 required fields (as Spark's StructField nullability)", async () => {
    const m = await parseProtoMessage('syntax = "proto2"; message M { required int32 id = 1; optional string name = 2; }', "M");
    expect(protoFields(m)).toEqual([
      { name: "id", type: "int32", nullable: false },
      { name: "name", type: "string", nullable: true },
    ]);
  });

  it("refuses what Sluice has no column type for, naming the field and why", async () => {
    const row = await parseProtoMessage(EVERY_TYPE, "Row");
    const refusal = (names: string[], options = {}) => {
      try {
        protoFields(row, options, names);
      } catch (e) {
        expect(e).toBeInstanceOf(AnalysisError);
        return (e as Error).message;
      }
      return "no error";
    };
    const tail = ": leave it out of the columns read (unread fields are skipped)";
    expect(refusal(["list"])).toBe(`Protobuf field 18 (list) of t.Row is repeated int32, and Sluice has no array column type yet${tail}`);
    expect(refusal(["dict"])).toBe(`Protobuf field 19 (dict) of t.Row is a map field, and Sluice has no map column type yet${tail}`);
    expect(refusal(["inner"])).toBe(`Protobuf field 20 (inner) of t.Row is the message t.Row.Inner, and Sluice has no struct column type yet${tail}`);
    expect(refusal(["took"])).toBe(
      `Protobuf field 21 (took) of t.Row is the message google.protobuf.Duration, and Spark reads it as a day-time interval, a type Sluice does not have${tail}`,
    );
    expect(refusal(["u64"], { upcastUnsignedInts: true })).toBe(
      "Protobuf field 9 (u64) of t.Row is uint64, which upcast.unsigned.ints reads as Decimal(20, 0) in Spark, a type Sluice does not have; " +
        `read it without the option, as int64 (values from 2^63 wrap to negative, as in Spark)${tail}`,
    );
    expect(refusal([])).toBe("no error");
    expect(refusal(["nope"])).toBe(
      'column "nope" is not a field of the Protobuf message t.Row; its fields are i32, s32, sf32, u32, f32, i64, s64, sf64, u64, f64, fl, db, b, s, by, color, ts, list, dict, inner, took',
    );
  });

  it("proto2 groups are refused as nested messages are", async () => {
    const m = await parseProtoMessage('syntax = "proto2"; message M { optional group G = 1 { optional int32 a = 1; } }', "M");
    expect(() => protoFields(m)).toThrow(/^Protobuf field 1 \(g\) of M is the group M\.G, and Sluice has no struct column type yet/);
  });
});
