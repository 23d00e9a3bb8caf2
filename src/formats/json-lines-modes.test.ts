import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { field } from "../batch/batch.js";
import { AnalysisError, MalformedRecordError } from "../errors/errors.js";
import { decodeJsonLines } from "./json-lines.js";
import type { DecodeOptions } from "./json-lines.js";
import { batchRows } from "./test-rows.js";

/**
 * fixtures/json/malformed.jsonl, line by line (line 4 is blank; line 15 has no newline):
 *   1 good · 2 wrong type · 3 missing '}' · 5 missing required id · 6 an array · 7 missing ','
 *   8 fraction in int32 · 9 good · 10 null required id · 11 not JSON · 12 text after the record
 *   13 bad escape · 14 int32 out of range · 15 good
 */
const bytes = new Uint8Array(readFileSync(new URL("../../fixtures/json/malformed.jsonl", import.meta.url)));
const lines = new TextDecoder().decode(bytes).split("\n");
const FILE = "/data/malformed.jsonl";

const fields = [field("id", "int32", false), field("price", "float64"), field("name", "string"), field("_corrupt_record", "string")];
const options = (mode: DecodeOptions["mode"]): DecodeOptions => ({ mode, columnNameOfCorruptRecord: "_corrupt_record", file: FILE });
const good = (id: number, price: number | null, name: string | null) => ({ id, price, name, _corrupt_record: null });
const corrupt = (line: number) => ({ id: null, price: null, name: null, _corrupt_record: lines[line - 1] });

