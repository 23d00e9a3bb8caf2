import { describe, expect, it } from "vitest";
import { AnalysisError } from "../../errors/errors.js";
import { canonicalForm, rabinFingerprint64, schemaFingerprint64 } from "./avro-canonical.js";
import { parseAvroSchema } from "./avro-schema.js";
import type { AvroRecord, AvroUnion } from "./avro-schema-types.js";
import { jsonError } from "./test-support.js";

const record = (fields: unknown[], extra: Record<string, unknown> = {}) => ({ type: "record", name: "R", fields, ...extra });
const field = (name: string, type: unknown, extra: Record<string, unknown> = {}) => ({ name, type, ...extra });

describe("parseAvroSchema: types", () => {
  it("parses primitives given as names, as objects and as JSON text", () => {
    expect(parseAvroSchema('"long"')).toEqual({ type: "long", logicalType: null });
    expect(parseAvroSchema({ type: "bytes" })).toEqual({ type: "bytes", logicalType: null });
    expect(parseAvroSchema(' {"type": "null"} ')).toEqual({ type: "null", logicalType: null });
  });

  it("parses records, enums, fixed, arrays, maps and unions, with full names and aliases", () => {
    const schema = parseAvroSchema({
      type: "record",
      name: "Order",
      namespace: "com.acme",
      aliases: ["Sale", "old.Purchase"],
      fields: [
        field("id", "long", { aliases: ["orderId"], order: "descending" }),
        field("suit", { type: "enum", name: "Suit", symbols: ["SPADES", "HEARTS"], default: "SPADES" }, { default: "HEARTS" }),
        field("hash", { type: "fixed", name: "other.Hash", size: 4 }),
        field("tags", { type: "array", items: "string" }, { default: ["a"] }),
        field("attrs", { type: "map", values: ["null", "int"] }, { default: { k: 1 } }),
        field("again", "Suit"),
        field("hash2", "other.Hash"),
      ],
    }) as AvroRecord;
    expect(schema.name).toBe("com.acme.Order");
    expect(schema.aliases).toEqual(["com.acme.Sale", "old.Purchase"]);
    expect(schema.fields.map((f) => [f.name, f.type.type, f.default, f.aliases, f.order])).toEqual([
      ["id", "long", null, ["orderId"], "descending"],
      ["suit", "enum", { value: "HEARTS" }, [], "ascending"],
      ["hash", "fixed", null, [], "ascending"],
      ["tags", "array", { value: ["a"] }, [], "ascending"],
      ["attrs", "map", { value: { k: 1 } }, [], "ascending"],
      ["again", "enum", null, [], "ascending"],
      ["hash2", "fixed", null, [], "ascending"],
    ]);
    expect(schema.fields[1]!.type).toEqual({ type: "enum", name: "com.acme.Suit", aliases: [], symbols: ["SPADES", "HEARTS"], default: "SPADES" });
    expect(schema.fields[2]!.type).toEqual({ type: "fixed", name: "other.Hash", aliases: [], size: 4, logicalType: null });
    // A reference is the defined type itself.
    expect(schema.fields[5]!.type).toBe(schema.fields[1]!.type);
    expect(schema.fields[6]!.type).toBe(schema.fields[2]!.type);
    expect(schema.fields[4]!.type).toEqual({ type: "map", values: { type: "union", branches: [{ type: "null", logicalType: null }, { type: "int", logicalType: null }] } });
  });

  it("resolves names by the specification's namespace rules", () => {
    const schema = parseAvroSchema({
      type: "record",
      name: "Example",
      fields: [
        field("inheritNull", { type: "enum", name: "Simple", symbols: ["a", "b"] }),
        field("explicitNamespace", { type: "fixed", name: "Simple", namespace: "explicit", size: 12 }),
        field("fullName", {
          type: "record",
          name: "a.full.Name",
          namespace: "ignored",
          fields: [field("inheritNamespace", { type: "enum", name: "Understanding", symbols: ["d", "e"] }), field("outer", "Simple"), field("inner", "Understanding")],
        }),
      ],
    }) as AvroRecord;
    const names = (r: AvroRecord) => r.fields.map((f) => ("name" in f.type ? f.type.name : f.type.type));
    expect(names(schema)).toEqual(["Simple", "explicit.Simple", "a.full.Name"]);
    // Inside a.full.Name, "Simple" is not a.full.Simple, so it falls back to the null namespace's Simple.
    expect(names(schema.fields[2]!.type as AvroRecord)).toEqual(["a.full.Understanding", "Simple", "a.full.Understanding"]);
  });

  it("lets a record refer to itself: the graph has a cycle", () => {
    const list = parseAvroSchema({ type: "record", name: "LongList", fields: [field("value", "long"), field("next", ["null", "LongList"])] }) as AvroRecord;
    expect((list.fields[1]!.type as AvroUnion).branches[1]).toBe(list);
  });

  it("keeps valid logical types and drops unknown or invalid ones, leaving the underlying type", () => {
    const logical = (schema: object) => (parseAvroSchema(schema) as { logicalType: unknown }).logicalType;
    expect(logical({ type: "long", logicalType: "timestamp-micros" })).toEqual({ name: "timestamp-micros" });
    expect(logical({ type: "long", logicalType: "local-timestamp-nanos" })).toEqual({ name: "local-timestamp-nanos" });
    expect(logical({ type: "int", logicalType: "date" })).toEqual({ name: "date" });
    expect(logical({ type: "int", logicalType: "time-millis" })).toEqual({ name: "time-millis" });
    expect(logical({ type: "long", logicalType: "time-micros" })).toEqual({ name: "time-micros" });
    expect(logical({ type: "string", logicalType: "uuid" })).toEqual({ name: "uuid" });
    expect(logical({ type: "fixed", name: "U", size: 16, logicalType: "uuid" })).toEqual({ name: "uuid" });
    expect(logical({ type: "fixed", name: "D", size: 12, logicalType: "duration" })).toEqual({ name: "duration" });
    expect(logical({ type: "bytes", logicalType: "decimal", precision: 10, scale: 2 })).toEqual({ name: "decimal", precision: 10, scale: 2 });
    expect(logical({ type: "bytes", logicalType: "decimal", precision: 5 })).toEqual({ name: "decimal", precision: 5, scale: 0 });
    expect(logical({ type: "fixed", name: "F", size: 4, logicalType: "decimal", precision: 9 })).toEqual({ name: "decimal", precision: 9, scale: 0 });
    expect(logical({ type: "bytes", logicalType: "big-decimal" })).toEqual({ name: "big-decimal" });
    // Invalid: wrong underlying type, scale above precision, more digits than 4 bytes hold, wrong sizes, unknown names.
    expect(logical({ type: "int", logicalType: "timestamp-millis" })).toBeNull();
    expect(logical({ type: "bytes", logicalType: "decimal", precision: 2, scale: 3 })).toBeNull();
    expect(logical({ type: "fixed", name: "G", size: 4, logicalType: "decimal", precision: 10 })).toBeNull();
    expect(logical({ type: "fixed", name: "V", size: 15, logicalType: "uuid" })).toBeNull();
    expect(logical({ type: "long", logicalType: "epoch-days" })).toBeNull();
  });

  it("accepts defaults that fit the type; a union's default may fit any branch (Avro 1.12)", () => {
    const defaults = parseAvroSchema(
      record([
        field("n", "null", { default: null }),
        field("b", "boolean", { default: false }),
        field("i", "int", { default: -2147483648 }),
        field("l", "long", { default: 9007199254740991 }),
        field("f", "float", { default: 1.5 }),
        field("s", "string", { default: "é" }),
        field("y", "bytes", { default: "\u00ff\u0000" }),
        field("x", { type: "fixed", name: "X", size: 2 }, { default: "ab" }),
        field("u", ["null", "string"], { default: "later branch" }),
        field("r", record([field("a", "int"), field("z", "int", { default: 0 })], { name: "Inner" }), { default: { a: 1 } }),
      ]),
    ) as AvroRecord;
    expect(defaults.fields.map((f) => f.default?.value)).toEqual([null, false, -2147483648, 9007199254740991, 1.5, "é", "\u00ff\u0000", "ab", "later branch", { a: 1 }]);
  });
});

