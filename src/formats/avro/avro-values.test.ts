import { describe, expect, it } from "vitest";
import { field } from "../../batch/batch.js";
import { MalformedRecordError } from "../../errors/errors.js";
import type { Fields } from "../../types/dtype.js";
import type { ReadMode } from "../read-mode.js";
import { parseAvroSchema } from "./avro-schema.js";
import type { AvroSchema } from "./avro-schema-types.js";
import { decodeAvroValues, schemaIdsIn, type AvroValuesOptions } from "./avro-values.js";
import { bool, bytes, concat, confluent, decodeRows, double, failure, float, int, long, str, valueColumn } from "./test-support.js";

const order = parseAvroSchema({
  type: "record",
  name: "Order",
  namespace: "com.acme",
  fields: [
    { name: "id", type: "int" },
    { name: "price", type: ["null", "double"] },
    { name: "name", type: "string" },
  ],
});
const fields = [field("id", "int32", false), field("price", "float64"), field("name", "string")];
const plain = (schema: AvroSchema, mode: ReadMode = "FAILFAST", extra: Partial<AvroValuesOptions> = {}): AvroValuesOptions => ({
  mode,
  writer: { framing: "plain", schema },
  describeRecord: (i) => `topic t partition 0 offset ${100 + i}`,
  ...extra,
});
const good = (id: number, price: number | null, name: string) => ({ id, price, name });
const nullRow = { id: null, price: null, name: null };
const orderBytes = (id: number, price: number | null, name: string) => concat(int(id), price === null ? int(0) : concat(int(1), double(price)), str(name));

/** One of each kind of record; the comments give the input index. */
const records: (Uint8Array | null)[] = [
  orderBytes(1, 10.5, "ok"), // 0
  null, // 1: a null record
  orderBytes(2, 2.5, "cut").subarray(0, 7), // 2: truncated inside the double
  orderBytes(3, null, "after truncated"), // 3
  concat(orderBytes(4, null, "x"), [1, 2]), // 4: bytes after the last field
  concat(int(5), int(7)), // 5: a union index the union does not have
  new Uint8Array(0), // 6: empty
  concat(int(7), int(0), long(-3)), // 7: a negative string length
  orderBytes(8, -0.25, "last"), // 8
];
const MALFORMED = [2, 4, 5, 6, 7];

