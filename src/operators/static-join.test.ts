import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import {
  boolColumn,
  emptyBatch,
  field,
  float64Column,
  int32Column,
  makeBatch,
  timestampColumn,
  utf8FromStrings,
  validityFromBytes,
  windowColumn,
  type Batch,
} from "../batch/batch.js";
import { AnalysisError } from "../errors/errors.js";
import type { Field } from "../types/dtype.js";
import { rowsOf, sampleBatch } from "../workers/testing/sample-batch.js";
import type { Expr } from "../expr/ast.js";
import type { StaticJoinMode } from "../planner/physical.js";
import { probeStaticJoin, type StaticProbe } from "./static-join-exec.js";
import { buildStaticJoinTable, staticJoinRebuildCount, type StaticJoinTable } from "./static-join-table.js";

type Value = string | number | boolean | null;

/** A batch from columns of plain values (null = SQL null). */
function batchOf(columns: Record<string, { type: "string" | "float64" | "int32" | "boolean" | "timestamp"; values: Value[] }>): Batch {
  const fields: Field[] = [];
  const data: arrow.Data[] = [];
  for (const [name, { type, values }] of Object.entries(columns)) {
    fields.push(field(name, type));
    const valid = validityFromBytes(Uint8Array.from(values, (v) => (v === null ? 0 : 1)), values.length);
    const nums = () => Float64Array.from(values, (v) => (v === null ? 0 : Number(v)));
    switch (type) {
      case "string":
        data.push(utf8FromStrings(values as (string | null)[]));
        break;
      case "float64":
        data.push(float64Column(nums(), valid.bitmap, valid.nullCount));
        break;
      case "int32":
        data.push(int32Column(Int32Array.from(nums()), valid.bitmap, valid.nullCount));
        break;
      case "boolean":
        data.push(boolColumn(Uint8Array.from(nums()), valid.bitmap, valid.nullCount));
        break;
      case "timestamp":
        data.push(timestampColumn(nums(), valid.bitmap, valid.nullCount));
        break;
    }
  }
  return makeBatch(fields, data);
}

const col = (name: string): Expr => ({ kind: "col", name });

/** A join on columns named alike on both sides, the stream on the left: the static side's other columns follow the stream's. */
function onColumns(table: StaticJoinTable, keys: readonly string[], mode: StaticJoinMode): StaticProbe {
  const dims = table.batch;
  return {
    mode,
    probeSide: "left",
    probeKeys: keys.map(col),
    probeCondition: null,
    pairCondition: null,
    rightPairNames: dims.fields.map((f) => (keys.includes(f.name) ? `__right_${f.name}` : f.name)),
    buildColumns: dims.fields.flatMap((f, i) => (keys.includes(f.name) ? [] : [i])),
  };
}

/** The static table of `dims` on the columns `keys`. */
function tableOn(dims: Batch, keys: readonly string[]): StaticJoinTable {
  return buildStaticJoinTable(dims, keys.map(col));
}

const str = (...values: (string | null)[]) => ({ type: "string" as const, values });
const f64 = (...values: (number | null)[]) => ({ type: "float64" as const, values });
const i32 = (...values: (number | null)[]) => ({ type: "int32" as const, values });

const cities = batchOf({ city: str("Paris", "Zürich", "東京", "Lyon"), country: str("FR", "CH", "JP", "FR"), pop: f64(2.1, 0.4, 14, null) });