/** JSON.parse's own message, which differs between Node versions. */

describe("parseAvroSchema: invalid schemas, every message", () => {
  const cases: [string, unknown, string][] = [
    ["text that is not JSON", "{", `invalid Avro schema: the text is not JSON (${jsonError("{")})`],
    ["a bare type name", "string", `invalid Avro schema: the text is not JSON (${jsonError("string")}); a schema that is a type name is the JSON string "string", with its quotes`],
    ["a number", 5, "invalid Avro schema at the top level: a schema is a type name, an object or an array (a union), not 5"],
    ["an object without type", {}, 'invalid Avro schema at the top level: the schema object\'s "type" must be a string, got nothing'],
    ["an unknown type", record([field("a", "Missing")]), 'invalid Avro schema at R.a: unknown type "Missing" (a named type must be defined before it is used; defined so far: R)'],
    ["a record without a name", { type: "record", fields: [] }, 'invalid Avro schema at the top level: a record needs a "name" string'],
    ["a record without fields", { type: "record", name: "R" }, 'invalid Avro schema at R: a record needs a "fields" array'],
    ["an invalid name", { type: "record", name: "1st", fields: [] }, 'invalid Avro schema at the top level: "1st" is not a valid name ([A-Za-z_][A-Za-z0-9_]*)'],
    ["an invalid namespace", { type: "record", name: "R", namespace: "a..b", fields: [] }, 'invalid Avro schema at the top level: "a..b" is not a valid namespace (names joined by dots)'],
    ["a namespace that is not a string", { type: "record", name: "R", namespace: 3, fields: [] }, 'invalid Avro schema at the top level: the record\'s "namespace" must be a string'],
    ["a primitive name redefined", { type: "fixed", name: "a.long", size: 1 }, 'invalid Avro schema at the top level: "long" is a primitive type name and cannot name a fixed'],
    ["a name defined twice", record([field("a", { type: "fixed", name: "F", size: 1 }), field("b", { type: "enum", name: "F", symbols: ["X"] })]), "invalid Avro schema at R.b: F is defined twice"],
    ["a field that is not an object", record(["a"]), 'invalid Avro schema at R field 0: a field is an object with a "name" string'],
    ["an invalid field name", record([field("a-b", "int")]), 'invalid Avro schema at R.a-b: "a-b" is not a valid field name ([A-Za-z_][A-Za-z0-9_]*)'],
    ["two fields of one name", record([field("a", "int"), field("a", "long")]), 'invalid Avro schema at R.a: record R has two fields named "a"'],
    ["a field without a type", record([{ name: "a" }]), 'invalid Avro schema at R.a: a field needs a "type"'],
    ["a bad order", record([field("a", "int", { order: "up" })]), 'invalid Avro schema at R.a: "order" is "ascending", "descending" or "ignore", not "up"'],
    ["aliases that are not strings", record([field("a", "int", { aliases: [1] })]), 'invalid Avro schema at R.a: "aliases" must be an array of strings'],
    ["an int default out of range", record([field("a", "int", { default: 2147483648 })]), "invalid Avro schema at R.a: invalid default: 2147483648 is not an int (a whole number within 32 bits)"],
    ["a long default with a fraction", record([field("a", "long", { default: 1.5 })]), "invalid Avro schema at R.a: invalid default: 1.5 is not a long (a whole number within 64 bits)"],
    ["a string default for a double", record([field("a", "double", { default: "1" })]), 'invalid Avro schema at R.a: invalid default: "1" is not a double (a JSON number)'],
    ["a bytes default beyond \\u00ff", record([field("a", "bytes", { default: "é€" })]), 'invalid Avro schema at R.a: invalid default: "é€" is not bytes (a string of characters \\u0000 to \\u00ff, one per byte)'],
    ["a fixed default of the wrong length", record([field("a", { type: "fixed", name: "F", size: 2 }, { default: "abc" })]), 'invalid Avro schema at R.a: invalid default: "abc" is not a fixed of 2 bytes (a string of 2 characters \\u0000 to \\u00ff)'],
    ["an enum default that is no symbol", record([field("a", { type: "enum", name: "E", symbols: ["X"] }, { default: "Y" })]), 'invalid Avro schema at R.a: invalid default: "Y" is not a symbol of enum E (X)'],
    ["an array default with a bad item", record([field("a", { type: "array", items: "int" }, { default: [1, "x"] })]), 'invalid Avro schema at R.a: invalid default: item 1: "x" is not an int (a whole number within 32 bits)'],
    ["a map default with a bad value", record([field("a", { type: "map", values: "boolean" }, { default: { k: 1 } })]), 'invalid Avro schema at R.a: invalid default: key "k": 1 is not a boolean'],
    ["a record default missing a field", record([field("a", record([field("x", "int")], { name: "S" }), { default: {} })]), 'invalid Avro schema at R.a: invalid default: field "x" is missing and has no default'],
    ["a union default that fits no branch", record([field("a", ["null", "int"], { default: "x" })]), 'invalid Avro schema at R.a: invalid default: "x" is not any branch of union [null, int]'],
    ["an array without items", { type: "array" }, 'invalid Avro schema at the top level: an array needs "items"'],
    ["a map without values", { type: "map" }, 'invalid Avro schema at the top level: a map needs "values"'],
    ["a bad array item", { type: "array", items: "Nope" }, 'invalid Avro schema at the top level (array items): unknown type "Nope" (a named type must be defined before it is used; defined so far: none)'],
    ["a bad map value", { type: "map", values: [] }, "invalid Avro schema at the top level (map values): a union needs at least one branch"],
    ["a union in a union", ["null", ["int"]], "invalid Avro schema at the top level: union branch 1 is itself a union; unions may not contain unions"],
    ["a union with a type twice", ["string", { type: "string", logicalType: "uuid" }], "invalid Avro schema at the top level: union branches 0 and 1 are both string; a union holds each type once (named types once per name)"],
    ["a union with two arrays", [{ type: "array", items: "int" }, { type: "array", items: "long" }], "invalid Avro schema at the top level: union branches 0 and 1 are both array; a union holds each type once (named types once per name)"],
    ["a bad union branch", ["null", 7], "invalid Avro schema at the top level (union branch 1): a schema is a type name, an object or an array (a union), not 7"],
    ["an enum without symbols", { type: "enum", name: "E" }, 'invalid Avro schema at E: an enum needs a "symbols" array of strings'],
    ["an invalid symbol", { type: "enum", name: "E", symbols: ["ok", "not ok"] }, 'invalid Avro schema at E: enum symbol "not ok" is not a valid name ([A-Za-z_][A-Za-z0-9_]*)'],
    ["a symbol twice", { type: "enum", name: "E", symbols: ["A", "A"] }, 'invalid Avro schema at E: enum symbol "A" appears twice'],
    ["an enum default that is not a symbol", { type: "enum", name: "E", symbols: ["A"], default: "B" }, 'invalid Avro schema at E: the enum\'s default "B" is not one of its symbols'],
    ["a fixed without size", { type: "fixed", name: "F" }, 'invalid Avro schema at F: a fixed needs a "size" that is a whole number of bytes, got nothing'],
    ["a negative fixed size", { type: "fixed", name: "F", size: -1 }, 'invalid Avro schema at F: a fixed needs a "size" that is a whole number of bytes, got -1'],
    ["a nested type that is an object", { type: { type: "int" } }, 'invalid Avro schema at the top level: the schema object\'s "type" must be a string, got {"type":"int"}'],
  ];
  it.each(cases)("%s", (_, schema, message) => {
    expect(() => parseAvroSchema(schema as object)).toThrow(new AnalysisError(message));
  });
});