describe("decodeAvroValues: modes", () => {
  it("PERMISSIVE keeps every record in order: bad and null ones as rows of nulls, as Spark's from_avro", () => {
    const result = decodeRows(records, fields, plain(order, "PERMISSIVE"));
    expect(result.rows).toEqual([good(1, 10.5, "ok"), nullRow, nullRow, good(3, null, "after truncated"), nullRow, nullRow, nullRow, nullRow, good(8, -0.25, "last")]);
    expect([result.numMalformed, result.malformedRows, result.keptRows]).toEqual([5, MALFORMED, [0, 1, 2, 3, 4, 5, 6, 7, 8]]);
  });

  it("DROPMALFORMED keeps good and null records, and says which input rows survived and which were bad", () => {
    const result = decodeRows(records, fields, plain(order, "DROPMALFORMED"));
    expect(result.rows).toEqual([good(1, 10.5, "ok"), nullRow, good(3, null, "after truncated"), good(8, -0.25, "last")]);
    expect([result.numMalformed, result.malformedRows, result.keptRows]).toEqual([5, MALFORMED, [0, 1, 3, 8]]);
  });

  it("FAILFAST stops at the first bad record, named by describeRecord, or by its index without it", () => {
    expect(failure(() => decodeRows(records, fields, plain(order)))).toBe('MalformedRecordError: malformed Avro at topic t partition 0 offset 102: truncated: field "price" needs 3 more bytes');
    expect(failure(() => decodeRows(records, fields, { mode: "FAILFAST", writer: { framing: "plain", schema: order } }))).toBe(
      'MalformedRecordError: malformed Avro at record 2: truncated: field "price" needs 3 more bytes',
    );
    expect(decodeRows([records[0]!, null], fields, plain(order)).rows).toEqual([good(1, 10.5, "ok"), nullRow]);
  });

  it("the FAILFAST error is a MalformedRecordError without a file or line", () => {
    const { bytes: b, offsets, validity } = valueColumn([records[5]!]);
    let error: unknown;
    try {
      decodeAvroValues(b, offsets, validity, fields, plain(order));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MalformedRecordError);
    expect([(error as MalformedRecordError).file, (error as MalformedRecordError).line]).toEqual([undefined, undefined]);
  });

  it("a null record is a row of nulls in every mode, non-nullable columns included, whatever its slot holds", () => {
    for (const mode of ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"] as const) {
      const { bytes: b, offsets } = valueColumn([Uint8Array.of(0xff, 0xff), orderBytes(1, null, "a")]);
      const result = decodeAvroValues(b, offsets, Uint8Array.of(0, 1), fields, plain(order, mode));
      expect(decodeRows([null, orderBytes(1, null, "a")], fields, plain(order, mode)).rows).toEqual([nullRow, good(1, null, "a")]);
      expect([result.numMalformed, Array.from(result.keptRows)]).toEqual([0, [0, 1]]);
    }
  });

  it("reads records that start anywhere in a shared buffer, and refuses offsets that leave it", () => {
    const a = orderBytes(1, null, "a");
    const buffer = concat([9, 9, 9], a, a);
    const result = decodeAvroValues(buffer, Int32Array.of(3, 3 + a.length, 3 + 2 * a.length), null, fields, plain(order));
    expect(result.batch.numRows).toBe(2);
    expect(() => decodeAvroValues(buffer, Int32Array.of(3, 2), null, fields, plain(order))).toThrow(new RangeError("offsets[1] is 2, before offsets[0] (3)"));
    expect(() => decodeAvroValues(buffer, Int32Array.of(0, 99), null, fields, plain(order))).toThrow(new RangeError(`offsets[1] is 99, past the end of the ${buffer.length} bytes`));
    expect(() => decodeAvroValues(buffer, Int32Array.of(0, 1, 2), Uint8Array.of(1), fields, plain(order))).toThrow(new RangeError("validity has 1 entries for 2 records"));
  });

  it("decodes no records into an empty batch", () => {
    const result = decodeAvroValues(new Uint8Array(0), new Int32Array(0), null, fields, plain(order));
    expect([result.batch.numRows, result.batch.fields]).toEqual([0, fields]);
  });
});

const everyType = parseAvroSchema({
  type: "record",
  name: "Every",
  fields: [
    { name: "b", type: "boolean" },
    { name: "i", type: "int" },
    { name: "l", type: "long" },
    { name: "f", type: "float" },
    { name: "d", type: "double" },
    { name: "s", type: "string" },
    { name: "y", type: "bytes" },
    { name: "x", type: { type: "fixed", name: "X", size: 3 } },
    { name: "e", type: { type: "enum", name: "Suit", symbols: ["SPADES", "HEARTS"] } },
    { name: "u", type: { type: "string", logicalType: "uuid" } },
    { name: "tms", type: { type: "long", logicalType: "timestamp-millis" } },
    { name: "tus", type: { type: "long", logicalType: "timestamp-micros" } },
    { name: "tns", type: { type: "long", logicalType: "timestamp-nanos" } },
    { name: "lts", type: { type: "long", logicalType: "local-timestamp-micros" } },
    { name: "date", type: { type: "int", logicalType: "date" } },
    { name: "n", type: ["long", "null"] },
  ],
});
const everyFields: Fields = [
  field("b", "boolean"),
  field("i", "int32"),
  field("l", "int64"),
  field("f", "float64"),
  field("d", "float64"),
  field("s", "string"),
  field("y", "binary"),
  field("x", "binary"),
  field("e", "string"),
  field("u", "string"),
  field("tms", "timestamp"),
  field("tus", "timestamp"),
  field("tns", "timestamp"),
  field("lts", "timestamp"),
  field("date", "timestamp"),
  field("n", "int64"),
];