describe("probeStaticJoin", () => {
  it("inner join: stream columns first, then the static side's non-key columns", () => {
    const table = tableOn(cities, ["city"]);
    const stream = batchOf({ id: i32(1, 2, 3, 4), city: str("Lyon", "Berlin", "Paris", "Zürich") });
    const out = probeStaticJoin(stream, table, onColumns(table, ["city"], "inner"));
    expect(out.fields.map((f) => f.name)).toEqual(["id", "city", "country", "pop"]);
    expect(rowsOf(out)).toEqual([
      { id: 1, city: "Lyon", country: "FR", pop: null },
      { id: 3, city: "Paris", country: "FR", pop: 2.1 },
      { id: 4, city: "Zürich", country: "CH", pop: 0.4 },
    ]);
  });

  it("left join: unmatched stream rows get nulls, static columns become nullable", () => {
    const table = tableOn(cities, ["city"]);
    const stream = batchOf({ city: str("Berlin", "東京", null) });
    const out = probeStaticJoin(stream, table, onColumns(table, ["city"], "outer"));
    expect(rowsOf(out)).toEqual([
      { city: "Berlin", country: null, pop: null },
      { city: "東京", country: "JP", pop: 14 },
      { city: null, country: null, pop: null },
    ]);
    expect(out.fields.find((f) => f.name === "country")!.nullable).toBe(true);
  });

  it("keeps the stream's columns as they are when every row matches once", () => {
    const table = tableOn(cities, ["city"]);
    const stream = batchOf({ city: str("Paris", "Lyon") });
    const out = probeStaticJoin(stream, table, onColumns(table, ["city"], "inner"));
    expect(out.columns[0]).toBe(stream.columns[0]);
  });

  it("gives one row per static match, in stream order, matches in static insertion order", () => {
    const dims = batchOf({ k: i32(1, 2, 1, 3, 1), tag: str("a", "b", "c", "d", "e") });
    const table = tableOn(dims, ["k"]);
    const stream = batchOf({ seq: i32(10, 20, 30, 40), k: i32(1, 4, 3, 1) });
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["k"], "inner")))).toEqual([
      { seq: 10, k: 1, tag: "a" },
      { seq: 10, k: 1, tag: "c" },
      { seq: 10, k: 1, tag: "e" },
      { seq: 30, k: 3, tag: "d" },
      { seq: 40, k: 1, tag: "a" },
      { seq: 40, k: 1, tag: "c" },
      { seq: 40, k: 1, tag: "e" },
    ]);
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["k"], "outer"))).map((r) => [r["seq"], r["tag"]])).toEqual([
      [10, "a"], [10, "c"], [10, "e"], [20, null], [30, "d"], [40, "a"], [40, "c"], [40, "e"],
    ]);
  });

  it("never matches null keys, on either side", () => {
    const dims = batchOf({ k: str("x", null, "y"), v: i32(1, 2, 3) });
    const table = tableOn(dims, ["k"]);
    const stream = batchOf({ k: str(null, "y", null, "x") });
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["k"], "inner")))).toEqual([
      { k: "y", v: 3 },
      { k: "x", v: 1 },
    ]);
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["k"], "outer"))).map((r) => r["v"])).toEqual([null, 3, null, 1]);
  });

  it("joins on several key columns, a null in any of them meaning no match", () => {
    const dims = batchOf({ country: str("FR", "FR", "CH", "FR"), year: i32(2020, 2021, 2020, null), gdp: f64(1, 2, 3, 4) });
    const table = tableOn(dims, ["country", "year"]);
    const stream = batchOf({ year: i32(2021, 2020, 2020, null, 2019), country: str("FR", "CH", "FR", "FR", "FR") });
    // Key order in `on` need not follow column order on either side.
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["country", "year"], "outer")))).toEqual([
      { year: 2021, country: "FR", gdp: 2 },
      { year: 2020, country: "CH", gdp: 3 },
      { year: 2020, country: "FR", gdp: 1 },
      { year: null, country: "FR", gdp: null },
      { year: 2019, country: "FR", gdp: null },
    ]);
  });

  it("compares strings by their UTF-8 bytes, dictionary-encoded stream keys included", () => {
    const dims = batchOf({ name: str("café", "cafe\u0301", "naïve", "😀", ""), n: i32(1, 2, 3, 4, 5) });
    const table = tableOn(dims, ["name"]);
    const values = ["😀", "cafe\u0301", "café", "", "naive", "naïve", null];
    const plain = batchOf({ name: str(...values) });
    const dictionary = arrow.vectorFromArray(values, new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())).data[0]!;
    const encoded = makeBatch([field("name", "string")], [dictionary]);
    const expected = [4, 2, 1, 5, null, 3, null];
    expect(rowsOf(probeStaticJoin(plain, table, onColumns(table, ["name"], "outer"))).map((r) => r["n"])).toEqual(expected);
    expect(rowsOf(probeStaticJoin(encoded, table, onColumns(table, ["name"], "outer"))).map((r) => r["n"])).toEqual(expected);
  });

  it("matches numbers as SQL does: NaN = NaN, -0 = 0; timestamps and booleans too", () => {
    const dims = batchOf({ x: f64(Number.NaN, 0, 1.5), tag: str("nan", "zero", "one and a half") });
    const table = tableOn(dims, ["x"]);
    const stream = batchOf({ x: f64(-0, Number.NaN, 1.5, 2) });
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["x"], "outer"))).map((r) => r["tag"])).toEqual(["zero", "nan", "one and a half", null]);

    const events = batchOf({ at: { type: "timestamp", values: [1_700_000_000_000, 5] }, ok: { type: "boolean", values: [true, false] }, label: str("late", "early") });
    const byTime = tableOn(events, ["at", "ok"]);
    const probe = batchOf({ ok: { type: "boolean", values: [false, true, true] }, at: { type: "timestamp", values: [5, 1_700_000_000_000, 5] } });
    expect(rowsOf(probeStaticJoin(probe, byTime, onColumns(byTime, ["at", "ok"], "outer"))).map((r) => r["label"])).toEqual(["early", "late", null]);
  });

  it("carries window columns and sliced stream batches", () => {
    const dims = makeBatch([field("k", "int32"), field("w", "window", false)], [int32Column(Int32Array.of(7, 8)), windowColumn(Float64Array.of(0, 10), Float64Array.of(10, 20))]);
    const table = tableOn(dims, ["k"]);
    const full = batchOf({ k: i32(1, 8, 7, 8) });
    const stream = makeBatch(full.fields, [full.columns[0]!.slice(1, 3)]);
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["k"], "outer")))).toEqual([
      { k: 8, w: { start: 10, end: 20 } },
      { k: 7, w: { start: 0, end: 10 } },
      { k: 8, w: { start: 10, end: 20 } },
    ]);
  });

  it("left join carries every column type from a sliced static side, nulls where unmatched", () => {
    const sample = sampleBatch();
    const dictionary = arrow.vectorFromArray(["x", null, "y", "x", "z"], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())).data[0]!;
    const keyed = makeBatch(
      [field("k", "int32", false), ...sample.fields, field("d", "string")],
      [int32Column(Int32Array.of(10, 11, 12, 13, 14)), ...sample.columns, dictionary],
    );
    // Sliced from row 1, the static side's bitmaps start at bit 1: an unmatched row must not read bit 0
    // (row 10, sliced off, valid everywhere).
    const dims = makeBatch(keyed.fields, keyed.columns.map((c) => c.slice(1, 4)));
    const table = tableOn(dims, ["k"]);
    const stream = batchOf({ k: i32(13, 10, 11, 14) });
    const none = { s: null, f: null, i: null, l: null, b: null, t: null };
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["k"], "outer")))).toEqual([
      { k: 13, s: "日本語", f: Number.NaN, i: 4, l: 9007199254740991n, b: false, t: 86_400_000, w: { start: 30, end: 40 }, d: "x" },
      { k: 10, ...none, w: null, d: null },
      { k: 11, ...none, w: { start: 10, end: 20 }, d: null },
      { k: 14, ...none, s: "", w: { start: 40, end: 50 }, d: "z" },
    ]);
  });

  it("left join against an empty static side gives nulls in every static column", () => {
    const dims = emptyBatch([field("k", "int32"), ...sampleBatch().fields]);
    const table = tableOn(dims, ["k"]);
    const stream = batchOf({ k: i32(1, null) });
    const none = { s: null, f: null, i: null, l: null, b: null, t: null, w: null };
    expect(rowsOf(probeStaticJoin(stream, table, onColumns(table, ["k"], "outer")))).toEqual([
      { k: 1, ...none },
      { k: null, ...none },
    ]);
    expect(probeStaticJoin(stream, table, onColumns(table, ["k"], "inner")).numRows).toBe(0);
  });

  it("rejects keys it cannot compare", () => {
    const dims = makeBatch([field("w", "window", false)], [windowColumn(Float64Array.of(0), Float64Array.of(1))]);
    expect(() => tableOn(dims, ["w"])).toThrow('join key "w" is a window column; join keys must be strings, numbers, booleans or timestamps');
    const table = tableOn(cities, ["city"]);
    expect(() => probeStaticJoin(batchOf({ city: i32(1) }), table, onColumns(table, ["city"], "inner"))).toThrow(
      'join key "city" is a number on the stream side but a string on the static side; cast one side so both match',
    );
    expect(() => probeStaticJoin(batchOf({ country: str("FR") }), table, onColumns(table, ["city"], "inner"))).toThrow(AnalysisError);
  });
});

