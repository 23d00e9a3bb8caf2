import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { field } from "../batch/batch.js";
import { batchToRows } from "../batch/rows.js";
import { AnalysisError, NumericRangeError, SluiceError } from "../errors/errors.js";
import { decodeParquetFile } from "./parquet-file.js";
import { parquetWasm } from "./parquet-wasm.js";

const FILE = "/data/out/part-00000-00000.parquet";
const T0 = Date.UTC(2026, 0, 1, 10);

/** A Parquet file written by parquet-wasm from Arrow columns, `rowsPerGroup` rows per row group. */
function parquetFile(fields: arrow.Field[], children: arrow.Data[], rowsPerGroup = 1024): Uint8Array {
  const schema = new arrow.Schema(fields);
  const batch = new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(fields), length: children[0]!.length, nullCount: 0, children }));
  const pw = parquetWasm();
  const properties = new pw.WriterPropertiesBuilder().setMaxRowGroupSize(rowsPerGroup).build();
  return pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(new arrow.Table([batch]), "stream")), properties);
}

/** A nullable column field (Arrow JS fields are not nullable unless told). */
const nullable = (name: string, type: arrow.DataType) => new arrow.Field(name, type, true);
const data = <T extends arrow.DataType>(type: T, values: unknown[]) => arrow.vectorFromArray(values, type).data[0]!;

describe("decodeParquetFile", () => {
  it("reads the expected fields by name across row groups, ignoring the file's other columns", () => {
    const bytes = parquetFile(
      [nullable("extra", new arrow.Float64()), nullable("n", new arrow.Int64()), nullable("s", new arrow.Utf8()), nullable("b", new arrow.Bool())],
      [data(new arrow.Float64(), [1, 2, 3]), data(new arrow.Int64(), [1n, null, 9_007_199_254_740_993n]), data(new arrow.Utf8(), ["a", null, "ccc"]), data(new arrow.Bool(), [true, false, null])],
      2,
    );
    const batch = decodeParquetFile(bytes, [field("s", "string"), field("n", "int64"), field("b", "boolean")], FILE);
    expect(batch.columns.map((c) => String(c.type))).toEqual(["Utf8", "Int64", "Bool"]);
    expect((batch.columns[1]!.values as BigInt64Array)[2]).toBe(9_007_199_254_740_993n);
    // 2^53 + 1 stays exact in the column; rows, which carry numbers as doubles, refuse to round it.
    expect(() => batchToRows(batch)).toThrow(NumericRangeError);
    expect(batchToRows({ ...batch, numRows: 2, columns: batch.columns.map((c) => c.slice(0, 2)) })).toEqual([
      { s: "a", n: 1, b: true },
      { s: null, n: null, b: false },
    ]);
  });

  it("reads timestamps of any unit, UTC-adjusted or not, as milliseconds, and a group of two timestamps as a window", () => {
    const micros = new arrow.TimestampMicrosecond();
    const millisUtc = new arrow.TimestampMillisecond("UTC");
    const window = new arrow.Struct([new arrow.Field("start", millisUtc, false), new arrow.Field("end", millisUtc, false)]);
    const ms = (...values: number[]) => arrow.makeData({ type: millisUtc, length: values.length, data: BigInt64Array.from(values, BigInt) });
    const bytes = parquetFile(
      [nullable("t", micros), nullable("w", window), nullable("i", new arrow.Int16()), nullable("f", new arrow.Float32())],
      [
        arrow.makeData({ type: micros, length: 2, data: BigInt64Array.of(BigInt(T0) * 1000n + 1999n, 0n), nullBitmap: Uint8Array.of(0b01), nullCount: 1 }),
        arrow.makeData({ type: window, length: 2, children: [ms(T0, 0), ms(T0 + 60_000, 0)], nullBitmap: Uint8Array.of(0b01), nullCount: 1 }),
        data(new arrow.Int16(), [-7, 300]),
        data(new arrow.Float32(), [0.25, null]),
      ],
    );
    const batch = decodeParquetFile(bytes, [field("t", "timestamp"), field("w", "window"), field("i", "int32"), field("f", "float64")], FILE);
    expect(batchToRows(batch)).toEqual([
      { t: new Date(T0 + 1), w: { start: new Date(T0), end: new Date(T0 + 60_000) }, i: -7, f: 0.25 },
      { t: null, w: null, i: 300, f: null },
    ]);
  });

  it("reads a column the file lacks as nulls when the field is nullable", () => {
    const bytes = parquetFile([nullable("n", new arrow.Int32())], [data(new arrow.Int32(), [1, 2])]);
    expect(batchToRows(decodeParquetFile(bytes, [field("added", "timestamp"), field("n", "int32")], FILE))).toEqual([
      { added: null, n: 1 },
      { added: null, n: 2 },
    ]);
    expect(decodeParquetFile(bytes, [field("added", "string")], FILE).numRows).toBe(2);
  });

  it("checks the file's schema against the fields before decoding, naming the file, the column and the fix", () => {
    const bytes = parquetFile([nullable("s", new arrow.Utf8()), nullable("n", new arrow.Int64())], [data(new arrow.Utf8(), ["a"]), data(new arrow.Int64(), [null])]);
    const fail = (fields: Parameters<typeof decodeParquetFile>[1]) => () => decodeParquetFile(bytes, fields, FILE);
    expect(fail([field("s", "float64")])).toThrow(AnalysisError);
    expect(fail([field("s", "float64")])).toThrow(`Parquet file ${FILE}: column "s" is Utf8 in the file, which does not read as float64; declare the field as the file's type or cast after reading`);
    expect(fail([field("n", "int64", false)])).toThrow(`Parquet file ${FILE}: column "n" holds 1 null, but the schema declares it not nullable; make the field nullable`);
    expect(fail([field("gone", "int32", false)])).toThrow(`Parquet file ${FILE} has no column "gone", which the schema declares not nullable (columns in the file: "s", "n")`);
  });

  it("names the file when it is not Parquet or is cut short", () => {
    const good = parquetFile([nullable("n", new arrow.Int32())], [data(new arrow.Int32(), [1, 2])]);
    for (const bytes of [new TextEncoder().encode('{"n":1}\n'), good.subarray(0, good.length - 10), new Uint8Array(0)]) {
      const error = (() => {
        try {
          decodeParquetFile(bytes, [field("n", "int32")], FILE);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(SluiceError);
      expect((error as Error).message).toMatch(new RegExp(`^cannot read Parquet file ${FILE}: .+; it is not a Parquet file or it is truncated$`));
    }
  });
});
