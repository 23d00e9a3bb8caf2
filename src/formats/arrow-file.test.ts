import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { field } from "../batch/batch.js";
import { batchToRows } from "../batch/rows.js";
import { AnalysisError, SluiceError } from "../errors/errors.js";
import { decodeArrowFile } from "./arrow-file.js";

const FILE = "/data/out/part-00000-00000.arrow";

/** An Arrow IPC file of the given columns, one record batch per entry of `chunks`. */
function arrowFile(fields: arrow.Field[], chunks: arrow.Data[][]): Uint8Array {
  const schema = new arrow.Schema(fields);
  const batches = chunks.map((children) => new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(fields), length: children[0]!.length, nullCount: 0, children })));
  return arrow.tableToIPC(new arrow.Table(schema, batches), "file");
}

/** A nullable column field (Arrow JS fields are not nullable unless told). */
const nullable = (name: string, type: arrow.DataType) => new arrow.Field(name, type, true);
const data = <T extends arrow.DataType>(type: T, values: unknown[]) => arrow.vectorFromArray(values, type).data[0]!;
const T0 = Date.UTC(2026, 0, 1, 10);
const seconds = (...values: number[]) => arrow.makeData({ type: new arrow.TimestampSecond(), length: values.length, data: BigInt64Array.from(values, BigInt) });

