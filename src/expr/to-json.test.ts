import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { col, lit, struct, to_json, unix_millis, window } from "../api/functions.js";
import { type Batch, field, int64Column, makeBatch, utf8FromStrings } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import type { Expr } from "./ast.js";
import { compileExpr, evaluate } from "./compile.js";
import { outputName, resolveType } from "./resolve.js";

/** The JSON text of each row of a `to_json(...)` column. */
function json(c: { expr: Expr }, batch: Batch): (string | null)[] {
  const data = evaluate(c.expr, batch);
  expect(String(data.type)).toBe("Utf8");
  return batchToRows(makeBatch([field("v", "string")], [data])).map((r) => r.v as string | null);
}

const fields: Fields = [
  field("s", "string"),
  field("i", "int32"),
  field("l", "int64"),
  field("x", "float64"),
  field("b", "boolean"),
  field("t", "timestamp"),
];

describe("to_json(struct(...))", () => {
  it("writes every type as Spark does, keys in field order", () => {
    const b = rowsToBatch(
      [
        { s: "campaign-1", i: 7, l: 1_767_225_600_000, x: 2.5, b: true, t: new Date("2026-01-01T12:00:00Z") },
        { s: "héllo €", i: -2147483648, l: -42, x: 1e7, b: false, t: new Date("2026-01-01T12:34:56.789Z") },
      ],
      fields,
    );
    expect(json(to_json(struct(col("s"), col("i"), col("l"), col("x"), col("b"), col("t"))), b)).toEqual([
      '{"s":"campaign-1","i":7,"l":1767225600000,"x":2.5,"b":true,"t":"2026-01-01T12:00:00.000Z"}',
      '{"s":"héllo €","i":-2147483648,"l":-42,"x":1.0E7,"b":false,"t":"2026-01-01T12:34:56.789Z"}',
    ]);
  });

  it("leaves null fields out, as Spark's ignoreNullFields; all fields null gives {} and the text itself is never null", () => {
    const b = rowsToBatch(
      [
        { s: null, i: 1, l: null, x: null, b: null, t: null },
        { s: "a", i: null, l: 2, x: null, b: null, t: null },
        { s: null, i: null, l: null, x: null, b: null, t: 0 },
        { s: null, i: null, l: null, x: null, b: null, t: null },
      ],
      fields,
    );
    const c = to_json(struct(col("s"), col("i"), col("l"), col("x"), col("b"), col("t")));
    expect(json(c, b)).toEqual(['{"i":1}', '{"s":"a","l":2}', '{"t":"1970-01-01T00:00:00.000Z"}', "{}"]);
    expect(compileExpr(c.expr, b.fields).type).toEqual({ type: "string", nullable: false });
  });

  it("escapes strings as Jackson does: quote, backslash and control characters, \\u00XX in upper case; slash and non-ASCII unchanged", () => {
    const b = rowsToBatch([{ s: 'say "hi"\\ now\n\t\r\b\f\u0001\u001f\u007f/é😀' }, { s: "" }], [field("s", "string")]);
    expect(json(to_json(struct(col("s"))), b)).toEqual(['{"s":"say \\"hi\\"\\\\ now\\n\\t\\r\\b\\f\\u0001\\u001F\u007f/é😀"}', '{"s":""}']);
  });

  it("escapes field names too", () => {
    const b = rowsToBatch([{ s: "v" }], [field("s", "string")]);
    expect(json(to_json(struct(col("s").alias('a"b\\c\n'))), b)).toEqual(['{"a\\"b\\\\c\\n":"v"}']);
  });

  it("prints doubles as Java's Double.toString and NaN / Infinity as strings", () => {
    const values = [0, -0, 1, -3, 0.1, 2.5, 1e7, 1.5e-4, 123456789.125, 1e21, 5e-324, NaN, Infinity, -Infinity];
    const b = rowsToBatch(
      values.map((x) => ({ x })),
      [field("x", "float64")],
    );
    expect(json(to_json(struct(col("x"))), b).map((s) => s!.slice(5, -1))).toEqual([
      "0.0",
      "-0.0",
      "1.0",
      "-3.0",
      "0.1",
      "2.5",
      "1.0E7",
      "1.5E-4",
      "1.23456789125E8",
      "1.0E21",
      "4.9E-324",
      '"NaN"',
      '"Infinity"',
      '"-Infinity"',
    ]);
  });

  it("prints integers in plain digits, around 10^8 and beyond 2^53 too", () => {
    const values = [0, -1, 9, 10, 99_999_999, 100_000_000, 100_000_001, -1_234_567_890_123, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 60];
    // Beyond 2^53 rows cannot hold the value as a number: build the int64 column itself.
    const b = makeBatch([field("l", "int64")], [int64Column(BigInt64Array.from(values, (v) => BigInt(v)))]);
    expect(json(to_json(struct(col("l"))), b)).toEqual([
      '{"l":0}',
      '{"l":-1}',
      '{"l":9}',
      '{"l":10}',
      '{"l":99999999}',
      '{"l":100000000}',
      '{"l":100000001}',
      '{"l":-1234567890123}',
      '{"l":9007199254740991}',
      '{"l":-9007199254740991}',
      '{"l":1152921504606846976}',
    ]);
  });

  it("prints timestamps in UTC with milliseconds and Z, before 1970 and across days, and signed years beyond four digits", () => {
    const b = rowsToBatch(
      [-1, 0, Date.parse("2026-01-01T23:59:59.999Z"), null, Date.parse("2026-01-02T00:00:00.001Z"), Date.parse("2024-02-29T08:05:03.040Z")].map((t) => ({ t })),
      [field("t", "timestamp")],
    );
    expect(json(to_json(struct(col("t"))), b)).toEqual([
      '{"t":"1969-12-31T23:59:59.999Z"}',
      '{"t":"1970-01-01T00:00:00.000Z"}',
      '{"t":"2026-01-01T23:59:59.999Z"}',
      "{}",
      '{"t":"2026-01-02T00:00:00.001Z"}',
      '{"t":"2024-02-29T08:05:03.040Z"}',
    ]);
    const far = rowsToBatch([{ t: Date.UTC(10000, 0, 1) }, { t: Date.UTC(-1, 11, 31, 23, 59, 59, 5) }, { t: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }], [field("t", "timestamp")]);
    expect(json(to_json(struct(col("t"))), far)).toEqual([
      '{"t":"+10000-01-01T00:00:00.000Z"}',
      '{"t":"-0001-12-31T23:59:59.005Z"}',
      '{"t":"9999-12-31T23:59:59.999Z"}',
    ]);
  });

  it("names fields as Spark's struct(): aliases and columns keep their names, other expressions are col<position>", () => {
    const b = rowsToBatch([{ s: "k", i: 3, t: 1000 }], [field("s", "string"), field("i", "int32"), field("t", "timestamp")]);
    const c = to_json(struct(col("s"), unix_millis(col("t")), col("i").plus(1), lit(true), col("i").alias("n"), "s"));
    expect(json(c, b)).toEqual(['{"s":"k","col2":1000,"col3":4,"col4":true,"n":3,"s":"k"}']);
    expect(outputName(c.expr)).toBe("to_json(struct(s, unix_millis(t), (i + 1), true, n, s))");
  });

  it("writes nested structs and window columns as nested objects", () => {
    const b = rowsToBatch(
      [
        { s: "a", i: 1, t: Date.parse("2026-01-01T12:00:07Z") },
        { s: null, i: null, t: null },
      ],
      [field("s", "string"), field("i", "int32"), field("t", "timestamp")],
    );
    const c = to_json(struct(col("s"), struct(col("i"), struct(col("s")).alias("deeper")).alias("inner"), struct(col("i")), window(col("t"), "10 seconds").alias("w")));
    expect(json(c, b)).toEqual([
      '{"s":"a","inner":{"i":1,"deeper":{"s":"a"}},"col3":{"i":1},"w":{"start":"2026-01-01T12:00:00.000Z","end":"2026-01-01T12:00:10.000Z"}}',
      '{"inner":{"deeper":{}},"col3":{}}',
    ]);
    expect(json(to_json(struct()), b)).toEqual(["{}", "{}"]);
  });

  it("reads window.start / window.end as timestamps and writes a whole window column as an object", () => {
    const w = makeBatch([field("window", "window"), field("n", "int64")], [
      evaluate(window(col("t"), "10 seconds").expr, rowsToBatch([{ t: Date.parse("2026-01-01T12:00:07Z") }, { t: null }], [field("t", "timestamp")])),
      evaluate(col("n").expr, rowsToBatch([{ n: 5 }, { n: 6 }], [field("n", "int64")])),
    ]);
    expect(json(to_json(struct(unix_millis(col("window.start")).alias("ws"), col("window").getField("end"), col("n"))), w)).toEqual([
      '{"ws":1767268800000,"end":"2026-01-01T12:00:10.000Z","n":5}',
      '{"n":6}',
    ]);
    expect(json(to_json(col("window")), w)).toEqual(['{"start":"2026-01-01T12:00:00.000Z","end":"2026-01-01T12:00:10.000Z"}', null]);
    expect(resolveType(to_json(col("window")).expr, w.fields)).toEqual({ type: "string", nullable: true });
  });

  it("escapes dictionary-encoded strings once per value and keeps null rows out", () => {
    const dictionary = arrow.makeVector(utf8FromStrings(["plain", 'q"uote']));
    const valid = Uint8Array.of(0b1011);
    const c = arrow.makeData({ type: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int8()), length: 4, data: Int8Array.of(1, 0, 0, 1), nullBitmap: valid, nullCount: 1, dictionary });
    const b = makeBatch([field("c", "string")], [c]);
    expect(json(to_json(struct(col("c"))), b)).toEqual(['{"c":"q\\"uote"}', '{"c":"plain"}', "{}", '{"c":"q\\"uote"}']);
  });

  it("writes the right rows of sliced columns", () => {
    const b = rowsToBatch(
      ["x", 'y"', null, "zz"].map((s, i) => ({ s, l: i * 100_000_000 })),
      [field("s", "string"), field("l", "int64")],
    );
    const sliced = makeBatch(b.fields, b.columns.map((d) => d.slice(1, 3)), 3);
    expect(json(to_json(struct(col("s"), col("l"))), sliced)).toEqual(['{"s":"y\\"","l":100000000}', '{"l":200000000}', '{"s":"zz","l":300000000}']);
  });

  it("matches JSON.stringify (with Jackson's upper-case \\u escapes) over many random rows", () => {
    let seed = 7;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = ['a', 'b', ' ', '"', "\\", "/", "\n", "\t", "\u0001", "\u001f", "é", "€", "😀", "Z"];
    const text = (): string => Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    const maybe = <T>(v: T): T | null => (random() < 0.2 ? null : v);
    const rows = Array.from({ length: 5000 }, () => ({
      s: maybe(text()),
      i: maybe(Math.floor(random() * 2 ** 32) - 2 ** 31),
      l: maybe(Math.floor((random() - 0.5) * 2 ** 53)),
      b: maybe(random() < 0.5),
      t: maybe(Math.floor(random() * 4e12)),
    }));
    const b = rowsToBatch(rows, [field("s", "string"), field("i", "int32"), field("l", "int64"), field("b", "boolean"), field("t", "timestamp")]);
    const expected = rows.map((r) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) if (v !== null) o[k] = k === "t" ? new Date(v as number).toISOString() : v;
      return JSON.stringify(o).replace(/\\u00([0-9a-f]{2})/g, (_, h: string) => `\\u00${h.toUpperCase()}`);
    });
    expect(json(to_json(struct(col("s"), col("i"), col("l"), col("b"), col("t"))), b)).toEqual(expected);
  });
});

