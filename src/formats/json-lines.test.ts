import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { field } from "../batch/batch.js";
import type { Fields } from "../types/dtype.js";
import { decodeJsonLines } from "./json-lines.js";
import type { DecodeOptions } from "./json-lines.js";
import { batchRows, EVERY_TYPE } from "./test-rows.js";

const PERMISSIVE: DecodeOptions = { mode: "PERMISSIVE", columnNameOfCorruptRecord: "_corrupt_record" };
const FAILFAST: DecodeOptions = { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" };

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../../fixtures/json/${name}`, import.meta.url)));
const utf8 = (text: string) => new TextEncoder().encode(text);

function decodeRows(bytes: Uint8Array, fields: Fields, options: DecodeOptions = FAILFAST) {
  const result = decodeJsonLines(bytes, fields, options);
  return { rows: batchRows(result.batch), numMalformed: result.numMalformed, numLines: result.numLines };
}

describe("decodeJsonLines: types", () => {
  const fields = EVERY_TYPE;

  it("decodes every type, keeps non-string JSON as text in string fields, and nulls null or missing fields", () => {
    const { rows, numMalformed, numLines } = decodeRows(fixture("types.jsonl"), fields);
    expect(rows).toEqual([
      { s: "hello", f: 1.5, i: 42, l: 9007199254740993n, b: true, t: "2024-05-01T12:00:00.000Z" },
      { s: "", f: -0.0005, i: -2147483648, l: -9223372036854775808n, b: false, t: "2024-05-01T10:00:00.123Z" },
      { s: "123", f: 1000, i: 2147483647, l: 9223372036854775807n, b: null, t: "2024-05-01T12:00:00.000Z" },
      { s: "true", f: 0, i: 0, l: 0n, b: null, t: "2024-05-01T12:00:00.123Z" },
      { s: '{"a":[1, 2]}', f: 12345678901234567890, i: 0, l: -1n, b: true, t: "2024-02-29T00:00:00.000Z" },
      { s: null, f: null, i: null, l: null, b: null, t: null },
      { s: null, f: null, i: null, l: null, b: null, t: null },
    ]);
    expect([numMalformed, numLines]).toEqual([0, 7]);
  });

  it("builds the Arrow types of the schema, nullable where declared", () => {
    const { batch } = decodeJsonLines(fixture("types.jsonl"), fields, FAILFAST);
    expect(batch.columns.map((c) => String(c.type))).toEqual(["Utf8", "Float64", "Int32", "Int64", "Bool", "Timestamp<MILLISECOND>"]);
    expect(batch.columns.map((c) => c.nullCount)).toEqual([2, 2, 2, 2, 4, 2]);
    expect(batch.fields).toBe(fields);
  });

  it("parses numbers exactly: exponents, fractions, long mantissas and the float64 non-numeric strings", () => {
    const lines = [
      '{"x":0}',
      '{"x":-0.0}',
      '{"x":1e-7}',
      '{"x":2.5E+10}',
      '{"x":123456789.123456789}',
      '{"x":0.1}',
      '{"x":1.7976931348623157e308}',
      '{"x":5e-324}',
      '{"x":1e400}',
      '{"x":"NaN"}',
      '{"x":"-Infinity"}',
      '{"x":"+INF"}',
    ];
    const { rows } = decodeRows(utf8(lines.join("\n")), [field("x", "float64")]);
    expect(rows.map((r) => r.x)).toEqual([0, -0, 1e-7, 2.5e10, 123456789.12345679, 0.1, 1.7976931348623157e308, 5e-324, Infinity, NaN, -Infinity, Infinity]);
  });

  it("reads timestamps in the ISO forms Spark accepts and as epoch milliseconds", () => {
    const values = [
      '"2024-05-01T12:00:00Z"',
      '"2024-05-01t12:00:00z"',
      '"2024-05-01T12:00"',
      '"2024-05-01T12:00:00.5"',
      '"2024-05-01T12:00:00.123456789-05:30"',
      '"2024-05-01T12:00:00+0200"',
      '"2024-05-01T12:00:00-07"',
      '"1969-12-31T23:59:59.999Z"',
      '"2000-02-29"',
      "-1",
      "1714564800123.9",
    ];
    const { rows } = decodeRows(utf8(values.map((v) => `{"t":${v}}`).join("\n")), [field("t", "timestamp")]);
    expect(rows.map((r) => r.t)).toEqual([
      "2024-05-01T12:00:00.000Z",
      "2024-05-01T12:00:00.000Z",
      "2024-05-01T12:00:00.000Z",
      "2024-05-01T12:00:00.500Z",
      "2024-05-01T17:30:00.123Z",
      "2024-05-01T10:00:00.000Z",
      "2024-05-01T19:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "2000-02-29T00:00:00.000Z",
      "1969-12-31T23:59:59.999Z",
      "2024-05-01T12:00:00.123Z",
    ]);
  });
});

describe("decodeJsonLines: strings", () => {
  it("unescapes \\n \\\" \\\\ \\/ \\b \\f \\r \\t and \\uXXXX (surrogate pairs as one character, lone surrogates as U+FFFD)", () => {
    const { rows } = decodeRows(fixture("escapes.jsonl"), [field("s", "string"), field("k", "string")]);
    expect(rows).toEqual([
      { s: 'line\nbreak "quoted" back\\slash / \b\f\r\t', k: "plain" },
      { s: "é中😀 😀", k: "héllo 中文 😀" },
      { s: "lone \uFFFD high, lone \uFFFD low", k: null },
      { s: "key with escape", k: "x" },
      { s: "Abc", k: "tab\tand\u0000nul" },
    ]);
  });

  it("finds a string's end, escapes and control bytes wherever they fall in a 4-byte word, in views of any alignment", () => {
    const schema = [field("s", "string")];
    for (let align = 0; align < 4; align++) {
      for (let length = 0; length < 14; length++) {
        const plain = "é-abcdefghijkl".slice(0, length);
        const expected = [plain, `${plain}\n${plain}`, `${plain}"`];
        const text = `{"s":"${plain}"}\n{"s":"${plain}\\n${plain}"}\n{"s":"${plain}\\""}`;
        const buffer = new Uint8Array(align + utf8(text).length + 3);
        buffer.set(utf8(text), align);
        const view = buffer.subarray(align, align + utf8(text).length);
        expect(decodeRows(view, schema).rows.map((r) => r.s)).toEqual(expected);
        const broken = utf8(`{"s":"${plain}\t"}`);
        expect(() => decodeJsonLines(broken, schema, FAILFAST)).toThrow("control character byte 0x09 in string");
        // The bytes after a view are not its own: a string cut off by the view's end stays unterminated.
        const cut = utf8(`{"s":"${plain}"}`);
        const padded = new Uint8Array(align + cut.length + 4).fill(0x22);
        padded.set(cut, align);
        expect(() => decodeJsonLines(padded.subarray(align, align + cut.length - 2), schema, FAILFAST)).toThrow("unterminated string");
      }
    }
  });

  it("copies strings without escapes as their raw UTF-8 bytes", () => {
    const { batch } = decodeJsonLines(utf8('{"k":"héllo 😀"}\n{"k":"x"}'), [field("k", "string")], FAILFAST);
    const data = batch.columns[0]!;
    expect(Array.from(data.valueOffsets as Int32Array)).toEqual([0, 11, 12]);
    expect(Array.from(data.values as Uint8Array)).toEqual([...utf8("héllo 😀x")]);
  });
});

