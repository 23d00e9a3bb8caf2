import { describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { rowsToBatch } from "../../batch/rows.js";
import { AnalysisError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import { parseProtoMessage } from "./proto-schema.js";
import { protoTextOf } from "./proto-text.js";
import { protoFields } from "./proto-types.js";
import { encodeProtobufValues } from "./protobuf-encode.js";
import { decodeProtobufValues } from "./protobuf-values.js";
import { plainRows } from "./test-wire.js";

const FIELDS: Fields = [
  field("user", "string"),
  field("price", "float64"),
  field("qty", "int32", false),
  field("total", "int64"),
  field("mobile", "boolean"),
  field("time", "timestamp"),
  field("raw", "binary"),
];

describe("protoTextOf: Sluice columns as a proto3 message", () => {
  it("numbers fields in column order; nullable scalars are optional", () => {
    expect(protoTextOf(FIELDS, "Click", { package: "acme.clicks" })).toBe(
      [
        'syntax = "proto3";',
        "",
        "package acme.clicks;",
        "",
        'import "google/protobuf/timestamp.proto";',
        "",
        "message Click {",
        "  optional string user = 1;",
        "  optional double price = 2;",
        "  int32 qty = 3;",
        "  optional int64 total = 4;",
        "  optional bool mobile = 5;",
        "  google.protobuf.Timestamp time = 6;",
        "  optional bytes raw = 7;",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("parses back to the same column types (proto3 has no required fields: all nullable), and rows survive the trip, nulls and zeros apart", async () => {
    const message = await parseProtoMessage(protoTextOf(FIELDS, "Click"), "Click");
    expect(protoFields(message)).toEqual(FIELDS.map((f) => ({ ...f, nullable: true })));
    const rows = [
      { user: "u1", price: 0, qty: 3, total: 0, mobile: false, time: new Date(5), raw: new Uint8Array(0) },
      { user: null, price: null, qty: 0, total: null, mobile: null, time: null, raw: null },
    ];
    const { offsets, bytes } = encodeProtobufValues(rowsToBatch(rows, FIELDS), message);
    const decoded = decodeProtobufValues(bytes, offsets, null, protoFields(message), { message, mode: "FAILFAST" });
    expect(plainRows(decoded.batch)).toEqual([
      { user: "u1", price: 0, qty: 3, total: 0, mobile: false, time: "1970-01-01T00:00:00.005Z", raw: [] },
      // qty is not optional: its 0 is proto3's default, which reads as null.
      { user: null, price: null, qty: null, total: null, mobile: null, time: null, raw: null },
    ]);
  });

  it("refuses names Protobuf cannot take and columns it has no type for", () => {
    expect(() => protoTextOf([field("a b", "string")], "M")).toThrow(
      new AnalysisError('column "a b" is not a Protobuf field name: rename it to letters, digits and _, not starting with a digit'),
    );
    expect(() => protoTextOf([], "1M")).toThrow(new AnalysisError('"1M" is not a Protobuf message name: letters, digits and _, not starting with a digit'));
    expect(() => protoTextOf([], "M", { package: "a..b" })).toThrow(new AnalysisError('"a..b" is not a Protobuf package name: identifiers separated by dots'));
    expect(() => protoTextOf([field("w", "window")], "M")).toThrow(
      new AnalysisError('column "w" has type window, which has no Protobuf field type here: select its parts (or drop it) before writing Protobuf'),
    );
  });
});
