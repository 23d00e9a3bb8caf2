import { describe, expect, it } from "vitest";
import { field } from "../batch/batch.js";
import { AnalysisError, MalformedRecordError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import { decodeJsonValues } from "./json-values.js";
import type { JsonValuesOptions } from "./json-values.js";
import { batchRows } from "./test-rows.js";

const encoder = new TextEncoder();

/** A string column as `decodeJsonValues` takes it: null entries are null records. */
interface Column {
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
  readonly validity: Uint8Array | null;
}

/**
 * `values` back to back after `lead` bytes of other data, in a buffer where they start `align`
 * bytes past a 4-byte boundary (the scanner reads strings four bytes at a time). A null record
 * keeps `nullBytes` in its slot, which must not be read.
 */
function column(values: readonly (string | null)[], { lead = 0, align = 0, nullBytes = "" } = {}): Column {
  const parts = values.map((v) => encoder.encode(v ?? nullBytes));
  const total = lead + parts.reduce((sum, p) => sum + p.length, 0);
  const bytes = new Uint8Array(new ArrayBuffer(align + total), align, total);
  bytes.fill(0x7b, 0, lead); // '{' before the first record
  const offsets = new Int32Array(values.length + 1);
  offsets[0] = lead;
  parts.forEach((p, i) => {
    bytes.set(p, offsets[i]!);
    offsets[i + 1] = offsets[i]! + p.length;
  });
  const validity = values.includes(null) ? Uint8Array.from(values, (v) => (v === null ? 0 : 1)) : null;
  return { bytes, offsets, validity };
}

function decode(c: Column, fields: Fields, options: JsonValuesOptions) {
  const result = decodeJsonValues(c.bytes, c.offsets, c.validity, fields, options);
  return {
    rows: batchRows(result.batch),
    numMalformed: result.numMalformed,
    malformedRows: Array.from(result.malformedRows),
    keptRows: Array.from(result.keptRows),
  };
}

const fields = [field("id", "int32", false), field("price", "float64"), field("name", "string"), field("_corrupt_record", "string")];
const options = (mode: JsonValuesOptions["mode"]): JsonValuesOptions => ({
  mode,
  columnNameOfCorruptRecord: "_corrupt_record",
  describeRecord: (i) => `topic t partition 0 offset ${100 + i}`,
});
const good = (id: number, price: number | null, name: string | null) => ({ id, price, name, _corrupt_record: null });
const nullRow = { id: null, price: null, name: null, _corrupt_record: null };

/** One of each kind of record; the comments give the input index. */
const values: (string | null)[] = [
  '{"id":1,"price":10.5,"name":"ok"}', // 0
  null, // 1: a null record
  '{"id":2,"name":"trunc', // 2: truncated
  '{"id":3,"price":3.5,"name":"after truncated"}', // 3
  '{"id":4} trailing', // 4: text after the object
  ' \r\n\t{ "id" : 5 ,\n "name":"spaced" }\n ', // 5: whitespace, newlines included
  '{"id":6}{"id":7}', // 6: a second object
  "", // 7: empty
  '{"id":8,"price":"abc"}', // 8: wrong type
  '{"name":"no id"}', // 9: a required field missing
  "[1]", // 10: not an object
  '{"id":11,"name":"last"}', // 11
];
const corrupt = (i: number) => ({ id: null, price: null, name: null, _corrupt_record: values[i] });
const MALFORMED = [2, 4, 6, 7, 8, 9, 10];

describe("decodeJsonValues: modes", () => {
  it("PERMISSIVE keeps every record in order: bad ones as null rows with their raw bytes, null ones as null rows", () => {
    const result = decode(column(values, { nullBytes: '{"id":99}' }), fields, options("PERMISSIVE"));
    expect(result.rows).toEqual([
      good(1, 10.5, "ok"),
      nullRow,
      corrupt(2),
      good(3, 3.5, "after truncated"),
      corrupt(4),
      good(5, null, "spaced"),
      corrupt(6),
      corrupt(7),
      corrupt(8),
      corrupt(9),
      corrupt(10),
      good(11, null, "last"),
    ]);
    expect(result.numMalformed).toBe(7);
    expect(result.malformedRows).toEqual(MALFORMED);
    expect(result.keptRows).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("PERMISSIVE without a corrupt-record column keeps all-null rows", () => {
    const result = decode(column(values), fields.slice(0, 3), options("PERMISSIVE"));
    expect(result.rows[2]).toEqual({ id: null, price: null, name: null });
    expect(result.rows[3]).toEqual({ id: 3, price: 3.5, name: "after truncated" });
    expect([result.rows.length, result.numMalformed]).toEqual([12, 7]);
  });

  it("DROPMALFORMED keeps good and null records, and says which input rows survived and which were bad", () => {
    const result = decode(column(values), fields, options("DROPMALFORMED"));
    expect(result.rows).toEqual([good(1, 10.5, "ok"), nullRow, good(3, 3.5, "after truncated"), good(5, null, "spaced"), good(11, null, "last")]);
    expect(result.keptRows).toEqual([0, 1, 3, 5, 11]);
    expect(result.malformedRows).toEqual(MALFORMED);
    expect(result.numMalformed).toBe(7);
  });

  it("keptRows carries other columns of the input along", () => {
    const kafkaOffsets = values.map((_, i) => 1000 + i);
    const { keptRows } = decode(column(values), fields, options("DROPMALFORMED"));
    expect(keptRows.map((i) => kafkaOffsets[i])).toEqual([1000, 1001, 1003, 1005, 1011]);
  });

  it("FAILFAST stops at the first bad record, named by describeRecord", () => {
    let error: unknown;
    try {
      decode(column(values), fields, options("FAILFAST"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MalformedRecordError);
    expect((error as MalformedRecordError).message).toBe("malformed JSON at topic t partition 0 offset 102: unterminated string");
    expect([(error as MalformedRecordError).file, (error as MalformedRecordError).line]).toEqual([undefined, undefined]);
  });

  it("FAILFAST names a record by its index without describeRecord, and passes good and null records", () => {
    const c = column(['{"id":1}', null, '{"id":"x"}']);
    expect(() => decodeJsonValues(c.bytes, c.offsets, c.validity, fields, { mode: "FAILFAST", columnNameOfCorruptRecord: "_corrupt_record" })).toThrow(
      new MalformedRecordError('record does not match the schema at record 2: field "id" expects int32, got string "x"', undefined, undefined),
    );
    expect(decode(column(['{"id":1}', null]), fields, options("FAILFAST")).rows).toEqual([good(1, null, null), nullRow]);
  });
});

describe("decodeJsonValues: null records", () => {
  it("are all-null rows, non-nullable fields included, whatever bytes their slot holds, in every mode", () => {
    for (const mode of ["PERMISSIVE", "DROPMALFORMED", "FAILFAST"] as const) {
      const result = decode(column([null, '{"id":1}', null], { nullBytes: "not JSON" }), fields, options(mode));
      expect(result.rows).toEqual([nullRow, good(1, null, null), nullRow]);
      expect([result.numMalformed, result.malformedRows, result.keptRows]).toEqual([0, [], [0, 1, 2]]);
    }
  });

  it("validity 0 marks a null record and any other byte a present one", () => {
    const c = column(['{"id":1}', '{"id":2}', '{"id":3}']);
    const result = decodeJsonValues(c.bytes, c.offsets, Uint8Array.of(1, 0, 255), fields, options("FAILFAST"));
    expect(batchRows(result.batch)).toEqual([good(1, null, null), nullRow, good(3, null, null)]);
  });
});

describe("decodeJsonValues: record bounds", () => {
  const schema = [field("id", "int32", false), field("name", "string"), field("flag", "boolean"), field("_corrupt_record", "string")];

  // Each record is followed by one that would complete it: the first must still be malformed
  // with this problem, and the second one must be judged on its own.
  it.each([
    ['{"id":1', "}", `expected ',' or '}' after field "id", found end of input`],
    ['{"id":1,', '"name":"x"}', `expected '"' to start a field name after field "id", found end of input`],
    ["{", '"id":1}', `expected '"' to start a field name, found end of input`],
    ['{"id"', ":1}", `expected ':' after field name "id", found end of input`],
    ['{"id":', "1}", "expected a value, found end of input"],
    ['{"id":12', "3}", `expected ',' or '}' after field "id", found end of input`],
    ['{"id":1,"flag":tr', "ue}", "invalid literal: expected 'true'"],
    ['{"id":1,"name":nu', "ll}", "invalid literal: expected 'null'"],
    ['{"id":1,"name":"abcdefghijkl', 'mnop"}', "unterminated string"],
    ['{"id":1,"name":"a\\', 'n"}', "invalid escape in string: backslash followed by end of input"],
    ['{"id":1,"name":"\\u00', 'e9"}', "invalid \\u escape in string: expected four hex digits"],
    ['{"id":1,"other":[1,2', "]}", "expected ',' or ']' in an array, found end of input"],
    ['{"id":1,"other":{"a":1', "}}", "expected ',' or '}' in a nested object, found end of input"],
    ['{"id":1,"other":"x', '"}', "unterminated string"],
    ["", '{"id":1}', "expected a JSON object, found end of input"],
    [" \n\t ", '{"id":1}', "expected a JSON object, found end of input"],
  ])("%j followed by %j is malformed: %s", (first, second, detail) => {
    // Together they would be one good record.
    expect(decode(column([first + second]), schema, options("FAILFAST")).rows).toHaveLength(1);
    expect(() => decode(column([first, second]), schema, options("FAILFAST"))).toThrow(`malformed JSON at topic t partition 0 offset 100: ${detail}`);
    const result = decode(column([first, second, '{"id":2}']), schema, options("PERMISSIVE"));
    expect(result.rows[0]).toEqual({ id: null, name: null, flag: null, _corrupt_record: first });
    expect(result.rows[2]).toEqual({ id: 2, name: null, flag: null, _corrupt_record: null });
  });

  it("does not match a key cut by the record's end against the key order of the record before", () => {
    const c = column(['{"id":1}', '{"id', '":2}']);
    expect(() => decode(c, schema, options("FAILFAST"))).toThrow("malformed JSON at topic t partition 0 offset 101: unterminated string");
  });

  it.each([
    ['{"id":4} trailing', "unexpected 't' after the end of the record"],
    ['{"id":6}{"id":7}', "unexpected '{' after the end of the record"],
    ['{"id":6}\n{"id":7}', "unexpected '{' after the end of the record"],
    ['{"id":6},', "unexpected ',' after the end of the record"],
    ['{"id":6}}', "unexpected '}' after the end of the record"],
    ['{"id":1,"name":"line\nbreak"}', "control character byte 0x0a in string (escape it)"],
    ["[1]", "expected a JSON object, got array"],
    ["1", "expected a JSON object, got number 1"],
    ["nul", "expected a JSON object, found 'n'"],
  ])("%j is malformed: %s", (value, detail) => {
    expect(() => decode(column([value]), schema, options("FAILFAST"))).toThrow(`malformed JSON at topic t partition 0 offset 100: ${detail}`);
  });

  it("accepts whitespace, newlines included, around the object and between its tokens", () => {
    const result = decode(column(['\n\r\t {\n"id"\n:\n7\n,\r\n"name" : "x" ,"flag":\ttrue\n}\n\n', "{}\n"]), schema.slice(1), options("FAILFAST"));
    expect(result.rows).toEqual([
      { name: "x", flag: true, _corrupt_record: null },
      { name: null, flag: null, _corrupt_record: null },
    ]);
  });

  it("never lets a record run into the next: every split of a record gives two malformed records, at any alignment", () => {
    const text =
      '{"id":7,"price":-12.5e-1,"name":"caf\\u00e9 \\"quoted\\" long enough for word reads","flag":true,' +
      '"ts":"2024-05-01T12:00:00.123Z","big":9007199254740993,"x":{"nested":[1,"two",null,false,{}]},"n":null}';
    const rich = [
      field("id", "int32", false),
      field("price", "float64"),
      field("name", "string"),
      field("flag", "boolean"),
      field("ts", "timestamp"),
      field("big", "int64"),
      field("_corrupt_record", "string"),
    ];
    const expected = { id: 7, price: -1.25, name: 'café "quoted" long enough for word reads', flag: true, ts: "2024-05-01T12:00:00.123Z", big: 9007199254740993n, _corrupt_record: null };
    const corruptRow = (raw: string) => ({ id: null, price: null, name: null, flag: null, ts: null, big: null, _corrupt_record: raw });
    for (let align = 0; align < 4; align++) {
      for (let k = 1; k < text.length; k++) {
        // The two halves end the input, so a first half that read on would make one good record.
        const records = [text, text.slice(0, k), text.slice(k)];
        const result = decode(column(records, { lead: align + 1, align }), rich, options("PERMISSIVE"));
        expect(result.rows).toEqual([expected, corruptRow(records[1]!), corruptRow(records[2]!)]);
      }
    }
  });
});

describe("decodeJsonValues: keys the schema does not name", () => {
  const schema = [field("id", "int32", false), field("name", "string"), field("_corrupt_record", "string")];

  it("still validates an unread field's value once its key is known from earlier records", () => {
    const c = column([
      '{"id":1,"extra":"x","name":"a"}',
      '{"id":2,"extra":"tab\there","name":"b"}',
      '{"id":3,"extra":[1,,2],"name":"c"}',
      '{"id":4,"extra":tru,"name":"d"}',
      '{"id":5,"extra":{"deep":[1]},"name":"e"}',
    ]);
    const result = decode(c, schema, options("PERMISSIVE"));
    expect(result.malformedRows).toEqual([1, 2, 3]);
    expect(result.rows.map((r) => r.id)).toEqual([1, null, null, null, 5]);
    expect(() => decode(column(['{"id":1,"extra":"x"}', '{"id":2,"extra":"tab\there"}']), schema, options("FAILFAST"))).toThrow(
      "malformed JSON at topic t partition 0 offset 101: control character byte 0x09 in string (escape it)",
    );
  });

  it("does not match an unread key cut by the record's end against the key order of the record before", () => {
    expect(() => decode(column(['{"id":1,"extra":5}', '{"id":1,"ext', 'ra":5}']), schema, options("FAILFAST"))).toThrow(
      "malformed JSON at topic t partition 0 offset 101: unterminated string",
    );
  });

  it("reads a schema field written with escapes after its unescaped spelling was seen, and an unread key in either spelling", () => {
    const result = decode(
      column(['{"extra":1,"id":1,"name":"a"}', '{"\u0065xtra":2,"\u0069d":2,"n\u0061me":"b"}', '{"extra":3,"id":3,"name":"c"}']),
      schema,
      options("FAILFAST"),
    );
    expect(result.rows).toEqual([good(1, null, "a"), good(2, null, "b"), good(3, null, "c")].map(({ price: _, ...r }) => r));
  });

  it("decodes records whose unread keys never repeat, past the number of keys the decoder learns", () => {
    const records = Array.from({ length: 300 }, (_, i) => `{"k${i}":${i},"id":${i},"k${i}b":"v","name":"n${i}"}`);
    const result = decode(column(records), schema, options("FAILFAST"));
    expect(result.rows).toHaveLength(300);
    expect(result.rows[0]).toEqual({ id: 0, name: "n0", _corrupt_record: null });
    expect(result.rows[299]).toEqual({ id: 299, name: "n299", _corrupt_record: null });
  });

  it("follows records whose keys change order, with and without the schema's fields among them", () => {
    const result = decode(
      column(['{"a":1,"id":1,"b":2,"name":"x"}', '{"b":2,"name":"y","a":1,"id":2}', '{"id":3,"b":[],"a":{}}', '{"a":1,"b":2,"id":4,"name":"z"}']),
      schema,
      options("FAILFAST"),
    );
    expect(result.rows.map((r) => [r.id, r.name])).toEqual([
      [1, "x"],
      [2, "y"],
      [3, null],
      [4, "z"],
    ]);
  });
});

describe("decodeJsonValues: inputs", () => {
  it("decodes no records into an empty batch", () => {
    const result = decodeJsonValues(new Uint8Array(0), Int32Array.of(0), null, fields, options("FAILFAST"));
    expect([result.batch.numRows, result.numMalformed, result.malformedRows.length, result.keptRows.length]).toEqual([0, 0, 0, 0]);
  });

  it("refuses offsets outside the bytes or going backwards, and a short validity array", () => {
    const bytes = encoder.encode('{"id":1}{"id":2}');
    const run = (offsets: number[], validity: Uint8Array | null = null) => () =>
      decodeJsonValues(bytes, Int32Array.from(offsets), validity, fields, options("PERMISSIVE"));
    expect(run([0, 8, 17])).toThrow(new RangeError("offsets[2] is 17, past the end of the 16 bytes"));
    expect(run([-1, 8])).toThrow(new RangeError("offsets[0] is -1, before the start of the bytes"));
    expect(run([0, 9, 8])).toThrow(new RangeError("offsets[2] is 8, before offsets[1] (9)"));
    expect(run([0, 8, 16], Uint8Array.of(1))).toThrow(new RangeError("validity has 1 entries for 2 records"));
    expect(batchRows(decodeJsonValues(bytes, Int32Array.of(8, 16), null, fields, options("FAILFAST")).batch)).toEqual([good(2, null, null)]);
  });

  it("checks the schema as decodeJsonLines does", () => {
    const c = column(['{"id":1}']);
    const run = (f: Fields) => () => decodeJsonValues(c.bytes, c.offsets, c.validity, f, options("PERMISSIVE"));
    expect(run([field("id", "int32"), field("id", "string")])).toThrow(AnalysisError);
    expect(run([field("id", "int32"), field("_corrupt_record", "int32")])).toThrow('the corrupt-record column "_corrupt_record" must be a nullable string');
  });
});