describe("struct and to_json analysis errors", () => {
  const b = rowsToBatch([{ s: "a", i: 1 }], [field("s", "string"), field("i", "int32")]);

  it("a struct is only allowed inside to_json()", () => {
    const s = struct(col("s"), col("i")).expr;
    expect(() => evaluate(s, b)).toThrow(AnalysisError);
    expect(() => evaluate(s, b)).toThrow(/^struct\(s, i\) can only be used as the argument of to_json\(\).*no struct column type/);
    expect(() => evaluate({ kind: "alias", child: s, name: "x" }, b)).toThrow(AnalysisError);
    expect(() => compileExpr({ kind: "isNull", child: s, negated: false }, b.fields)).toThrow(/can only be used as the argument of to_json/);
    expect(() => evaluate({ kind: "call", fn: "concat", args: [s] }, b)).toThrow(/can only be used as the argument of to_json/);
  });

  it("to_json() needs a struct, a window or a headers column", () => {
    expect(() => evaluate(to_json(col("i")).expr, b)).toThrow(AnalysisError);
    expect(() => evaluate(to_json(col("s")).expr, b)).toThrow("to_json() needs a struct(...), a window or a headers column, but s is string");
  });

  it("a struct's fields are resolved: unknown columns and bad expressions are reported", () => {
    expect(() => evaluate(to_json(struct(col("nope"))).expr, b)).toThrow(/nope/);
    expect(() => evaluate(to_json(struct(struct(col("s").plus(1)))).expr, b)).toThrow(AnalysisError);
  });
});
