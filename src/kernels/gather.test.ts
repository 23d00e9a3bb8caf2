import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { field, makeBatch, utf8FromStrings } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import type { DType } from "../types/dtype.js";
import { gatherBits, gatherColumn, gatherOrNull, takeRows } from "./gather.js";

/** A column of `values` typed `type`, built through rowsToBatch. */
function columnOf(type: DType, values: unknown[]): arrow.Data {
  return rowsToBatch(
    values.map((v) => ({ v })),
    [field("v", type)],
  ).columns[0];
}

function valuesOf(data: arrow.Data, type: DType): unknown[] {
  return batchToRows(makeBatch([field("v", type)], [data])).map((r) => r.v);
}

const b = (...bytes: number[]) => Uint8Array.from(bytes);
/** One header per row, and a row with two (one without a value): lists gather their entries. */
const h = (n: number) => [{ key: `k${n}`, value: b(n) }];
const two = [{ key: "k2", value: null }, { key: "x", value: b(2) }];

const pick = Int32Array.of(4, 0, 1, 1);
const pickOrNull = Int32Array.of(-1, 4, -1, 1, 0, -1);

// Row 3 is null in every case. The column is sliced to rows 2..6, so `pick` (4, 0, 1, 1) takes
// original rows 6, 2, 3, 3 and `pickOrNull` (-1, 4, -1, 1, 0, -1) takes -, 6, -, 3, 2, -.
const cases: [DType, unknown[], unknown[], unknown[]][] = [
  ["float64", [0.5, 1.5, 2.5, null, 4.5, 5.5, 6.5, 7.5], [6.5, 2.5, null, null], [null, 6.5, null, null, 2.5, null]],
  ["int32", [0, 1, 2, null, 4, 5, 6, 7], [6, 2, null, null], [null, 6, null, null, 2, null]],
  ["int64", [0, -1, 2 ** 40, null, -(2 ** 50), 5, 2 ** 52 + 1, 7], [2 ** 52 + 1, 2 ** 40, null, null], [null, 2 ** 52 + 1, null, null, 2 ** 40, null]],
  ["boolean", [true, true, false, null, false, false, true, false], [true, false, null, null], [null, true, null, null, false, null]],
  ["string", ["zero", "one", "twö", null, "four", "", "six😀", "seven"], ["six😀", "twö", null, null], [null, "six😀", null, null, "twö", null]],
  ["binary", [b(0), b(1), b(2, 0xff), null, b(4), b(), b(6, 6, 6), b(7)], [b(6, 6, 6), b(2, 0xff), null, null], [null, b(6, 6, 6), null, null, b(2, 0xff), null]],
  ["headers", [h(0), h(1), two, null, h(4), h(5), [], h(7)], [[], two, null, null], [null, [], null, null, two, null]],
];

const w = (s: number) => ({ start: new Date(s), end: new Date(s + 10) });

/** A dictionary column over "red", "green", "blue" with the given codes. */
function dictionaryOf(codes: number[]): { data: arrow.Data; dictionary: arrow.Vector } {
  const dictionary = arrow.makeVector(utf8FromStrings(["red", "green", "blue"]));
  const type = new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32());
  return { data: arrow.makeData({ type, length: codes.length, data: Int32Array.from(codes), dictionary }), dictionary };
}

describe("gatherColumn", () => {
  for (const [type, input, expected] of cases) {
    it(`takes ${type} rows from a sliced column, keeping nulls`, () => {
      const sliced = columnOf(type, input).slice(2, 5);
      expect(valuesOf(sliced, type)).toEqual(input.slice(2, 7));
      const out = gatherColumn(sliced, pick);
      expect(out.offset).toBe(0);
      expect(valuesOf(out, type)).toEqual(expected);
      expect(out.nullCount).toBe(2);
    });
  }

  it("takes timestamps as 64-bit words, exactly, also before 1970", () => {
    const times = [new Date(-1), new Date(1_700_000_000_123), new Date(0)];
    const out = gatherColumn(columnOf("timestamp", times), Int32Array.of(2, 0, 1));
    expect(out.type).toBeInstanceOf(arrow.TimestampMillisecond);
    expect(valuesOf(out, "timestamp")).toEqual([new Date(0), new Date(-1), new Date(1_700_000_000_123)]);
  });

  it("takes window structs from a sliced column, child by child", () => {
    const sliced = columnOf("window", [w(0), w(10), null, w(30)]).slice(1, 3);
    const out = gatherColumn(sliced, Int32Array.of(2, 1, 0));
    expect(valuesOf(out, "window")).toEqual([w(30), null, w(10)]);
  });

  it("keeps a dictionary column encoded, sharing its dictionary", () => {
    const { data, dictionary } = dictionaryOf([2, 0, 1, 2]);
    const out = gatherColumn(data.slice(1, 3), Int32Array.of(1, 0, 1));
    expect(out.dictionary).toBe(dictionary);
    expect(valuesOf(out, "string")).toEqual(["green", "red", "green"]);
  });

  it("returns an empty column for no indices", () => {
    expect(gatherColumn(columnOf("string", ["a", "b"]), new Int32Array(0)).length).toBe(0);
  });
});