describe("decodeArrowFile", () => {
  it("reads the expected fields by name, in their order, ignoring the file's other columns", () => {
    const bytes = arrowFile(
      [nullable("extra", new arrow.Utf8()), nullable("n", new arrow.Int64()), nullable("s", new arrow.Utf8())],
      [[data(new arrow.Utf8(), ["x", "y"]), data(new arrow.Int64(), [1n, null]), data(new arrow.Utf8(), ["a", null])]],
    );
    const batch = decodeArrowFile(bytes, [field("s", "string"), field("n", "int64")], FILE);
    expect(batch.fields).toEqual([field("s", "string"), field("n", "int64")]);
    expect(batchToRows(batch)).toEqual([
      { s: "a", n: 1 },
      { s: null, n: null },
    ]);
  });

  it("reads narrower integers, float32, other time units and zones, dictionary strings and several record batches as Sluice's types", () => {
    const micros = new arrow.TimestampMicrosecond("Europe/Paris");
    const window = new arrow.Struct([new arrow.Field("start", new arrow.TimestampSecond(), false), new arrow.Field("end", new arrow.TimestampSecond(), false)]);
    const dict = new arrow.Dictionary(new arrow.Utf8(), new arrow.Int8());
    const fields = [
      nullable("i", new arrow.Int16()),
      nullable("f", new arrow.Float32()),
      nullable("t", micros),
      nullable("s", dict),
      nullable("w", window),
    ];
    const names = data(dict, ["cat", null, "cat", "dog"]);
    const chunk = (k: number) => [
      data(new arrow.Int16(), [k, null]),
      data(new arrow.Float32(), [0.5, k]),
      arrow.makeData({ type: micros, length: 2, data: BigInt64Array.of(BigInt(T0 + k) * 1000n + 999n, 0n), nullBitmap: Uint8Array.of(0b01), nullCount: 1 }),
      // One dictionary for the whole file: the IPC file format has no replacement dictionaries.
      names.slice(2 * k, 2),
      arrow.makeData({
        type: window,
        length: 2,
        children: [seconds(T0 / 1000, 0), seconds(T0 / 1000 + 60, 0)],
        nullBitmap: Uint8Array.of(0b01),
        nullCount: 1,
      }),
    ];
    const batch = decodeArrowFile(arrowFile(fields, [chunk(0), chunk(1)]), [field("i", "int32"), field("f", "float64"), field("t", "timestamp"), field("s", "string"), field("w", "window")], FILE);
    expect(batch.columns.map((c) => String(c.type))).toEqual(["Int32", "Float64", "Timestamp<MILLISECOND>", "Utf8", "Struct<{start:Timestamp<MILLISECOND>, end:Timestamp<MILLISECOND>}>"]);
    const w = { start: new Date(T0), end: new Date(T0 + 60_000) };
    expect(batchToRows(batch)).toEqual([
      { i: 0, f: 0.5, t: new Date(T0), s: "cat", w },
      { i: null, f: 0, t: null, s: null, w: null },
      { i: 1, f: 0.5, t: new Date(T0 + 1), s: "cat", w },
      { i: null, f: 1, t: null, s: "dog", w: null },
    ]);
  });

  it("uses the file's buffers without a copy when its columns already have Sluice's types", () => {
    const values = data(new arrow.Float64(), [1.5, 2.5]);
    const bytes = arrowFile([nullable("x", new arrow.Float64())], [[values]]);
    const batch = decodeArrowFile(bytes, [field("x", "float64")], FILE);
    expect((batch.columns[0]!.values as Float64Array).buffer).toBe(bytes.buffer);
  });

  it("reads a column the file lacks as nulls when the field is nullable", () => {
    const bytes = arrowFile([nullable("n", new arrow.Int32())], [[data(new arrow.Int32(), [1, 2])]]);
    const batch = decodeArrowFile(bytes, [field("n", "int32"), field("added", "string"), field("w", "window"), field("b", "boolean")], FILE);
    expect(batchToRows(batch)).toEqual([
      { n: 1, added: null, w: null, b: null },
      { n: 2, added: null, w: null, b: null },
    ]);
  });

  it("names the file, the column and the fix when the file does not fit the schema", () => {
    const bytes = arrowFile(
      [nullable("s", new arrow.Utf8()), nullable("n", new arrow.Int64()), new arrow.Field("w", new arrow.Struct([nullable("start", new arrow.Utf8()), nullable("end", new arrow.Utf8())]))],
      [[data(new arrow.Utf8(), ["a"]), data(new arrow.Int64(), [null]), arrow.makeData({ type: new arrow.Struct([nullable("start", new arrow.Utf8()), nullable("end", new arrow.Utf8())]), length: 1, children: [data(new arrow.Utf8(), ["x"]), data(new arrow.Utf8(), ["y"])] })]],
    );
    const fail = (fields: Parameters<typeof decodeArrowFile>[1]) => () => decodeArrowFile(bytes, fields, FILE);
    expect(fail([field("s", "int64")])).toThrow(AnalysisError);
    expect(fail([field("s", "int64")])).toThrow(`Arrow IPC file ${FILE}: column "s" is Utf8 in the file, which does not read as int64; declare the field as the file's type or cast after reading`);
    expect(fail([field("n", "int32")])).toThrow(`Arrow IPC file ${FILE}: column "n" is Int64 in the file, which does not read as int32`);
    expect(fail([field("w", "window")])).toThrow(`column "w" is Struct<{start:Utf8, end:Utf8}> in the file, which does not read as window`);
    expect(fail([field("n", "int64", false)])).toThrow(`Arrow IPC file ${FILE}: column "n" holds 1 null, but the schema declares it not nullable; make the field nullable`);
    expect(fail([field("gone", "string", false)])).toThrow(
      `Arrow IPC file ${FILE} has no column "gone", which the schema declares not nullable (columns in the file: "s", "n", "w"); make the field nullable to read it as nulls`,
    );
  });

  it("names the file when it is not Arrow IPC or is cut short", () => {
    const good = arrowFile([nullable("n", new arrow.Int32())], [[data(new arrow.Int32(), [1, 2])]]);
    for (const bytes of [new TextEncoder().encode('{"n":1}\n'), good.subarray(0, good.length - 20)]) {
      const error = (() => {
        try {
          decodeArrowFile(bytes, [field("n", "int32")], FILE);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(SluiceError);
      expect((error as Error).message).toMatch(new RegExp(`^cannot read Arrow IPC file ${FILE}: .*; it is not an Arrow IPC file or it is truncated$`));
    }
  });
});