describe("decodeAvroValues: every type, exactly", () => {
  it("reads each type into its column", () => {
    const record = concat(
      bool(true),
      int(-2147483648),
      long(-(2n ** 63n)),
      float(1.1),
      double(-1e300),
      str("é中😀"),
      bytes(0, 255, 7),
      [1, 2, 3],
      int(1),
      str("6f1e3a52-93c9-4b3e-9a4c-2e6a1f0d7b11"),
      long(1714521600123),
      long(-1), // one microsecond before the epoch: floored to -1 ms
      long(1714521600123456789n),
      long(1714521600999999),
      int(-1),
      concat(int(1)),
    );
    expect(decodeRows([record], everyFields, plain(everyType)).rows).toEqual([
      {
        b: true,
        i: -2147483648,
        l: -(2n ** 63n),
        f: Math.fround(1.1),
        d: -1e300,
        s: "é中😀",
        y: [0, 255, 7],
        x: [1, 2, 3],
        e: "HEARTS",
        u: "6f1e3a52-93c9-4b3e-9a4c-2e6a1f0d7b11",
        tms: "2024-05-01T00:00:00.123Z",
        tus: "1969-12-31T23:59:59.999Z",
        tns: "2024-05-01T00:00:00.123Z",
        lts: "2024-05-01T00:00:00.999Z",
        date: "1969-12-31T00:00:00.000Z",
        n: null,
      },
    ]);
  });

  it("keeps int64 exact over the whole range, through the word pairs", () => {
    const schema = parseAvroSchema('"long"');
    const values = [0n, 1n, -1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n), 123456789012345678n];
    const rows = decodeRows(values.map(long), [field("v", "int64")], plain(schema)).rows;
    expect(rows.map((r) => r.v)).toEqual(values);
  });

  it("floors micro- and nanosecond timestamps toward negative infinity, as Spark's microsToMillis", () => {
    const micros = parseAvroSchema({ type: "long", logicalType: "timestamp-micros" });
    const nanos = parseAvroSchema({ type: "long", logicalType: "timestamp-nanos" });
    const column = [field("t", "timestamp")];
    expect(decodeRows([long(-1), long(-1000), long(-1001), long(999), long(1000)], column, plain(micros)).rows.map((r) => r.t)).toEqual([
      "1969-12-31T23:59:59.999Z",
      "1969-12-31T23:59:59.999Z",
      "1969-12-31T23:59:59.998Z",
      "1970-01-01T00:00:00.000Z",
      "1970-01-01T00:00:00.001Z",
    ]);
    expect(decodeRows([long(-1), long(-(2n ** 62n)), long(2n ** 62n)], column, plain(nanos)).rows.map((r) => r.t)).toEqual([
      "1969-12-31T23:59:59.999Z",
      "1823-11-12T00:06:21.572Z", // floor(-2^62 / 10^6) ms, exactly
      "2116-02-20T23:53:38.427Z",
    ]);
  });

  it("reads a plain long as epoch milliseconds, as Spark does", () => {
    expect(decodeRows([long(86_400_000)], [field("t", "timestamp")], plain(parseAvroSchema('"long"'))).rows).toEqual([{ t: "1970-01-02T00:00:00.000Z" }]);
  });

  it("skips every type the columns do not read, nested records, arrays and maps included, blocks with sizes too", () => {
    const schema = parseAvroSchema({
      type: "record",
      name: "R",
      fields: [
        { name: "tags", type: { type: "array", items: "string" } },
        { name: "a", type: "int" },
        { name: "attrs", type: { type: "map", values: { type: "array", items: "long" } } },
        { name: "inner", type: { type: "record", name: "Inner", fields: [{ name: "p", type: "double" }, { name: "q", type: "float" }, { name: "r", type: "boolean" }] } },
        { name: "list", type: ["null", { type: "record", name: "Node", fields: [{ name: "v", type: "long" }, { name: "next", type: ["null", "Node"] }] }] },
        { name: "fixed", type: { type: "array", items: { type: "fixed", name: "F", size: 2 } } },
        { name: "nulls", type: { type: "map", values: "null" } },
        { name: "z", type: "string" },
      ],
    });
    const record = concat(
      long(2), str("x"), str("y"), long(-1), long(2), str("z"), long(0), // tags: a block of 2, then a block of 1 with its size (2 bytes), then the end
      int(42),
      long(1), str("k"), long(1), long(5), long(0), long(0), // attrs: {k: [5]}
      double(1), float(2), bool(true), // inner: 13 bytes
      int(1), long(1), int(1), long(2), int(0), // list: 1 -> 2
      long(3), [1, 2, 3, 4, 5, 6], long(0), // fixed: three 2-byte items
      long(2), str("n1"), str("n2"), long(0), // nulls: two keys
      str("end"),
    );
    expect(decodeRows([record], [field("a", "int32"), field("z", "string")], plain(schema)).rows).toEqual([{ a: 42, z: "end" }]);
  });
});