describe("bad records", () => {
  it("PERMISSIVE keeps a row of nulls with the raw line in the corrupt-record column, even for a non-nullable field", () => {
    const result = decodeJsonLines(bytes, fields, options("PERMISSIVE"));
    expect(batchRows(result.batch)).toEqual([
      good(1, 10.5, "ok"),
      corrupt(2),
      corrupt(3),
      corrupt(5),
      corrupt(6),
      corrupt(7),
      corrupt(8),
      good(9, 9.5, "ok again"),
      corrupt(10),
      corrupt(11),
      corrupt(12),
      corrupt(13),
      corrupt(14),
      good(15, null, "last, no newline"),
    ]);
    expect([result.numMalformed, result.numLines]).toEqual([11, 15]);
  });

  it("PERMISSIVE without a corrupt-record column keeps all-null rows", () => {
    const result = decodeJsonLines(bytes, fields.slice(0, 3), options("PERMISSIVE"));
    const rows = batchRows(result.batch);
    expect(rows.length).toBe(14);
    expect(rows[1]).toEqual({ id: null, price: null, name: null });
    expect(result.numMalformed).toBe(11);
  });

  it("PERMISSIVE stores the corrupt line without its \\r\\n and ignores a JSON key named like the corrupt-record column", () => {
    const text = '{"id":1,"_corrupt_record":"from the data"}\r\n{"id":oops}\r\n';
    const result = decodeJsonLines(new TextEncoder().encode(text), fields, options("PERMISSIVE"));
    expect(batchRows(result.batch)).toEqual([good(1, null, null), { id: null, price: null, name: null, _corrupt_record: '{"id":oops}' }]);
  });

  it("DROPMALFORMED keeps only the good records and counts the others", () => {
    const result = decodeJsonLines(bytes, fields, options("DROPMALFORMED"));
    expect(batchRows(result.batch)).toEqual([good(1, 10.5, "ok"), good(9, 9.5, "ok again"), good(15, null, "last, no newline")]);
    expect([result.numMalformed, result.numLines]).toEqual([11, 15]);
  });

  it("FAILFAST stops at the first bad record, naming the file and line", () => {
    let error: unknown;
    try {
      decodeJsonLines(bytes, fields, options("FAILFAST"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MalformedRecordError);
    expect((error as MalformedRecordError).message).toBe(
      'record does not match the schema at line 2 of /data/malformed.jsonl: field "price" expects float64, got string "abc"',
    );
    expect([(error as MalformedRecordError).file, (error as MalformedRecordError).line]).toEqual([FILE, 2]);
  });

  it.each([
    [2, 'record does not match the schema at line 2 of /data/malformed.jsonl: field "price" expects float64, got string "abc"'],
    [3, `malformed JSON at line 3 of /data/malformed.jsonl: expected ',' or '}' after field "name", found end of line`],
    [5, 'record does not match the schema at line 5 of /data/malformed.jsonl: required field "id" is missing'],
    [6, "malformed JSON at line 6 of /data/malformed.jsonl: expected a JSON object, got array"],
    [7, `malformed JSON at line 7 of /data/malformed.jsonl: expected ',' or '}' after field "price", found '"'`],
    [8, 'record does not match the schema at line 8 of /data/malformed.jsonl: field "id" expects int32, got number 8.5'],
    [10, 'record does not match the schema at line 10 of /data/malformed.jsonl: field "id" is not nullable, got null'],
    [11, "malformed JSON at line 11 of /data/malformed.jsonl: expected a JSON object, found 'n'"],
    [12, "malformed JSON at line 12 of /data/malformed.jsonl: unexpected 'x' after the end of the record"],
    [13, "malformed JSON at line 13 of /data/malformed.jsonl: invalid escape in string: backslash followed by 'q'"],
    [14, 'record does not match the schema at line 14 of /data/malformed.jsonl: field "id" expects int32, got number 3000000000 (out of range)'],
  ])("FAILFAST explains line %i", (line, message) => {
    const oneLine = new TextEncoder().encode(`${lines[line - 1]}\n`);
    expect(() => decodeJsonLines(oneLine, fields, { ...options("FAILFAST"), firstLineNumber: line })).toThrow(message);
  });

  it.each([
    ['{"s":"abc', "unterminated string"],
    ['{"s":"a\tb"}', "control character byte 0x09 in string (escape it)"],
    ['{"s":"\\u12G4"}', "invalid \\u escape in string: expected four hex digits"],
    ['{"n":01}', "invalid number '01'"],
    ['{"n":1.}', "invalid number '1.'"],
    ['{"n":-}', "invalid number '-'"],
    ['{"n":tru}', "invalid literal: expected 'true'"],
    ['{"x":[1,2}', "expected ',' or ']' in an array, found '}'"],
    ['{"x":{"a" 1}}', "expected ':' after a field name in a nested object, found '1'"],
    ['{"s" "v"}', `expected ':' after field name "s", found '"'`],
    ['{"s":"v",}', `expected '"' to start a field name after field "s", found '}'`],
    ['{"s":}', "expected a value, found '}'"],
    ['{"b":"yes"}', 'field "b" expects boolean, got string "yes"'],
    ['{"f":"INF"}', 'field "f" expects float64, got string "INF"'],
    ['{"f":"1.5"}', 'field "f" expects float64, got string "1.5"'],
    ['{"f":[1.5]}', 'field "f" expects float64, got array'],
    ['{"n":{"a":1}}', 'field "n" expects int64, got object'],
    ['{"t":"2023-02-29T00:00:00Z"}', 'field "t" expects timestamp, got string "2023-02-29T00:00:00Z"'],
    ['{"t":true}', 'field "t" expects timestamp, got boolean true'],
    ['{"n":9223372036854775808}', 'field "n" expects int64, got number 9223372036854775808 (out of range)'],
    [`{"x":${"[".repeat(1001)}${"]".repeat(1001)}}`, "nesting deeper than 1000 levels"],
  ])("FAILFAST message for %s", (line, detail) => {
    const schema = [field("s", "string"), field("n", "int64"), field("b", "boolean"), field("t", "timestamp"), field("f", "float64")];
    expect(() => decodeJsonLines(new TextEncoder().encode(line), schema, options("FAILFAST"))).toThrow(`at line 1 of ${FILE}: ${detail}`);
  });

  it("FAILFAST without a file name and with a first line number", () => {
    const text = '{"n":1}\n\n{"n":"x"}';
    expect(() => decodeJsonLines(new TextEncoder().encode(text), [field("n", "int64")], { mode: "FAILFAST", columnNameOfCorruptRecord: "c", firstLineNumber: 41 })).toThrow(
      'record does not match the schema at line 43: field "n" expects int64, got string "x"',
    );
  });

  it("rejects a corrupt-record column that is not a nullable string, and duplicate field names", () => {
    const decode = (f: typeof fields) => () => decodeJsonLines(bytes, f, options("PERMISSIVE"));
    expect(decode([field("id", "int32"), field("_corrupt_record", "int32")])).toThrow(AnalysisError);
    expect(decode([field("id", "int32"), field("_corrupt_record", "string", false)])).toThrow(
      'the corrupt-record column "_corrupt_record" must be a nullable string, but it is a non-nullable string',
    );
    expect(decode([field("id", "int32"), field("id", "string")])).toThrow('the JSON schema names field "id" twice');
    expect(decode([field("w", "window")])).toThrow('field "w" has type window, which cannot be read from JSON');
  });
});