describe("gatherOrNull", () => {
  for (const [type, input, , expected] of cases) {
    it(`takes ${type} rows from a sliced column, -1 giving a null row`, () => {
      const out = gatherOrNull(columnOf(type, input).slice(2, 5), pickOrNull);
      expect(out.offset).toBe(0);
      expect(valuesOf(out, type)).toEqual(expected);
      expect(out.nullCount).toBe(4);
    });
  }

  it("is gatherColumn when no index is -1, adding no validity", () => {
    const data = columnOf("float64", [0.5, 1.5, 2.5]);
    const out = gatherOrNull(data, Int32Array.of(2, 0, 0));
    expect(valuesOf(out, "float64")).toEqual([2.5, 0.5, 0.5]);
    expect(out.nullCount).toBe(0);
    expect(out.nullBitmap).toBeUndefined();
  });

  it("leaves null rows zero, false and empty, reading no bit before a sliced column's first row", () => {
    // Every bit of the source is set, bit offset 3 included, so a -1 read as bit `offset - 1` would show.
    const bools = gatherOrNull(columnOf("boolean", Array(12).fill(true)).slice(3, 6), Int32Array.of(-1, 0, -1, 5));
    expect(Array.from(bools.values as Uint8Array)).toEqual([0b1010]);
    expect(Array.from(bools.nullBitmap!)).toEqual([0b1010]);
    const longs = gatherOrNull(columnOf("int64", [-1, 2 ** 40 + 7]), Int32Array.of(1, -1, 0));
    const words = new Int32Array((longs.values as BigInt64Array).buffer);
    expect(Array.from(words)).toEqual([7, 256, 0, 0, -1, -1]);
    const doubles = gatherOrNull(columnOf("float64", [0.5, 1.5]), Int32Array.of(-1, 1, -1));
    expect(Array.from(doubles.values as Float64Array)).toEqual([0, 1.5, 0]);
    const long = "x".repeat(40);
    const strings = gatherOrNull(columnOf("string", ["ab", "cdé", long, "f"]).slice(1, 3), Int32Array.of(-1, 0, -1, 2, 1, 0));
    expect(Array.from(strings.valueOffsets)).toEqual([0, 0, 4, 4, 5, 45, 49]);
    expect(new TextDecoder().decode(strings.values as Uint8Array)).toBe(`cdéf${long}cdé`);
  });

  it("checks -1 before the validity offset: the row before a sliced column's first row may be valid", () => {
    // Bit `offset + i` for i = -1 is row 1 of the source, which is valid.
    expect(gatherBits(Uint8Array.of(0xff), 2, Int32Array.of(-1, 0), true)).toEqual({ bits: Uint8Array.of(0b10), zeros: 1 });
    const out = gatherOrNull(columnOf("int32", [1, 2, null, 4]).slice(2, 2), Int32Array.of(-1, 1, 0));
    expect(valuesOf(out, "int32")).toEqual([null, 4, null]);
    expect(Array.from(out.nullBitmap!)).toEqual([0b010]);
  });

  it("takes timestamps as 64-bit words, -1 giving null", () => {
    const out = gatherOrNull(columnOf("timestamp", [new Date(-1), new Date(1_700_000_000_123)]), Int32Array.of(1, -1, 0));
    expect(out.type).toBeInstanceOf(arrow.TimestampMillisecond);
    expect(valuesOf(out, "timestamp")).toEqual([new Date(1_700_000_000_123), null, new Date(-1)]);
  });

  it("takes window structs child by child, -1 giving a null struct with null children", () => {
    const sliced = columnOf("window", [w(0), w(10), null, w(30)]).slice(1, 3);
    const out = gatherOrNull(sliced, Int32Array.of(2, -1, 1, 0));
    expect(valuesOf(out, "window")).toEqual([w(30), null, null, w(10)]);
    expect(out.nullCount).toBe(2);
    expect(out.children.map((c) => c.nullCount)).toEqual([1, 1]);
  });

  it("keeps a dictionary column encoded, sharing its dictionary, -1 giving null", () => {
    const { data, dictionary } = dictionaryOf([2, 0, 1, 2]);
    const out = gatherOrNull(data.slice(1, 3), Int32Array.of(1, -1, 0));
    expect(out.dictionary).toBe(dictionary);
    expect(Array.from(out.values as Int32Array)).toEqual([1, 0, 0]);
    expect(valuesOf(out, "string")).toEqual(["green", null, "red"]);
  });

  it("gives an all-null column from an empty one when every index is -1", () => {
    const empty: [DType, arrow.Data][] = [
      ...cases.map(([type]): [DType, arrow.Data] => [type, columnOf(type, [])]),
      ["timestamp", columnOf("timestamp", [])],
      ["window", columnOf("window", [])],
      ["string", dictionaryOf([]).data],
      // Arrow's own empty Utf8 column has no offsets at all.
      ["string", arrow.makeData({ type: new arrow.Utf8(), length: 0 })],
    ];
    for (const [type, data] of empty) {
      const out = gatherOrNull(data, Int32Array.of(-1, -1, -1));
      expect(out.type).toBe(data.type);
      expect(out.length).toBe(3);
      expect(out.nullCount).toBe(3);
      expect(valuesOf(out, type)).toEqual([null, null, null]);
    }
  });

  it("returns an empty column for no indices", () => {
    const out = gatherOrNull(columnOf("string", ["a", "b"]), new Int32Array(0));
    expect(out.length).toBe(0);
    expect(valuesOf(out, "string")).toEqual([]);
  });
});

describe("takeRows", () => {
  it("reorders every column of a batch and may repeat rows", () => {
    const batch = rowsToBatch(
      [
        { id: 1, name: "a", at: new Date(1000) },
        { id: 2, name: null, at: new Date(2000) },
      ],
      [field("id", "int32", false), field("name", "string"), field("at", "timestamp")],
    );
    expect(batchToRows(takeRows(batch, Int32Array.of(1, 0, 1)))).toEqual([
      { id: 2, name: null, at: new Date(2000) },
      { id: 1, name: "a", at: new Date(1000) },
      { id: 2, name: null, at: new Date(2000) },
    ]);
  });
});