describe("decodeAvroValues: every problem's message", () => {
  const one = (schema: unknown, record: Uint8Array, columns: Fields, extra: Partial<AvroValuesOptions> = {}) =>
    failure(() => decodeRows([record], columns, { mode: "FAILFAST", writer: { framing: "plain", schema: parseAvroSchema(schema as object) }, ...extra }));
  const rec = (...fs: [string, unknown][]) => ({ type: "record", name: "R", fields: fs.map(([name, type]) => ({ name, type })) });
  const cases: [string, unknown, Uint8Array, Fields, string][] = [
    ["a double cut short", rec(["p", "double"]), Uint8Array.of(1, 2, 3, 4, 5), [field("p", "float64")], 'malformed Avro at record 0: truncated: field "p" needs 3 more bytes'],
    ["a float one byte short", rec(["p", "float"]), Uint8Array.of(1, 2, 3), [field("p", "float64")], 'malformed Avro at record 0: truncated: field "p" needs 1 more byte'],
    ["a string cut short", rec(["s", "string"]), concat(long(5), [0x61, 0x62]), [field("s", "string")], 'malformed Avro at record 0: truncated: field "s" needs 3 more bytes'],
    ["a fixed cut short", rec(["x", { type: "fixed", name: "X", size: 4 }]), Uint8Array.of(1), [field("x", "binary")], 'malformed Avro at record 0: truncated: field "x" needs 3 more bytes'],
    ["a varint cut short", rec(["i", "int"]), Uint8Array.of(0x80), [field("i", "int32")], 'malformed Avro at record 0: truncated: the record ends inside a varint of field "i"'],
    ["a long cut short", rec(["l", "long"]), Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff), [field("l", "int64")], 'malformed Avro at record 0: truncated: the record ends inside a varint of field "l"'],
    ["an int varint of 6 bytes", rec(["i", "int"]), Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0x01), [field("i", "int32")], 'malformed Avro at record 0: field "i" has a varint longer than 5 bytes'],
    ["a long varint of 11 bytes", rec(["l", "long"]), concat(new Array(10).fill(0xff), [1]), [field("l", "int64")], 'malformed Avro at record 0: field "l" has a varint longer than 10 bytes'],
    ["a skipped varint of 11 bytes", rec(["l", "long"], ["i", "int"]), concat(new Array(10).fill(0xff), [1, 2]), [field("i", "int32")], 'malformed Avro at record 0: field "l" has a varint longer than 10 bytes'],
    ["a negative length", rec(["y", "bytes"]), long(-3), [field("y", "binary")], 'malformed Avro at record 0: field "y" has a negative length (-3)'],
    ["a union index past the branches", rec(["u", ["null", "int"]]), int(7), [field("u", "int32")], 'malformed Avro at record 0: bad union index 7 for field "u" (its union has 2 branches)'],
    ["a negative union index", rec(["u", ["null", "int"]]), int(-1), [field("u", "int32")], 'malformed Avro at record 0: bad union index -1 for field "u" (its union has 2 branches)'],
    ["an enum index past the symbols", rec(["e", { type: "enum", name: "E", symbols: ["A", "B"] }]), int(2), [field("e", "string")], 'malformed Avro at record 0: bad enum index 2 for field "e" (its enum has 2 symbols)'],
    ["a boolean that is neither 0 nor 1", rec(["b", "boolean"]), Uint8Array.of(2), [field("b", "boolean")], 'malformed Avro at record 0: field "b" has the boolean byte 0x02, where Avro writes 0 or 1'],
    ["a byte after the last field", rec(["i", "int"]), Uint8Array.of(2, 0), [field("i", "int32")], "malformed Avro at record 0: record has 1 byte after its last field"],
    ["an empty record", rec(["i", "int"]), new Uint8Array(0), [field("i", "int32")], 'malformed Avro at record 0: truncated: the record ends inside a varint of field "i"'],
    ["a skipped double cut short, after another", rec(["p", "double"], ["q", "double"], ["i", "int"]), new Uint8Array(11), [field("i", "int32")], 'malformed Avro at record 0: truncated: field "q" needs 5 more bytes'],
    ["a skipped array cut short", rec(["tags", { type: "array", items: "string" }]), concat(long(1), long(4), [0x61]), [], 'malformed Avro at record 0: truncated: field "tags" needs 3 more bytes'],
    ["a skipped block with a negative size", rec(["tags", { type: "array", items: "int" }]), concat(long(-1), long(-2)), [], 'malformed Avro at record 0: field "tags" has a negative length (-2)'],
    ["a skipped union index past the branches", rec(["u", ["null", "string"]]), int(2), [], 'malformed Avro at record 0: bad union index 2 for field "u" (its union has 2 branches)'],
    ["a skipped enum index past the symbols", rec(["e", { type: "enum", name: "E", symbols: ["A"] }]), int(1), [], 'malformed Avro at record 0: bad enum index 1 for field "e" (its enum has 1 symbols)'],
    ["a null in a column that is not nullable", rec(["i", ["null", "int"]]), int(0), [field("i", "int32", false)], 'record does not match the schema at record 0: field "i" is not nullable, got null'],
    [
      "a union branch the column cannot read",
      rec(["x", ["null", "int", "string"]]),
      concat(int(2), str("a")),
      [field("x", "int32")],
      'record does not match the schema at record 0: field "x" holds branch 2 (string) of its union, which column "x" (int32) cannot read',
    ],
    [
      "a timestamp beyond the Date range",
      rec(["t", { type: "long", logicalType: "timestamp-millis" }]),
      long(8.64e15 + 1),
      [field("t", "timestamp")],
      'record does not match the schema at record 0: field "t" holds 8640000000000001 ms since the epoch, outside the ±8.64e15 ms that Sluice timestamps cover',
    ],
    [
      "a date beyond the Date range",
      rec(["d", { type: "int", logicalType: "date" }]),
      int(-100_000_001),
      [field("d", "timestamp")],
      'record does not match the schema at record 0: field "d" holds the date -100000001 days from the epoch, outside the ±100,000,000 days that Sluice timestamps cover',
    ],
  ];
  it.each(cases)("%s", (_, schema, record, columns, message) => {
    expect(one(schema, record, columns)).toBe(`MalformedRecordError: ${message}`);
  });
});

