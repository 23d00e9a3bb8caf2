import { describe, expect, it } from "vitest";
import { binaryColumn, boolColumn, field, makeBatch, utf8FromStrings, validityFromBytes, windowColumn } from "../../batch/batch.js";
import { float64Column, int32Column, int64Column, timestampColumn } from "../../batch/numeric-columns.js";
import { OptionError } from "../../errors/errors.js";
import { avroSchemaOfFields } from "./avro-columns.js";
import { encodeAvroColumn, encodeAvroValues } from "./avro-encode.js";
import { parseAvroSchema } from "./avro-schema.js";
import { bool, bytes, concat, confluent, decodeRows, double, failure, int, long, str } from "./test-support.js";

const bitmap = (...valid: number[]) => validityFromBytes(Uint8Array.from(valid), valid.length);
const rowsOf = ({ offsets, bytes: b }: { offsets: Int32Array; bytes: Uint8Array }) =>
  Array.from({ length: offsets.length - 1 }, (_, i) => Array.from(b.subarray(offsets[i]!, offsets[i + 1]!)));

describe("encodeAvroValues", () => {
  const fields = [field("id", "int32", false), field("big", "int64"), field("price", "float64"), field("ok", "boolean", false), field("name", "string"), field("raw", "binary"), field("at", "timestamp")];
  const nulls = bitmap(1, 0);
  const batch = makeBatch(fields, [
    int32Column(Int32Array.of(-1, 64)),
    int64Column(BigInt64Array.of(2n ** 63n - 1n, 0n), nulls.bitmap, nulls.nullCount),
    float64Column(Float64Array.of(0.5, 0), nulls.bitmap, nulls.nullCount),
    boolColumn(Uint8Array.of(1, 0)),
    utf8FromStrings(["é", null]),
    binaryColumn(Int32Array.of(0, 2, 2), Uint8Array.of(0, 255), nulls.bitmap, nulls.nullCount),
    timestampColumn(Float64Array.of(-1, 0), nulls.bitmap, nulls.nullCount),
  ]);

  it("writes each row as one datum of avroSchemaOfFields(fields), byte for byte", () => {
    const u = (i: number) => int(i); // a union index
    expect(rowsOf(encodeAvroValues(batch))).toEqual([
      Array.from(concat(int(-1), u(1), long(2n ** 63n - 1n), u(1), double(0.5), bool(true), u(1), str("é"), u(1), bytes(0, 255), u(1), long(-1))),
      Array.from(concat(int(64), u(0), u(0), bool(false), u(0), u(0), u(0))),
    ]);
  });

  it("puts the Confluent header before each datum when given a schema id", () => {
    const plain = encodeAvroValues(batch);
    const framed = encodeAvroValues(batch, { schemaId: 258 });
    expect(rowsOf(framed)).toEqual(rowsOf(plain).map((r) => Array.from(confluent(258, Uint8Array.from(r)))));
    expect(Array.from(framed.bytes.subarray(0, 5))).toEqual([0, 0, 0, 1, 2]);
    expect(failure(() => encodeAvroValues(batch, { schemaId: -1 }))).toBe("OptionError: a Confluent schema id is a whole number from 0 to 2147483647, got -1");
    expect(() => encodeAvroValues(batch, { schemaId: 2 ** 31 })).toThrow(OptionError);
  });

  it("reads back as the same rows, int64 exact beyond 2^53, through the decoder and either framing", () => {
    const schema = parseAvroSchema(avroSchemaOfFields(fields));
    const expected = [
      { id: -1, big: 2n ** 63n - 1n, price: 0.5, ok: true, name: "é", raw: [0, 255], at: "1969-12-31T23:59:59.999Z" },
      { id: 64, big: null, price: null, ok: false, name: null, raw: null, at: null },
    ];
    const plain = encodeAvroValues(batch);
    expect(decodeRows(rowsOf(plain).map((r) => Uint8Array.from(r)), fields, { mode: "FAILFAST", writer: { framing: "plain", schema } }).rows).toEqual(expected);
    const framed = encodeAvroValues(batch, { schemaId: 5 });
    expect(decodeRows(rowsOf(framed).map((r) => Uint8Array.from(r)), fields, { mode: "FAILFAST", writer: { framing: "confluent", schemas: new Map([[5, schema]]) } }).rows).toEqual(expected);
  });

  it("writes a window as a record of its two bounds", () => {
    const windows = makeBatch([field("w", "window", false)], [windowColumn(Float64Array.of(0, 10_000), Float64Array.of(10_000, 20_000))]);
    expect(rowsOf(encodeAvroValues(windows))).toEqual([Array.from(concat(long(0), long(10_000))), Array.from(concat(long(10_000), long(20_000)))]);
  });

  it("encodes the rows of a sliced batch", () => {
    const sliced = makeBatch(
      fields,
      batch.columns.map((c) => c.slice(1, 1)),
      1,
    );
    expect(rowsOf(encodeAvroValues(sliced))).toEqual([rowsOf(encodeAvroValues(batch))[1]]);
  });

  it("gives an Arrow Binary column", () => {
    const column = encodeAvroColumn(batch);
    expect([String(column.type), column.length, column.nullCount]).toEqual(["Binary", 2, 0]);
  });

  it("refuses a column declared not nullable that holds nulls", () => {
    const holes = makeBatch([field("a", "int32", false)], [int32Column(Int32Array.of(1, 2), nulls.bitmap, nulls.nullCount)]);
    expect(failure(() => encodeAvroValues(holes))).toBe('AnalysisError: column "a" is declared not nullable but holds 1 null; its Avro type has no null branch: make the column nullable');
  });

  it("writes no rows as no bytes", () => {
    const empty = encodeAvroValues(makeBatch(fields, batch.columns.map((c) => c.slice(0, 0)), 0));
    expect([Array.from(empty.offsets), empty.bytes.length]).toEqual([[0], 0]);
  });
});
