import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { field, makeBatch, utf8FromStrings } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import type { DType } from "../types/dtype.js";
import { gatherColumn, takeRows } from "./gather.js";

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

const pick = Int32Array.of(4, 0, 1, 1);

describe("gatherColumn", () => {
  // Row 3 is null in every case. The column is sliced to rows 2..6, so `pick` (4, 0, 1, 1) takes
  // original rows 6, 2, 3, 3.
  const cases: [DType, unknown[], unknown[]][] = [
    ["float64", [0.5, 1.5, 2.5, null, 4.5, 5.5, 6.5, 7.5], [6.5, 2.5, null, null]],
    ["int32", [0, 1, 2, null, 4, 5, 6, 7], [6, 2, null, null]],
    ["int64", [0, -1, 2 ** 40, null, -(2 ** 50), 5, 2 ** 52 + 1, 7], [2 ** 52 + 1, 2 ** 40, null, null]],
    ["boolean", [true, true, false, null, false, false, true, false], [true, false, null, null]],
    ["string", ["zero", "one", "twö", null, "four", "", "six😀", "seven"], ["six😀", "twö", null, null]],
  ];

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
    const w = (s: number) => ({ start: new Date(s), end: new Date(s + 10) });
    const sliced = columnOf("window", [w(0), w(10), null, w(30)]).slice(1, 3);
    const out = gatherColumn(sliced, Int32Array.of(2, 1, 0));
    expect(valuesOf(out, "window")).toEqual([w(30), null, w(10)]);
  });

  it("keeps a dictionary column encoded, sharing its dictionary", () => {
    const dictionary = arrow.makeVector(utf8FromStrings(["red", "green", "blue"]));
    const data = arrow.makeData({ type: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()), length: 4, data: Int32Array.of(2, 0, 1, 2), dictionary });
    const out = gatherColumn(data.slice(1, 3), Int32Array.of(1, 0, 1));
    expect(out.dictionary).toBe(dictionary);
    expect(valuesOf(out, "string")).toEqual(["green", "red", "green"]);
  });

  it("returns an empty column for no indices", () => {
    expect(gatherColumn(columnOf("string", ["a", "b"]), new Int32Array(0)).length).toBe(0);
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