describe("decodeAvroValues: the Confluent wire format", () => {
  const v1 = parseAvroSchema({ type: "record", name: "Order", fields: [{ name: "id", type: "int" }, { name: "name", type: "string" }] });
  // Version 2 reordered the fields, widened id to long and added a price.
  const v2 = parseAvroSchema({
    type: "record",
    name: "Order",
    fields: [
      { name: "price", type: ["null", "double"], default: null },
      { name: "name", type: "string" },
      { name: "id", type: "long" },
    ],
  });
  const schemas = new Map([
    [1, v1],
    [7, v2],
  ]);
  const columns = [field("id", "int64"), field("name", "string"), field("price", "float64")];
  const options = (mode: ReadMode): AvroValuesOptions => ({ mode, writer: { framing: "confluent", schemas } });
  const values = [
    confluent(1, concat(int(1), str("one"))), // 0
    confluent(7, concat(int(1), double(2.5), str("two"), long(2n ** 53n + 1n))), // 1
    null, // 2
    confluent(1, concat(int(3), str("three"))), // 3
    confluent(9, concat(int(4))), // 4: an id not given
    concat([1, 0, 0, 0, 1], int(5)), // 5: not the magic byte
    Uint8Array.of(0, 0, 0), // 6: shorter than the header
    confluent(7, concat(int(0), str("four"), long(4))), // 7
  ];

  it("decodes records of two writer schemas in one batch, each resolved against the same columns", () => {
    const result = decodeRows(values, columns, options("PERMISSIVE"));
    expect(result.rows).toEqual([
      { id: 1n, name: "one", price: null },
      { id: 2n ** 53n + 1n, name: "two", price: 2.5 },
      { id: null, name: null, price: null },
      { id: 3n, name: "three", price: null },
      { id: null, name: null, price: null },
      { id: null, name: null, price: null },
      { id: null, name: null, price: null },
      { id: 4n, name: "four", price: null },
    ]);
    expect([result.numMalformed, result.malformedRows]).toEqual([3, [4, 5, 6]]);
  });

  it("names what is wrong with a header", () => {
    const fail = (i: number) => failure(() => decodeRows([values[i]!], columns, options("FAILFAST")));
    expect(fail(4)).toBe("MalformedRecordError: malformed Avro at record 0: schema id 9 is not among the writer schemas given (ids 1, 7)");
    expect(fail(5)).toBe("MalformedRecordError: malformed Avro at record 0: the value starts with byte 0x01, not the Confluent wire format's magic byte 0x00");
    expect(fail(6)).toBe("MalformedRecordError: malformed Avro at record 0: the value is 3 bytes long, shorter than the Confluent wire format's 5-byte header");
    expect(failure(() => decodeRows([values[0]!], columns, { mode: "FAILFAST", writer: { framing: "confluent", schemas: new Map() } }))).toBe(
      "MalformedRecordError: malformed Avro at record 0: schema id 1 is not among the writer schemas given (none)",
    );
  });

  it("fails the call, naming the id, for a writer schema the columns cannot read", () => {
    const v3 = parseAvroSchema({ type: "record", name: "Order", fields: [{ name: "id", type: "string" }] });
    const run = () => decodeRows([confluent(3, str("x"))], columns, { mode: "PERMISSIVE", writer: { framing: "confluent", schemas: new Map([[3, v3]]) } });
    expect(failure(run)).toBe('AnalysisError: the writer schema with id 3 cannot be read: column "id" (int64) cannot read the writer\'s field "id": a string, and int64 reads an Avro int or long');
  });

  it("schemaIdsIn lists the ids to fetch, passing over null records and values that are not in the format", () => {
    const { bytes: b, offsets, validity } = valueColumn(values);
    expect([...schemaIdsIn(b, offsets, validity)]).toEqual([1, 7, 9]);
    expect([...schemaIdsIn(confluent(0x7fffffff, new Uint8Array(0)), Int32Array.of(0, 5), null)]).toEqual([0x7fffffff]);
  });
});
