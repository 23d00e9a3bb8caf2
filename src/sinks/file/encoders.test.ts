import * as arrow from "apache-arrow";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { describe, expect, it } from "vitest";
import { field, makeBatch } from "../../batch/batch.js";
import { batchToRows, rowsToBatch } from "../../batch/rows.js";
import { decodeArrowFile } from "../../formats/arrow-file.js";
import { decodeParquetFile } from "../../formats/parquet-file.js";
import { at } from "../../testing/fixtures.js";
import type { Fields } from "../../types/dtype.js";
import { encodeArrowFile } from "./encode-arrow-file.js";
import { encodeJsonLines } from "./encode-json-lines.js";
import { encodeParquet } from "./encode-parquet.js";

/** Every Sluice column type, with nulls where a type can hold them. */
const FIELDS: Fields = [
  field("user", "string"),
  field("price", "float64"),
  field("qty", "int32"),
  field("id", "int64"),
  field("flag", "boolean"),
  field("time", "timestamp"),
  field("window", "window"),
];

const ROWS = [
  { user: "ann", price: 2.5, qty: 3, id: 9_007_199_254_740_991, flag: true, time: at("10:00", 1), window: { start: at("10:00"), end: at("10:01") } },
  { user: 'say "hi"\n', price: null, qty: null, id: -1, flag: null, time: null, window: null },
  { user: null, price: 1e7, qty: -2_147_483_648, id: null, flag: false, time: new Date(Date.UTC(2026, 0, 1, 10, 2, 3, 45)), window: { start: at("10:02"), end: at("10:03") } },
];

const sample = () => rowsToBatch(ROWS, FIELDS);

describe("JSON lines", () => {
  it("writes one object per row as Spark's JSON source does: null fields left out, Jackson's text, a newline after each", () => {
    expect(new TextDecoder().decode(encodeJsonLines(sample()))).toBe(
      '{"user":"ann","price":2.5,"qty":3,"id":9007199254740991,"flag":true,"time":"2026-01-01T10:00:01.000Z","window":{"start":"2026-01-01T10:00:00.000Z","end":"2026-01-01T10:01:00.000Z"}}\n' +
        '{"user":"say \\"hi\\"\\n","id":-1}\n' +
        '{"price":1.0E7,"qty":-2147483648,"flag":false,"time":"2026-01-01T10:02:03.045Z","window":{"start":"2026-01-01T10:02:00.000Z","end":"2026-01-01T10:03:00.000Z"}}\n',
    );
  });

  it("writes nothing for no rows and {} for a row of nulls; long rows are copied whole", () => {
    expect(encodeJsonLines(rowsToBatch([], FIELDS)).length).toBe(0);
    const long = "x".repeat(200);
    expect(new TextDecoder().decode(encodeJsonLines(rowsToBatch([{ user: null }, { user: long }], [field("user", "string")])))).toBe(`{}\n{"user":"${long}"}\n`);
  });
});

describe("Arrow IPC file", () => {
  it("is the IPC file format with Sluice's types, timestamps in milliseconds marked UTC", () => {
    const bytes = encodeArrowFile(sample());
    expect(new TextDecoder().decode(bytes.subarray(0, 6))).toBe("ARROW1");
    const table = arrow.tableFromIPC(bytes);
    expect(table.schema.fields.map((f) => `${f.name}: ${f.type} ${f.nullable ? "null" : "not null"}`)).toEqual([
      "user: Utf8 null",
      "price: Float64 null",
      "qty: Int32 null",
      "id: Int64 null",
      "flag: Bool null",
      "time: Timestamp<MILLISECOND, UTC> null",
      "window: Struct<{start:Timestamp<MILLISECOND, UTC>, end:Timestamp<MILLISECOND, UTC>}> null",
    ]);
    expect(table.toArray().map((r) => r.toJSON())).toEqual([
      { user: "ann", price: 2.5, qty: 3, id: 9_007_199_254_740_991n, flag: true, time: at("10:00", 1).getTime(), window: expect.anything() },
      { user: 'say "hi"\n', price: null, qty: null, id: -1n, flag: null, time: null, window: null },
      { user: null, price: 1e7, qty: -2_147_483_648, id: null, flag: false, time: Date.UTC(2026, 0, 1, 10, 2, 3, 45), window: expect.anything() },
    ]);
    const windows = table.getChild("window")!;
    expect([0, 2].map((i) => windows.get(i)!.toJSON())).toEqual([
      { start: at("10:00").getTime(), end: at("10:01").getTime() },
      { start: at("10:02").getTime(), end: at("10:03").getTime() },
    ]);
  });

  it("writes dictionary-encoded strings as plain Utf8, so every part file has one schema", () => {
    const dictionary = arrow.vectorFromArray(["b", "a", "b", null], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()));
    const batch = makeBatch([field("s", "string")], [dictionary.data[0]!]);
    const table = arrow.tableFromIPC(encodeArrowFile(batch));
    expect(String(table.schema.fields[0]!.type)).toBe("Utf8");
    expect(table.getChild("s")!.toArray()).toEqual(["b", "a", "b", null]);
  });
});