describe("buildStaticJoinTable", () => {
  it("is plain data in shared memory, rebuilt once per thread however often it is probed", () => {
    const table = tableOn(cities, ["city"]);
    const arrays: ArrayBufferView[] = [table.hash.slots, table.hash.next];
    for (const k of table.keys) arrays.push(...Object.values(k).filter((v): v is ArrayBufferView => ArrayBuffer.isView(v)));
    for (const c of table.batch.columns) arrays.push(...[c.validity, c.valueOffsets, c.values].filter((v): v is NonNullable<typeof v> => v !== null));
    for (const a of arrays) expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);

    // What a worker receives: a structured clone with the same shared memory.
    const received = structuredClone(table) as StaticJoinTable;
    expect(received.hash.slots.buffer).not.toBe(table.hash.slots.buffer);
    const before = staticJoinRebuildCount();
    const stream = batchOf({ city: str("Zürich") });
    for (let i = 0; i < 3; i++) {
      const again = structuredClone(table) as StaticJoinTable;
      expect(rowsOf(probeStaticJoin(stream, again, onColumns(again, ["city"], "inner")))).toEqual([{ city: "Zürich", country: "CH", pop: 0.4 }]);
    }
    expect(staticJoinRebuildCount() - before).toBe(1);
  });

  it("joins a 100k-row static side against 300k stream rows, matching a reference", () => {
    const n = 100_000;
    const keys = Array.from({ length: n }, (_, i) => `k${(i * 7919) % n}-ü`);
    const dims = batchOf({ key: { type: "string", values: keys }, id: { type: "int32", values: keys.map((_, i) => i) }, score: { type: "float64", values: keys.map((_, i) => i / 2) } });
    let start = performance.now();
    const table = tableOn(dims, ["key"]);
    const buildMs = performance.now() - start;
    const m = 300_000;
    const probes = Array.from({ length: m }, (_, i) => (i % 10 === 0 ? `missing${i}` : keys[(i * 31) % n]!));
    const stream = batchOf({ seq: { type: "int32", values: probes.map((_, i) => i) }, key: { type: "string", values: probes } });
    start = performance.now();
    const out = probeStaticJoin(stream, table, onColumns(table, ["key"], "outer"));
    const probeMs = performance.now() - start;
    expect(out.numRows).toBe(m);
    const ids = out.columns[2]!.values as Int32Array;
    const index = new Map(keys.map((k, i) => [k, i]));
    for (let i = 0; i < m; i += 997) expect(out.columns[2]!.getValid(i) ? ids[i] : null).toBe(index.get(probes[i]!) ?? null);
    expect(out.columns[2]!.nullCount).toBe(m / 10);
    console.log(`static join: build ${n} rows ${buildMs.toFixed(1)} ms, probe ${m} rows ${probeMs.toFixed(1)} ms`);
  });
});

