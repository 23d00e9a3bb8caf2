import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { boolColumn, float64Column, int32Column, readString, timestampColumn, utf8FromStrings, validityFromBytes, windowColumn } from "../batch/batch.js";
import { int64Column } from "../batch/numeric-columns.js";
import { NumericRangeError } from "../errors/errors.js";
import { keyViewOf, sortedRowOrder, takeView, viewOf, viewToArrow, type ColumnView } from "./hash-table-columns.js";
import { decodeKeys } from "./hash-table-key-decode.js";
import { KeyEncoder } from "./hash-table-keys.js";
import { KeyHashTable } from "./hash-table.js";

/** Groups rows by the given key columns in a fresh table: (group per row, table). */
function group(views: ColumnView[], n: number, table = new KeyHashTable()) {
  const keys = new KeyEncoder().encode(
    views.map((view) => ({ view, rows: null })),
    n,
  );
  const out = new Int32Array(n);
  const isNew = new Uint8Array(n);
  table.findOrInsert(keys, out, isNew);
  return { groups: Array.from(out), isNew: Array.from(isNew), table };
}

/** A packed validity bitmap from one 0 / 1 per row. */
const nulls = (valid: number[]) => validityFromBytes(Uint8Array.from(valid), valid.length).bitmap;

describe("KeyHashTable", () => {
  it("groups each key type, nulls forming a group of their own", () => {
    const s = viewOf(utf8FromStrings(["a", null, "a", "héllo", null, ""]), "string");
    expect(group([s], 6).groups).toEqual([0, 1, 0, 2, 1, 3]);
    const x = viewOf(float64Column(Float64Array.of(1.5, 0, 1.5, -0, NaN, NaN, 2), nulls([1, 1, 1, 1, 1, 1, 0])), "float64");
    // -0 groups with 0 and every NaN with every other NaN, as in Spark.
    expect(group([x], 7).groups).toEqual([0, 1, 0, 1, 2, 2, 3]);
    const i = viewOf(int32Column(Int32Array.of(7, -7, 7)), "int32");
    expect(group([i], 3).groups).toEqual([0, 1, 0]);
    const b = viewOf(boolColumn(Uint8Array.of(1, 0, 1, 0), nulls([1, 1, 1, 0])), "boolean");
    expect(group([b], 4).groups).toEqual([0, 1, 0, 2]);
    const t = viewOf(timestampColumn(Float64Array.of(1_700_000_000_000, -5, 1_700_000_000_000)), "timestamp");
    expect(group([t], 3).groups).toEqual([0, 1, 0]);
    const w = viewOf(windowColumn(Float64Array.of(0, 0, 10), Float64Array.of(10, 20, 20)), "window");
    expect(group([w], 3).groups).toEqual([0, 1, 2]);
  });

  it("reads dictionary-encoded strings by their values", () => {
    const dict = arrow.vectorFromArray(["b", "a", null, "b"], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())).data[0]!;
    const view = viewOf(dict, "string");
    expect(group([view], 4).groups).toEqual([0, 1, 2, 0]);
    const plain = viewOf(utf8FromStrings(["a", "b"]), "string");
    // The same strings, plain or dictionary-encoded, give the same keys.
    const both = new KeyHashTable();
    group([view], 4, both);
    expect(group([plain], 2, both).groups).toEqual([1, 0]);
    const taken = viewToArrow(takeView(view, Int32Array.of(3, 2)), "string");
    expect([readString(taken, 0), readString(taken, 1)]).toEqual(["b", null]);
  });

  it("reads sliced columns from their first row", () => {
    const s = utf8FromStrings(["x", "a", null, "a"]).slice(1, 3);
    const n = float64Column(Float64Array.of(9, 1, 2, 1), nulls([1, 1, 0, 1])).slice(1, 3);
    const views = [viewOf(s, "string"), viewOf(n, "float64")];
    const { table, groups } = group(views, 3);
    expect(groups).toEqual([0, 1, 0]);
    const [strings, numbers] = decodeKeys(table.keyArena, table.keyStarts, Int32Array.of(0, 1), ["string", "number"]);
    const back = viewToArrow(strings!, "string");
    expect([readString(back, 0), readString(back, 1), numbers]).toEqual(["a", null, { kind: "number", values: Float64Array.of(1, 0), valid: Uint8Array.of(1, 0) }]);
  });

  it("groups composite keys, where a null in one column differs from an empty string", () => {
    const a = viewOf(utf8FromStrings(["x", "x", "x", null, ""]), "string");
    const n = viewOf(float64Column(Float64Array.of(1, 2, 1, 1, 1)), "float64");
    const { groups, isNew } = group([a, n], 5);
    expect(groups).toEqual([0, 1, 0, 2, 3]);
    expect(isNew).toEqual([1, 1, 0, 1, 1]);
  });

  it("keeps every one of 200k keys through many doublings, and finds them again", () => {
    const n = 200_000;
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) values[i] = (i * 7919) % n;
    const view = viewOf(float64Column(values), "float64");
    const table = new KeyHashTable(4);
    const first = group([view], n, table);
    expect(table.size).toBe(n);
    const second = group([view], n, table);
    expect(second.groups).toEqual(first.groups);
    expect(second.isNew.every((v) => v === 0)).toBe(true);
    // Group ids follow first appearance.
    expect(first.groups.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
  });

  it("decodes keys back into columns of every type", () => {
    const s = utf8FromStrings(["b", null, "ü"]);
    const n = float64Column(Float64Array.of(1, 2, 3), nulls([1, 0, 1]));
    const w = windowColumn(Float64Array.of(0, 10, 20), Float64Array.of(10, 20, 30));
    const views = [viewOf(s, "string"), viewOf(n, "float64"), viewOf(w, "window")];
    const { table } = group(views, 3);
    const decoded = decodeKeys(table.keyArena, table.keyStarts, Int32Array.of(2, 0, 1), ["string", "number", "window"]);
    const back = viewToArrow(decoded[0]!, "string");
    expect([0, 1, 2].map((i) => readString(back, i))).toEqual(["ü", "b", null]);
    expect(decoded[1]).toEqual({ kind: "number", values: Float64Array.of(3, 1, 0), valid: Uint8Array.of(1, 1, 0) });
    expect(decoded[2]).toEqual({ kind: "window", starts: Float64Array.of(20, 0, 10), ends: Float64Array.of(30, 10, 20) });
  });

  it("removes keys with tombstones, then compacts and clones without losing live keys", () => {
    const view = viewOf(float64Column(Float64Array.from({ length: 1000 }, (_, i) => i)), "float64");
    const { table } = group([view], 1000);
    for (let g = 0; g < 1000; g += 2) table.remove(g);
    expect(table.size).toBe(500);
    const copy = table.clone();
    const mapping = table.compact()!;
    expect(mapping[1]).toBe(0);
    expect(mapping[0]).toBe(-1);
    expect(table.groupCount).toBe(500);
    // Odd keys are found under their new ids; even keys are new again.
    const again = group([view], 1000, table);
    expect(again.groups.slice(0, 4)).toEqual([500, 0, 501, 1]);
    // The clone taken before compaction is independent and still has the old numbering.
    const inCopy = group([view], 4, copy);
    expect(inCopy.groups).toEqual([1000, 1, 1001, 3]);
  });

  it("groups int64 keys beyond 2^53 by their exact value, orders them and decodes them back exactly", () => {
    const TWO_53 = 2n ** 53n;
    const ids = [TWO_53 + 1n, TWO_53, TWO_53 + 1n, -(TWO_53 + 1n), 7n, 0n];
    const column = int64Column(BigInt64Array.from(ids), nulls([1, 1, 1, 1, 1, 0]));
    // A view for computing refuses them; a key view keeps them (it used to group 2^53 with 2^53 + 1).
    expect(() => viewOf(column, "int64", "id")).toThrow(NumericRangeError);
    const view = keyViewOf(column, "int64", "id");
    const { groups, table } = group([view], 6);
    expect(groups).toEqual([0, 1, 0, 2, 3, 4]);
    // Keys within the range encode as their double, as before; the table finds them either way.
    expect(group([viewOf(int64Column(BigInt64Array.of(7n)), "int64")], 1, table).groups).toEqual([3]);
    const decoded = decodeKeys(table.keyArena, table.keyStarts, Int32Array.of(0, 1, 2, 3, 4), ["number"]);
    const back = viewToArrow(decoded[0]!, "int64");
    expect(Array.from(back.values as BigInt64Array).slice(0, 4)).toEqual([TWO_53 + 1n, TWO_53, -(TWO_53 + 1n), 7n]);
    expect(back.nullCount).toBe(1);
    // Ordering reads the words too: nulls first, then -(2^53 + 1), 7, 2^53, 2^53 + 1 (twice).
    expect(Array.from(sortedRowOrder([view], 6))).toEqual([5, 3, 4, 1, 0, 2]);
    const taken = viewToArrow(takeView(view, Int32Array.of(2, -1, 3)), "int64");
    expect([Array.from(taken.values as BigInt64Array), taken.nullCount]).toEqual([[TWO_53 + 1n, 0n, -(TWO_53 + 1n)], 1]);
  });

  it("takes rows of views, yielding nulls for row -1", () => {
    const s = viewOf(utf8FromStrings(["a", "bb", null]), "string");
    const taken = viewToArrow(takeView(s, Int32Array.of(1, -1, 2, 0)), "string");
    expect([0, 1, 2, 3].map((i) => readString(taken, i))).toEqual(["bb", null, null, "a"]);
  });
});
