import avro from "avsc";
import { describe, expect, it } from "vitest";
import { binaryColumn, boolColumn, field, makeBatch, utf8FromStrings, validityFromBytes, windowColumn } from "../../batch/batch.js";
import { float64Column, int32Column, int64Column, timestampColumn } from "../../batch/numeric-columns.js";
import type { Fields } from "../../types/dtype.js";
import { seededRandom } from "../test-rows.js";
import { avroSchemaOfFields } from "./avro-columns.js";
import { encodeAvroValues } from "./avro-encode.js";
import { parseAvroSchema } from "./avro-schema.js";
import { decodeRows } from "./test-support.js";

/**
 * The decoder and the encoder against avsc, a maintained JavaScript Avro library: seeded random
 * records of a schema with every type Sluice reads (and compound fields it skips), encoded by avsc
 * and decoded here, and random batches encoded here and decoded by avsc. avsc keeps logical types
 * as their underlying values (no logical type implementations are registered), so the expected
 * columns are computed from those values by the mapping's rules. Its longs are JavaScript numbers
 * and it zig-zags them in doubles, which loses the sign of negative values beyond 2^52, so longs
 * stay within ±2^52 here (avro-values.test.ts and avro-encode.test.ts cover the whole int64 range).
 */

const writerSchema = {
  type: "record",
  name: "Every",
  namespace: "com.acme",
  fields: [
    { name: "b", type: "boolean" },
    { name: "i", type: "int" },
    { name: "tags", type: { type: "array", items: "string" } },
    { name: "l", type: "long" },
    { name: "f", type: "float" },
    { name: "d", type: "double" },
    { name: "attrs", type: { type: "map", values: ["null", "int"] } },
    { name: "s", type: "string" },
    { name: "y", type: "bytes" },
    { name: "x", type: { type: "fixed", name: "Hash", size: 4 } },
    { name: "inner", type: { type: "record", name: "Inner", fields: [{ name: "a", type: "int" }, { name: "n", type: ["null", "string"] }] } },
    { name: "e", type: { type: "enum", name: "Suit", symbols: ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"] } },
    { name: "u", type: { type: "string", logicalType: "uuid" } },
    { name: "tms", type: { type: "long", logicalType: "timestamp-millis" } },
    { name: "tus", type: { type: "long", logicalType: "timestamp-micros" } },
    { name: "lts", type: { type: "long", logicalType: "local-timestamp-millis" } },
    { name: "day", type: { type: "int", logicalType: "date" } },
    { name: "ns", type: ["null", "string"] },
    { name: "nd", type: ["double", "null"] },
    { name: "nl", type: ["null", "long"] },
    { name: "il", type: ["int", "long"] },
    { name: "hashes", type: { type: "array", items: "Hash" } },
  ],
};

const columns: Fields = [
  field("b", "boolean", false),
  field("i", "int32", false),
  field("l", "int64", false),
  field("f", "float64", false),
  field("d", "float64", false),
  field("s", "string", false),
  field("y", "binary", false),
  field("x", "binary", false),
  field("e", "string", false),
  field("u", "string", false),
  field("tms", "timestamp", false),
  field("tus", "timestamp", false),
  field("lts", "timestamp", false),
  field("day", "timestamp", false),
  field("ns", "string"),
  field("nd", "float64"),
  field("nl", "int64"),
  field("il", "int64", false),
];

type Random = () => number;
const pick = <T>(rnd: Random, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const integer = (rnd: Random, limit: number) => Math.floor(rnd() * 2 * limit) - limit;
const TEXTS = ["", "a", "héllo", "中文", "😀 emoji", "x".repeat(200), "quote \" and \\"];
/** The longs avsc writes exactly. */
const LONG_LIMIT = 2 ** 52;
const byteArray = (rnd: Random, n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 256));
/** Doubles of every magnitude, signed zeros and the non-finite ones included. */
const double = (rnd: Random) => pick(rnd, [0, -0, 1.5, Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity, (rnd() - 0.5) * 10 ** integer(rnd, 300)]);

/** A random record as avsc takes it (unions wrapped: `{ branch: value }` or null), and the row Sluice should read. */
function randomRecord(rnd: Random): { value: Record<string, unknown>; row: Record<string, unknown> } {
  const l = integer(rnd, LONG_LIMIT);
  const f = Math.fround(double(rnd));
  const d = double(rnd);
  const s = pick(rnd, TEXTS);
  const y = byteArray(rnd, Math.floor(rnd() * 40));
  const x = byteArray(rnd, 4);
  const e = pick(rnd, ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]);
  const tms = integer(rnd, LONG_LIMIT);
  const tus = integer(rnd, LONG_LIMIT);
  const day = integer(rnd, 100_000_000);
  const ns = rnd() < 0.3 ? null : pick(rnd, TEXTS);
  const nd = rnd() < 0.3 ? null : double(rnd);
  const nl = rnd() < 0.3 ? null : integer(rnd, LONG_LIMIT);
  const il = rnd() < 0.5 ? { int: integer(rnd, 2 ** 31) } : { long: integer(rnd, LONG_LIMIT) };
  const value = {
    b: rnd() < 0.5,
    i: integer(rnd, 2 ** 31),
    tags: Array.from({ length: Math.floor(rnd() * 4) }, () => pick(rnd, TEXTS)),
    l,
    f,
    d,
    attrs: Object.fromEntries(Array.from({ length: Math.floor(rnd() * 3) }, (_, k) => [`k${k}`, rnd() < 0.5 ? null : { int: integer(rnd, 1000) }])),
    s,
    y: Buffer.from(y),
    x: Buffer.from(x),
    inner: { a: integer(rnd, 100), n: rnd() < 0.5 ? null : { string: pick(rnd, TEXTS) } },
    e,
    u: "6f1e3a52-93c9-4b3e-9a4c-2e6a1f0d7b11",
    tms,
    tus,
    lts: tms,
    day,
    ns: ns === null ? null : { string: ns },
    nd: nd === null ? null : { double: nd },
    nl: nl === null ? null : { long: nl },
    il,
    hashes: Array.from({ length: Math.floor(rnd() * 3) }, () => Buffer.from(byteArray(rnd, 4))),
  };
  const iso = (ms: number) => new Date(ms).toISOString();
  const row = {
    b: value.b,
    i: value.i,
    l: BigInt(l),
    f,
    d,
    s,
    y,
    x,
    e,
    u: value.u,
    tms: iso(tms),
    tus: iso(Math.floor(tus / 1000)),
    lts: iso(tms),
    day: iso(day * 86_400_000),
    ns,
    nd,
    nl: nl === null ? null : BigInt(nl),
    il: BigInt(Object.values(il)[0]!),
  };
  return { value, row };
}

describe("decodeAvroValues against avsc", () => {
  it("decodes 2,000 random records avsc encoded, every type read and every compound one skipped", () => {
    const type = avro.Type.forSchema(writerSchema as avro.Schema, { wrapUnions: "always" });
    const rnd = seededRandom(11);
    const generated = Array.from({ length: 2000 }, () => randomRecord(rnd));
    const records = generated.map((g) => new Uint8Array(type.toBuffer(g.value)));
    const { rows, numMalformed } = decodeRows(records, columns, { mode: "FAILFAST", writer: { framing: "plain", schema: parseAvroSchema(writerSchema) } });
    expect(numMalformed).toBe(0);
    // toEqual tells 0 from -0 and NaN from numbers, so float and double bits are compared as well.
    expect(rows).toEqual(generated.map((g) => g.row));
  });

  it("skips an array block in the sized form (a negative count, then the block's bytes), as avsc reads it", () => {
    const schema = { type: "record", name: "R", fields: [{ name: "big", type: { type: "array", items: "string" } }, { name: "after", type: "int" }] };
    // avsc writes one block with a plain count; the same record with that block in the sized form is made from its bytes.
    const type = avro.Type.forSchema(schema as avro.Schema);
    const plainRecord = new Uint8Array(type.toBuffer({ big: ["a", "b", "c"], after: 9 }));
    const items = plainRecord.subarray(1, plainRecord.length - 2); // the three items, between the count and the end marker
    const sized = Uint8Array.from([0x05, items.length * 2, ...items, 0x00, ...plainRecord.subarray(plainRecord.length - 1)]); // count -3, size
    expect(type.fromBuffer(Buffer.from(sized))).toEqual({ big: ["a", "b", "c"], after: 9 });
    expect(decodeRows([sized, plainRecord], [field("after", "int32")], { mode: "FAILFAST", writer: { framing: "plain", schema: parseAvroSchema(schema) } }).rows).toEqual([{ after: 9 }, { after: 9 }]);
  });
});

describe("encodeAvroValues against avsc", () => {
  const fields: Fields = [
    field("i", "int32"),
    field("l", "int64"),
    field("f", "float64"),
    field("b", "boolean"),
    field("s", "string"),
    field("y", "binary"),
    field("t", "timestamp"),
    field("req", "int32", false),
    field("w", "window", false),
  ];

  it("writes 2,000 random rows that avsc reads back as the same values", () => {
    const rnd = seededRandom(23);
    const n = 2000;
    const valid = fields.map((f) => Uint8Array.from({ length: n }, () => (f.nullable && rnd() < 0.2 ? 0 : 1)));
    const nulls = valid.map((v) => validityFromBytes(v, n));
    const ints = Int32Array.from({ length: n }, () => integer(rnd, 2 ** 31));
    const longs = Float64Array.from({ length: n }, () => integer(rnd, LONG_LIMIT));
    const doubles = Float64Array.from({ length: n }, () => double(rnd));
    const bools = Uint8Array.from({ length: n }, () => (rnd() < 0.5 ? 1 : 0));
    const texts = Array.from({ length: n }, (_, i) => (valid[4]![i] ? pick(rnd, TEXTS) : null));
    const blobs = Array.from({ length: n }, () => byteArray(rnd, Math.floor(rnd() * 20)));
    const blobOffsets = new Int32Array(n + 1);
    blobs.forEach((b, i) => (blobOffsets[i + 1] = blobOffsets[i]! + b.length));
    const times = Float64Array.from({ length: n }, () => integer(rnd, LONG_LIMIT));
    const required = Int32Array.from({ length: n }, () => integer(rnd, 64));
    const starts = Float64Array.from({ length: n }, () => integer(rnd, 1e12));
    const batch = makeBatch(fields, [
      int32Column(ints, nulls[0]!.bitmap, nulls[0]!.nullCount),
      int64Column(BigInt64Array.from(longs, (v) => BigInt(v)), nulls[1]!.bitmap, nulls[1]!.nullCount),
      float64Column(doubles, nulls[2]!.bitmap, nulls[2]!.nullCount),
      boolColumn(bools, nulls[3]!.bitmap, nulls[3]!.nullCount),
      utf8FromStrings(texts),
      binaryColumn(blobOffsets, Uint8Array.from(blobs.flat()), nulls[5]!.bitmap, nulls[5]!.nullCount),
      timestampColumn(times, nulls[6]!.bitmap, nulls[6]!.nullCount),
      int32Column(required),
      windowColumn(starts, starts.map((s) => s + 10_000)),
    ]);
    const { offsets, bytes } = encodeAvroValues(batch);
    const type = avro.Type.forSchema(avroSchemaOfFields(fields) as avro.Schema);
    const decoded = Array.from({ length: n }, (_, i) => ({ ...(type.fromBuffer(Buffer.from(bytes.subarray(offsets[i]!, offsets[i + 1]!))) as Record<string, unknown>) }));
    const orNull = (c: number, i: number, v: unknown) => (valid[c]![i] ? v : null);
    const expected = Array.from({ length: n }, (_, i) => ({
      i: orNull(0, i, ints[i]),
      l: orNull(1, i, longs[i]),
      f: orNull(2, i, doubles[i]),
      b: orNull(3, i, bools[i] === 1),
      s: texts[i],
      y: orNull(5, i, Buffer.from(blobs[i]!)),
      t: orNull(6, i, times[i]),
      req: required[i],
      w: { start: starts[i], end: starts[i]! + 10_000 },
    }));
    expect(decoded.map((r) => ({ ...r, w: { ...(r.w as object) } }))).toEqual(expected);
  });
});