describe("probeStaticJoin with conditions, every mode, against a row-by-row reference", () => {
  // Small keys with nulls, so keys repeat on both sides and some never match.
  const pick = <T>(i: number, values: readonly T[]): T => values[(i * 7 + 3) % values.length]!;
  const streamRows = Array.from({ length: 300 }, (_, i) => ({ k: pick(i, [1, 2, 3, null, 4]), v: (i * 13) % 10, s: i }));
  const staticRows = Array.from({ length: 40 }, (_, i) => ({ k: pick(i + 1, [1, 1, 2, null, 5]), w: (i * 7) % 10, t: `t${i}` }));
  const stream = batchOf({ k: i32(...streamRows.map((r) => r.k)), v: i32(...streamRows.map((r) => r.v)), s: i32(...streamRows.map((r) => r.s)) });
  const dims = batchOf({ k: i32(...staticRows.map((r) => r.k)), w: i32(...staticRows.map((r) => r.w)), t: str(...staticRows.map((r) => r.t)) });
  // The condition: stream.k = static.k AND stream.v < static.w AND stream.s % 3 != 0 (the stream's own part).
  const pairCondition: Expr = { kind: "cmp", op: "<", left: col("v"), right: col("w") };
  const probeCondition: Expr = { kind: "cmp", op: "!=", left: { kind: "arith", op: "%", left: col("s"), right: { kind: "lit", value: 3, type: "int32" } }, right: { kind: "lit", value: 0, type: "int32" } };
  const passes = (r: (typeof streamRows)[number], d: (typeof staticRows)[number], keyed: boolean) =>
    (!keyed || (r.k !== null && r.k === d.k)) && r.v < d.w && r.s % 3 !== 0;

  function reference(mode: StaticJoinMode, keyed: boolean): Record<string, unknown>[] {
    return streamRows.flatMap((r) => {
      const matches = staticRows.filter((d) => passes(r, d, keyed));
      const own = { k: r.k, v: r.v, s: r.s };
      switch (mode) {
        case "semi":
          return matches.length > 0 ? [own] : [];
        case "anti":
          return matches.length > 0 ? [] : [own];
        case "inner":
          return matches.map((d) => ({ ...own, w: d.w, t: d.t }));
        case "outer":
          return matches.length > 0 ? matches.map((d) => ({ ...own, w: d.w, t: d.t })) : [{ ...own, w: null, t: null }];
      }
    });
  }

  const probe = (mode: StaticJoinMode, keyed: boolean): StaticProbe => ({
    mode,
    probeSide: "left",
    probeKeys: keyed ? [col("k")] : [],
    probeCondition,
    pairCondition,
    rightPairNames: ["__right_k", "w", "t"],
    buildColumns: [1, 2],
  });

  it.each(["inner", "outer", "semi", "anti"] as const)("%s: keys from an equality, the stream's own part, a residual per pair", (mode) => {
    const table = buildStaticJoinTable(dims, [col("k")]);
    expect(rowsOf(probeStaticJoin(stream, table, probe(mode, true)))).toEqual(reference(mode, true));
  });

  it.each(["inner", "outer", "semi", "anti"] as const)("%s without keys: a nested loop, a range of stream rows at a time", (mode) => {
    const table = buildStaticJoinTable(dims, []);
    expect(rowsOf(probeStaticJoin(stream, table, probe(mode, false)))).toEqual(reference(mode, false));
    // 40 static rows: 1638 stream rows per range of 65536 pairs, so 4200 stream rows span three ranges.
    const repeated = Array.from({ length: 14 }, () => streamRows).flat();
    const big = batchOf({ k: i32(...repeated.map((r) => r.k)), v: i32(...repeated.map((r) => r.v)), s: i32(...repeated.map((r) => r.s)) });
    const expected = Array.from({ length: 14 }, () => reference(mode, false)).flat();
    expect(rowsOf(probeStaticJoin(big, table, probe(mode, false)))).toEqual(expected);
  });

  it("the stream on the right: the static side's columns first, under their own names, the stream's under their pair names", () => {
    const table = buildStaticJoinTable(dims, [col("k")]);
    const mirrored: StaticProbe = { ...probe("outer", true), probeSide: "right", rightPairNames: ["__right_k", "v", "s"], buildColumns: [0, 1, 2] };
    const out = probeStaticJoin(stream, table, mirrored);
    expect(out.fields.map((f) => [f.name, f.nullable])).toEqual([
      ["k", true],
      ["w", true],
      ["t", true],
      ["__right_k", true],
      ["v", true],
      ["s", true],
    ]);
    expect(rowsOf(out)).toEqual(reference("outer", true).map((r) => ({ k: r["w"] === null ? null : r["k"], w: r["w"], t: r["t"], __right_k: r["k"], v: r["v"], s: r["s"] })));
  });
});