describe("Parsing Canonical Form and fingerprints", () => {
  it("strips everything but name, type, fields, symbols, items, values and size, orders them, and uses full names", () => {
    const schema = parseAvroSchema(`{
      "type": "record", "namespace": "com.acme", "name": "Order", "doc": "an order", "aliases": ["Sale"],
      "fields": [
        {"name": "id", "type": {"type": "long", "logicalType": "timestamp-millis"}, "default": 0, "doc": "x"},
        {"name": "suit", "type": {"symbols": ["A", "B"], "type": "enum", "name": "Suit", "default": "A"}},
        {"name": "again", "type": "Suit"},
        {"name": "hash", "type": {"size": 4, "name": "Hash", "type": "fixed"}},
        {"name": "tags", "type": {"items": {"type": "string"}, "type": "array"}},
        {"name": "attrs", "type": {"values": "Hash", "type": "map"}},
        {"name": "next", "type": ["null", "Order"]}
      ]
    }`);
    expect(canonicalForm(schema)).toBe(
      '{"name":"com.acme.Order","type":"record","fields":[{"name":"id","type":"long"},' +
        '{"name":"suit","type":{"name":"com.acme.Suit","type":"enum","symbols":["A","B"]}},{"name":"again","type":"com.acme.Suit"},' +
        '{"name":"hash","type":{"name":"com.acme.Hash","type":"fixed","size":4}},{"name":"tags","type":{"type":"array","items":"string"}},' +
        '{"name":"attrs","type":{"type":"map","values":"com.acme.Hash"}},{"name":"next","type":["null","com.acme.Order"]}]}',
    );
  });

  it("fingerprints with CRC-64-AVRO", () => {
    expect(rabinFingerprint64(new Uint8Array(0))).toBe(0xc15d213aa4d7a795n);
    expect(schemaFingerprint64(parseAvroSchema('"null"'))).toBe(0x63dd24e7cc258f8an);
    // Whitespace, attribute order and doc do not change the fingerprint; the field order does.
    const a = parseAvroSchema('{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}');
    const b = parseAvroSchema('{ "fields": [ {"type": "int", "name": "a", "doc": "d"}, {"name": "b", "type": {"type": "string"}} ], "name": "R", "type": "record" }');
    const c = parseAvroSchema('{"type":"record","name":"R","fields":[{"name":"b","type":"string"},{"name":"a","type":"int"}]}');
    expect(schemaFingerprint64(a)).toBe(schemaFingerprint64(b));
    expect(schemaFingerprint64(a)).not.toBe(schemaFingerprint64(c));
  });
});