describe("decodeJsonLines: record structure", () => {
  const fields = [field("id", "int32"), field("name", "string"), field("price", "float64"), field("café", "string")];

  it("skips nested unknown fields, accepts any field order and whitespace, and keeps a duplicate key's last value", () => {
    const { rows } = decodeRows(fixture("nested.jsonl"), fields);
    expect(rows).toEqual([
      { id: 1, name: "first", price: 1.25, café: null },
      { id: 2, name: "second", price: 2.5, café: null },
      { id: 3, name: "third", price: 3, café: null },
      { id: 4, name: "dup-last", price: null, café: null },
      { id: 5, name: "fünf", price: null, café: "crème" },
      { id: 6, name: "six", price: -0.01, café: null },
    ]);
  });

  it("decodes records whose keys change order from line to line", () => {
    const lines = ['{"a":1,"b":"x","c":true}', '{"c":false,"a":2,"b":"y"}', '{"b":"z","c":true,"a":3}', '{"a":4,"b":"w","c":false}'];
    const { rows } = decodeRows(utf8(lines.join("\n")), [field("a", "int32"), field("b", "string"), field("c", "boolean")]);
    expect(rows).toEqual([
      { a: 1, b: "x", c: true },
      { a: 2, b: "y", c: false },
      { a: 3, b: "z", c: true },
      { a: 4, b: "w", c: false },
    ]);
  });

  it("treats \\r\\n like \\n, skips blank lines and reads a last line without a newline", () => {
    const text = '{"id":1}\r\n\r\n   \t\n{"id":2}\n\n{"id":3}\r\n{"id":4}';
    const { rows, numLines } = decodeRows(utf8(text), [field("id", "int32")]);
    expect(rows).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
    expect(numLines).toBe(7);
  });

  it("gives an empty batch for empty or blank input", () => {
    for (const text of ["", "\n", "\r\n  \n"]) {
      const result = decodeJsonLines(utf8(text), [field("id", "int32")], FAILFAST);
      expect([result.batch.numRows, result.numMalformed]).toEqual([0, 0]);
    }
  });

  it("grows its buffers for inputs larger than its first guess", () => {
    const lines = Array.from({ length: 5000 }, (_, i) => (i < 100 ? `{"i":${i}}` : `{"i":${i},"s":"${"é".repeat(i % 50)}"}`));
    const { rows } = decodeRows(utf8(lines.join("\n")), [field("i", "int32"), field("s", "string")]);
    expect(rows).toEqual(lines.map((_, i) => ({ i, s: i < 100 ? null : "é".repeat(i % 50) })));
  });
});

describe("decodeJsonLines: input edges", () => {
  it("skips a UTF-8 byte order mark at the start", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('{"id":1}\n{"id":2}')]);
    expect(decodeRows(bytes, [field("id", "int32")]).rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("reads a view into a larger buffer without looking outside it", () => {
    const whole = utf8('{"id":1}\n{"id":2}\n{"id":3}\n');
    const view = whole.subarray(9, 17); // exactly '{"id":2}'
    expect(decodeRows(view, [field("id", "int32")]).rows).toEqual([{ id: 2 }]);
  });
});