describe("Parquet", () => {
  /** hyparquet, an independent reader, sees the file. */
  const read = (bytes: Uint8Array) => {
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    return { metadata: parquetMetadata(file), rows: parquetReadObjects({ file }) };
  };

  it("is read back by another Parquet reader with exact types: UTC-adjusted millisecond timestamps, a window group, nulls", async () => {
    const { metadata, rows } = read(encodeParquet(sample()));
    expect(metadata.num_rows).toBe(3n);
    expect(metadata.created_by).toBe("sluice");
    expect(metadata.row_groups.map((g) => g.columns[0]!.meta_data!.codec)).toEqual(["SNAPPY"]);
    const timestamp = { type: "INT64", converted_type: "TIMESTAMP_MILLIS", logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" } };
    expect(metadata.schema.slice(1).map(({ name, type, repetition_type, converted_type, logical_type, num_children }) => ({ name, type, repetition_type, converted_type, logical_type, num_children }))).toEqual([
      { name: "user", type: "BYTE_ARRAY", repetition_type: "OPTIONAL", converted_type: "UTF8", logical_type: { type: "STRING" }, num_children: undefined },
      { name: "price", type: "DOUBLE", repetition_type: "OPTIONAL", converted_type: undefined, logical_type: undefined, num_children: undefined },
      { name: "qty", type: "INT32", repetition_type: "OPTIONAL", converted_type: undefined, logical_type: undefined, num_children: undefined },
      { name: "id", type: "INT64", repetition_type: "OPTIONAL", converted_type: undefined, logical_type: undefined, num_children: undefined },
      { name: "flag", type: "BOOLEAN", repetition_type: "OPTIONAL", converted_type: undefined, logical_type: undefined, num_children: undefined },
      { name: "time", ...timestamp, repetition_type: "OPTIONAL", num_children: undefined },
      { name: "window", type: undefined, repetition_type: "OPTIONAL", converted_type: undefined, logical_type: undefined, num_children: 2 },
      { name: "start", ...timestamp, repetition_type: "REQUIRED", num_children: undefined },
      { name: "end", ...timestamp, repetition_type: "REQUIRED", num_children: undefined },
    ]);
    expect(await rows).toEqual([
      { user: "ann", price: 2.5, qty: 3, id: 9_007_199_254_740_991n, flag: true, time: at("10:00", 1), window: { start: at("10:00"), end: at("10:01") } },
      // hyparquet reads a null group as undefined.
      { user: 'say "hi"\n', price: null, qty: null, id: -1n, flag: null, time: null, window: undefined },
      { user: null, price: 1e7, qty: -2_147_483_648, id: null, flag: false, time: new Date(Date.UTC(2026, 0, 1, 10, 2, 3, 45)), window: { start: at("10:02"), end: at("10:03") } },
    ]);
  });

  it("marks columns declared not nullable as REQUIRED and writes an empty batch as a file with the schema and no rows", async () => {
    const batch = rowsToBatch([], [field("k", "string", false), field("n", "int64", false)]);
    const { metadata, rows } = read(encodeParquet(batch));
    expect(metadata.num_rows).toBe(0n);
    expect(metadata.schema.slice(1).map((e) => `${e.name} ${e.type} ${e.repetition_type}`)).toEqual(["k BYTE_ARRAY REQUIRED", "n INT64 REQUIRED"]);
    expect(await rows).toEqual([]);
  });
});

describe("decoders read back what the encoders wrote", () => {
  it.each([
    ["Parquet", encodeParquet, decodeParquetFile],
    ["Arrow IPC", encodeArrowFile, decodeArrowFile],
  ] as const)("%s: every type, exact values, canonical column types", (_format, encode, decode) => {
    const batch = decode(encode(sample()), FIELDS, "part-00000-00000");
    expect(batch.columns.map((c) => String(c.type))).toEqual(["Utf8", "Float64", "Int32", "Int64", "Bool", "Timestamp<MILLISECOND>", "Struct<{start:Timestamp<MILLISECOND>, end:Timestamp<MILLISECOND>}>"]);
    expect(batchToRows(batch)).toEqual(ROWS);
  });
});
