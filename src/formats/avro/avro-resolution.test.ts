import { describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import type { Fields } from "../../types/dtype.js";
import { parseAvroSchema } from "./avro-schema.js";
import type { AvroValuesOptions } from "./avro-values.js";
import { bytes, concat, decodeRows, double, failure, float, int, long, str } from "./test-support.js";

/** Records of `writer` read into `columns`, with an optional reader schema. */
function read(writer: object, records: Uint8Array[], columns: Fields, reader?: object, mode: AvroValuesOptions["mode"] = "FAILFAST") {
  return decodeRows(records, columns, {
    mode,
    writer: { framing: "plain", schema: parseAvroSchema(writer) },
    ...(reader === undefined ? {} : { readerSchema: parseAvroSchema(reader) }),
  }).rows;
}
const rec = (name: string, ...fields: object[]) => ({ type: "record", name, fields });
const f = (name: string, type: unknown, extra: object = {}) => ({ name, type, ...extra });

describe("schema resolution: fields", () => {
  it("a field the reader added takes the reader's default, of any type", () => {
    const writer = rec("R", f("id", "int"));
    const suit = { type: "enum", name: "Suit", symbols: ["A", "B"] };
    const reader = rec(
      "R",
      f("id", "int"),
      f("i", "int", { default: -5 }),
      f("l", "long", { default: 9007199254740991 }),
      f("d", "double", { default: 0.5 }),
      f("b", "boolean", { default: true }),
      f("s", "string", { default: "é" }),
      f("y", "bytes", { default: "\u00ff\u0001" }),
      f("e", suit, { default: "B" }),
      f("tus", { type: "long", logicalType: "timestamp-micros" }, { default: -1 }),
      f("day", { type: "int", logicalType: "date" }, { default: 1 }),
      f("n", ["null", "string"], { default: null }),
      f("later", ["null", "string"], { default: "a later branch" }),
    );
    const columns = [
      field("id", "int32"),
      field("i", "int32"),
      field("l", "int64"),
      field("d", "float64"),
      field("b", "boolean"),
      field("s", "string"),
      field("y", "binary"),
      field("e", "string"),
      field("tus", "timestamp"),
      field("day", "timestamp"),
      field("n", "string"),
      field("later", "string"),
    ];
    const row = { id: 1, i: -5, l: 9007199254740991n, d: 0.5, b: true, s: "é", y: [255, 1], e: "B", tus: "1969-12-31T23:59:59.999Z", day: "1970-01-02T00:00:00.000Z", n: null, later: "a later branch" };
    expect(read(writer, [int(1), int(1)], columns, reader)).toEqual([row, row]);
  });

  it("a field the writer has and the reader does not is skipped; one neither has is null when nullable", () => {
    const writer = rec("R", f("gone", "string"), f("id", "int"), f("also", { type: "map", values: "long" }));
    expect(read(writer, [concat(str("x"), int(3), long(0))], [field("id", "int32"), field("extra", "string")])).toEqual([{ id: 3, extra: null }]);
  });

  it("a renamed field is found by the reader's alias", () => {
    const writer = rec("R", f("old_name", "string"));
    const reader = rec("R", f("name", "string", { aliases: ["older", "old_name"] }));
    expect(read(writer, [str("n")], [field("name", "string", false)], reader)).toEqual([{ name: "n" }]);
  });

  it("a column named as the writer's field wins over another column's alias of it", () => {
    const writer = rec("R", f("a", "int"), f("b", "int"));
    const reader = rec("R", f("a", "int"), f("c", "int", { aliases: ["b"] }));
    expect(read(writer, [concat(int(1), int(2))], [field("a", "int32"), field("c", "int32")], reader)).toEqual([{ a: 1, c: 2 }]);
  });

  it("the top-level records may differ in name when the reader has an alias for the writer's", () => {
    const reader = { ...rec("Sale", f("id", "int")), aliases: ["com.acme.Order"] };
    expect(read({ ...rec("Order", f("id", "int")), namespace: "com.acme" }, [int(1)], [field("id", "int32")], reader)).toEqual([{ id: 1 }]);
  });

  it("a writer schema that is not a record reads into the one column", () => {
    expect(read({ type: "string" }, [str("a")], [field("value", "string")])).toEqual([{ value: "a" }]);
    expect(read(["null", "long"], [int(0), concat(int(1), long(5))], [field("v", "int64")])).toEqual([{ v: null }, { v: 5n }]);
  });
});

describe("schema resolution: promotions and unions", () => {
  it("promotes int to long and double, long to double, float to double, and bytes and strings both ways", () => {
    const writer = rec("R", f("a", "int"), f("b", "int"), f("c", "long"), f("d", "float"), f("e", "string"), f("g", "bytes"), f("h", "long"));
    const columns = [field("a", "int64"), field("b", "float64"), field("c", "float64"), field("d", "float64"), field("e", "binary"), field("g", "string"), field("h", "float64")];
    const record = concat(int(-7), int(3), long(2n ** 53n), float(0.5), str("hé"), bytes(0x68, 0x69), long(-(2n ** 63n)));
    expect(read(writer, [record], columns)).toEqual([{ a: -7n, b: 3, c: 2 ** 53, d: 0.5, e: [0x68, 0xc3, 0xa9], g: "hi", h: -(2 ** 63) }]);
  });

  it("reads [T, null] and [null, T] alike, and a reader's nullable union from a writer's plain type", () => {
    const writer = rec("R", f("a", ["string", "null"]), f("b", ["null", "string"]), f("c", "string"));
    const reader = rec("R", f("a", ["null", "string"]), f("b", ["string", "null"]), f("c", ["null", "string"]));
    const records = [concat(int(0), str("x"), int(0), str("z")), concat(int(1), int(1), str("y"), str("w"))];
    expect(read(writer, records, [field("a", "string"), field("b", "string"), field("c", "string")], reader)).toEqual([
      { a: "x", b: null, c: "z" },
      { a: null, b: "y", c: "w" },
    ]);
  });

  it("reads the numeric unions [int, long] and [float, double] into one column, as Spark", () => {
    const writer = rec("R", f("n", ["int", "long"]), f("x", ["null", "float", "double"]));
    const records = [concat(int(0), int(5), int(1), float(1.5)), concat(int(1), long(2n ** 60n), int(2), double(0.1))];
    expect(read(writer, records, [field("n", "int64"), field("x", "float64")])).toEqual([
      { n: 5n, x: 1.5 },
      { n: 2n ** 60n, x: 0.1 },
    ]);
  });

  it("bad records of a union: only the records holding a branch the column cannot read", () => {
    const writer = rec("R", f("x", ["null", "int", { type: "array", items: "int" }]));
    const records = [concat(int(1), int(4)), concat(int(2), long(0)), int(0)];
    expect(read(writer, records, [field("x", "int32")], undefined, "PERMISSIVE")).toEqual([{ x: 4 }, { x: null }, { x: null }]);
    expect(failure(() => read(writer, records.slice(1), [field("x", "int32")]))).toBe(
      'MalformedRecordError: record does not match the schema at record 0: field "x" holds branch 2 (array) of its union, which column "x" (int32) cannot read',
    );
  });
});

describe("schema resolution: enums", () => {
  const writer = rec("R", f("suit", { type: "enum", name: "Suit", symbols: ["SPADES", "HEARTS", "JOKER"] }));
  const records = [int(0), int(1), int(2)];

  it("a string column reads the writer's symbol", () => {
    expect(read(writer, records, [field("suit", "string")]).map((r) => r.suit)).toEqual(["SPADES", "HEARTS", "JOKER"]);
  });

  it("a symbol the reader's enum lacks becomes the reader's default", () => {
    const reader = rec("R", f("suit", { type: "enum", name: "Suit", symbols: ["UNKNOWN", "HEARTS", "SPADES"], default: "UNKNOWN" }));
    expect(read(writer, records, [field("suit", "string")], reader).map((r) => r.suit)).toEqual(["SPADES", "HEARTS", "UNKNOWN"]);
  });

  it("without a default it makes the record bad", () => {
    const reader = rec("R", f("suit", { type: "enum", name: "Suit", symbols: ["HEARTS", "SPADES"] }));
    expect(read(writer, records, [field("suit", "string")], reader, "PERMISSIVE").map((r) => r.suit)).toEqual(["SPADES", "HEARTS", null]);
    expect(failure(() => read(writer, records, [field("suit", "string")], reader))).toBe(
      'MalformedRecordError: record does not match the schema at record 2: field "suit" has the symbol "JOKER", which the reader\'s enum Suit lacks, and it has no default',
    );
  });

  it("an enum of another name needs an alias", () => {
    const reader = rec("R", f("suit", { type: "enum", name: "CardSuit", aliases: ["Suit"], symbols: ["SPADES", "HEARTS", "JOKER"] }));
    expect(read(writer, records.slice(0, 1), [field("suit", "string")], reader)).toEqual([{ suit: "SPADES" }]);
  });
});

describe("schema resolution: what cannot be resolved, every message", () => {
  const cases: [string, object, Fields, object | undefined, string][] = [
    ["a long into an int32 column", rec("R", f("a", "long")), [field("a", "int32")], undefined, 'column "a" (int32) cannot read the writer\'s field "a": a long, and Avro does not narrow a long to an int: declare the column as int64'],
    ["a string into a float64 column", rec("R", f("a", "string")), [field("a", "float64")], undefined, 'column "a" (float64) cannot read the writer\'s field "a": a string, and float64 reads an Avro int, long, float or double'],
    ["a double into an int64 column", rec("R", f("a", "double")), [field("a", "int64")], undefined, 'column "a" (int64) cannot read the writer\'s field "a": a double, and int64 reads an Avro int or long'],
    [
      "a nested record read as a column",
      rec("R", f("addr", rec("com.acme.Address", f("city", "string")))),
      [field("addr", "string")],
      undefined,
      'column "addr" (string) cannot read the writer\'s field "addr": a record com.acme.Address, and Sluice has no struct columns yet: leave the column out, and the field is skipped',
    ],
    ["an array read as a column", rec("R", f("tags", { type: "array", items: "string" })), [field("tags", "string")], undefined, 'column "tags" (string) cannot read the writer\'s field "tags": an array, and Sluice has no list columns yet: leave the column out, and the field is skipped'],
    ["a time of day as a timestamp", rec("R", f("t", { type: "long", logicalType: "time-micros" })), [field("t", "timestamp")], undefined, 'column "t" (timestamp) cannot read the writer\'s field "t": a long (time-micros), a time of day rather than an instant: declare the column as int64'],
    ["a fixed of another size", rec("R", f("h", { type: "fixed", name: "H", size: 4 })), [field("h", "binary")], rec("R", f("h", { type: "fixed", name: "H", size: 8 })), 'column "h" (binary) cannot read the writer\'s field "h": a fixed of 4 bytes, but the reader\'s fixed H has 8'],
    [
      "a union no branch of which reads",
      rec("R", f("a", ["null", "string", "boolean"])),
      [field("a", "int32")],
      undefined,
      'column "a" (int32) cannot read any branch of the writer\'s field "a", a union [null, string, boolean]: int32 reads an Avro int',
    ],
    [
      "a required column the writer lacks",
      rec("com.acme.R", f("a", "int")),
      [field("b", "int32", false)],
      undefined,
      'column "b" is not nullable, but the writer\'s record com.acme.R has no field "b" and the reader\'s Avro schema gives it no default; make the column nullable or give the field a default',
    ],
    [
      "a required column the writer lacks, with aliases",
      rec("R", f("a", "int")),
      [field("b", "int32", false)],
      rec("R", f("b", "int", { aliases: ["c", "d"] })),
      'column "b" is not nullable, but the writer\'s record R has no field "b" (nor "c", "d") and the reader\'s Avro schema gives it no default; make the column nullable or give the field a default',
    ],
    ["two columns for one field", rec("R", f("a", "int")), [field("b", "int32"), field("c", "int32")], rec("R", f("b", "int", { aliases: ["a"] }), f("c", "int", { aliases: ["a"] })), 'columns "b" and "c" would both read the writer\'s field "a"; remove the alias from one of them'],
    ["records of other names", rec("Order", f("a", "int")), [field("a", "int32")], rec("Sale", f("a", "int")), 'the writer\'s record Order and the reader\'s record Sale have different names, which Avro resolution refuses; add "Order" to the reader record\'s aliases'],
    [
      "enums of other names",
      rec("R", f("e", { type: "enum", name: "E", symbols: ["A"] })),
      [field("e", "string")],
      rec("R", f("e", { type: "enum", name: "F", symbols: ["A"] })),
      'the writer\'s enum E and the reader\'s enum F have different names, which Avro resolution refuses; add "E" to the reader enum\'s aliases',
    ],
    ["a reader schema of another type", rec("R", f("a", "int")), [field("a", "int32")], rec("R", f("a", "long")), 'column "a" is int32, but the reader\'s Avro schema declares it a long, which reads as int64'],
    ["a column twice", rec("R", f("a", "int")), [field("a", "int32"), field("a", "int64")], undefined, 'the Avro columns name "a" twice; column names must be distinct'],
    ["a window column", rec("R", f("a", "int")), [field("w", "window")], undefined, 'column "w" has type window, which cannot be read from Avro; declare it as one of int32, int64, float64, boolean, string, binary, timestamp'],
    ["a headers column", rec("R", f("a", "int")), [field("h", "headers")], undefined, 'column "h" has type headers, which cannot be read from Avro; declare it as one of int32, int64, float64, boolean, string, binary, timestamp'],
    ["a plain writer schema into two columns", { type: "string" }, [field("a", "string"), field("b", "string")], undefined, "the writer's Avro schema is a string, not a record: read it into exactly one column, not 2"],
    ["a plain reader schema for two columns", rec("R", f("a", "int")), [field("a", "int32"), field("b", "int32")], { type: "int" }, "the reader's Avro schema is an int, not a record: it reads into exactly one column, not 2"],
    [
      "a reader default outside the timestamp range",
      rec("R", f("a", "int")),
      [field("t", "timestamp")],
      rec("R", f("t", { type: "long", logicalType: "timestamp-millis" }, { default: 9e15 })),
      'the reader\'s default for column "t" is 9000000000000000 ms since the epoch, outside the ±8.64e15 ms that Sluice timestamps cover',
    ],
  ];
  it.each(cases)("%s", (_, writer, columns, reader, message) => {
    expect(failure(() => read(writer, [], columns, reader))).toBe(`AnalysisError: ${message}`);
  });
});
