import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { AnalysisError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import { field, makeBatch, utf8FromStrings } from "./batch.js";
import { concatBatches } from "./concat.js";
import { batchToRows, rowsToBatch } from "./rows.js";

const fields: Fields = [
  field("s", "string"),
  field("x", "float64"),
  field("i", "int32"),
  field("l", "int64"),
  field("b", "boolean"),
  field("t", "timestamp"),
  field("w", "window"),
  field("y", "binary"),
  field("h", "headers"),
];
const win = (s: number) => ({ start: new Date(s), end: new Date(s + 5) });
const bytes = (...b: number[]) => Uint8Array.from(b);
const header = (key: string, ...value: number[]) => ({ key, value: bytes(...value) });
const rowsA = [
  { s: "a", x: 1.5, i: 1, l: 2 ** 40, b: true, t: new Date(1), w: win(0), y: bytes(0xff), h: [header("a", 1), { key: "b", value: null }] },
  { s: null, x: null, i: null, l: null, b: null, t: null, w: null, y: null, h: null },
  { s: "ç", x: -2, i: -2, l: -(2 ** 33), b: false, t: new Date(-5), w: win(10), y: bytes(), h: [] },
];
const rowsB = [
  { s: "d", x: 4, i: 4, l: 4, b: false, t: new Date(4), w: win(20), y: bytes(4, 4), h: [header("d", 4)] },
  { s: "e", x: 5, i: 5, l: 5, b: true, t: new Date(5), w: win(30), y: bytes(5), h: [header("e"), header("e", 5, 5)] },
];

describe("concatBatches", () => {
  it("appends every column type in order, keeping nulls, into fresh arrays", () => {
    const a = rowsToBatch(rowsA, fields);
    const b = rowsToBatch(rowsB, fields);
    const out = concatBatches([a, b]);
    expect(out.numRows).toBe(5);
    expect(batchToRows(out)).toEqual([...rowsA, ...rowsB]);
    expect(out.columns[1].values.buffer).not.toBe(a.columns[1].values.buffer);
    expect(out.columns[0].nullCount).toBe(1);
  });

  it("reads sliced inputs from their offset, bit-level columns included", () => {
    const a = rowsToBatch([...rowsA, ...rowsB], fields);
    const sliced = { fields, numRows: 3, columns: a.columns.map((c) => c.slice(1, 3)) };
    const tail = { fields, numRows: 1, columns: a.columns.map((c) => c.slice(4, 1)) };
    expect(batchToRows(concatBatches([sliced, tail]))).toEqual([rowsA[1], rowsA[2], rowsB[0], rowsB[1]]);
  });

  it("returns an empty batch for no inputs when given the fields, and fails without them", () => {
    const out = concatBatches([], fields);
    expect(out.numRows).toBe(0);
    expect(out.fields).toBe(fields);
    expect(() => concatBatches([])).toThrow(AnalysisError);
  });

  it("converts parts held in other Arrow types exactly: Timestamp(us) floored to ms, Uint64 beyond 2^53 unrounded", () => {
    const f = [field("t", "timestamp"), field("l", "int64")];
    const micros = arrow.makeData({ type: new arrow.TimestampMicrosecond(), length: 2, data: BigInt64Array.of(-1n, 1500n) });
    const unsigned = arrow.makeData({ type: new arrow.Uint64(), length: 2, data: BigUint64Array.of(2n ** 53n + 1n, 1n) });
    const out = concatBatches([makeBatch(f, [micros, unsigned]), rowsToBatch([{ t: new Date(7), l: 3 }], f)]);
    expect(out.columns.map((c) => String(c.type))).toEqual(["Timestamp<MILLISECOND>", "Int64"]);
    expect(Array.from(out.columns[0]!.values as BigInt64Array)).toEqual([-1n, 1n, 7n]);
    expect(Array.from(out.columns[1]!.values as BigInt64Array)).toEqual([2n ** 53n + 1n, 1n, 3n]);
  });

  it("rejects batches whose columns differ", () => {
    const a = rowsToBatch([{ x: 1 }], [field("x", "float64")]);
    const b = rowsToBatch([{ y: 1 }], [field("y", "float64")]);
    expect(() => concatBatches([a, b])).toThrow(/differ/);
  });

  it("keeps strings dictionary-encoded when all inputs share one dictionary, and decodes them otherwise", () => {
    const dictionary = arrow.makeVector(utf8FromStrings(["x", "y"]));
    const type = new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32());
    const encoded = (codes: number[]) => makeBatch([field("c", "string")], [arrow.makeData({ type, length: codes.length, data: Int32Array.from(codes), dictionary })]);
    const shared = concatBatches([encoded([0, 1]), encoded([1])]);
    expect(shared.columns[0].dictionary).toBe(dictionary);
    expect(batchToRows(shared).map((r) => r.c)).toEqual(["x", "y", "y"]);
    const mixed = concatBatches([encoded([1, 0]), rowsToBatch([{ c: "z" }], [field("c", "string")])]);
    expect(mixed.columns[0].type).toBeInstanceOf(arrow.Utf8);
    expect(batchToRows(mixed).map((r) => r.c)).toEqual(["y", "x", "z"]);
  });
});
