import { describe, expect, it } from "vitest";
import { type Batch, field, makeBatch } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError } from "../errors/errors.js";
import type { DType } from "../types/dtype.js";
import type { Expr, Literal, ScalarFn } from "./ast.js";
import { compileExpr, evaluate } from "./compile.js";

const col = (name: string): Expr => ({ kind: "col", name });
const lit = (value: Literal, type: DType): Expr => ({ kind: "lit", value, type });
const call = (fn: ScalarFn, ...args: Expr[]): Expr => ({ kind: "call", fn, args });

function valuesOf(expr: Expr, batch: Batch): unknown[] {
  const data = evaluate(expr, batch);
  return batchToRows(makeBatch([field("v", compileExpr(expr, batch.fields).type.type)], [data])).map((r) => r.v);
}

function strings(...values: (string | null)[]): Batch {
  return rowsToBatch(
    values.map((s) => ({ s })),
    [field("s", "string")],
  );
}

function times(...values: (string | number | null)[]): Batch {
  return rowsToBatch(
    values.map((t) => ({ t })),
    [field("t", "timestamp")],
  );
}

const utc = (iso: string): Date => new Date(iso);

describe("string functions", () => {
  it("lower() and upper() handle ASCII and non-ASCII text, keeping nulls", () => {
    const b = strings("Hello Wörld", "straße", null, "ABC");
    expect(valuesOf(call("lower", col("s")), b)).toEqual(["hello wörld", "straße", null, "abc"]);
    expect(valuesOf(call("upper", col("s")), b)).toEqual(["HELLO WÖRLD", "STRASSE", null, "ABC"]);
  });

  it("length() counts code points, so an emoji is one character", () => {
    expect(valuesOf(call("length", col("s")), strings("héllo", "😀a", "", null))).toEqual([5, 2, 0, null]);
  });

  it("concat() is null when any argument is null and prints non-string arguments as Spark casts them", () => {
    const b = rowsToBatch(
      [
        { s: "a", x: 1, y: 2.5 },
        { s: null, x: 2, y: 1 },
        { s: "c", x: -3, y: 1e21 },
      ],
      [field("s", "string"), field("x", "int32"), field("y", "float64")],
    );
    expect(valuesOf(call("concat", col("s"), lit("-", "string"), col("x"), lit(":", "string"), col("y")), b)).toEqual(["a-1:2.5", null, "c--3:1.0E21"]);
  });

  it("substring() is 1-based, treats 0 as 1, counts negative positions from the end and clips", () => {
    const b = strings("Spark SQL", "héllo", null);
    const sub = (pos: number, len: number): unknown[] => valuesOf(call("substring", col("s"), lit(pos, "int32"), lit(len, "int32")), b);
    expect(sub(5, 1)).toEqual(["k", "o", null]);
    expect(sub(0, 3)).toEqual(["Spa", "hél", null]);
    expect(sub(1, 3)).toEqual(["Spa", "hél", null]);
    expect(sub(-3, 2)).toEqual(["SQ", "ll", null]);
    expect(sub(7, 100)).toEqual(["SQL", "", null]);
    expect(sub(20, 2)).toEqual(["", "", null]);
    expect(sub(-12, 5)).toEqual(["Sp", "", null]);
    expect(sub(2, -1)).toEqual(["", "", null]);
    expect(valuesOf(call("substring", col("s"), lit(2, "int32")), b)).toEqual(["park SQL", "éllo", null]);
  });
});

describe("time functions", () => {
  it("to_timestamp() parses ISO-8601 text and gives null for text that is not a valid time", () => {
    const b = strings("2024-01-15T10:30:00Z", "2024-01-15 10:30:00.25", "2024-01-15", "2024-01-15T10:30:00+02:00", "not a date", "2024-02-30", null);
    expect(valuesOf(call("to_timestamp", col("s")), b)).toEqual([
      utc("2024-01-15T10:30:00Z"),
      utc("2024-01-15T10:30:00.250Z"),
      utc("2024-01-15T00:00:00Z"),
      utc("2024-01-15T08:30:00Z"),
      null,
      null,
      null,
    ]);
  });

  it("to_timestamp() reads numbers as epoch seconds", () => {
    const b = rowsToBatch([{ n: 1_700_000_000 }, { n: 1.5 }, { n: null }], [field("n", "float64")]);
    expect(valuesOf(call("to_timestamp", col("n")), b)).toEqual([new Date(1_700_000_000_000), new Date(1500), null]);
  });

  it("date_trunc() truncates in UTC to each unit; weeks start on Monday", () => {
    const b = times("2024-05-15T13:45:30.123Z", "1969-12-31T23:59:59.999Z", null);
    const trunc = (unit: string): unknown[] => valuesOf(call("date_trunc", lit(unit, "string"), col("t")), b);
    expect(trunc("year")).toEqual([utc("2024-01-01T00:00:00Z"), utc("1969-01-01T00:00:00Z"), null]);
    expect(trunc("quarter")).toEqual([utc("2024-04-01T00:00:00Z"), utc("1969-10-01T00:00:00Z"), null]);
    expect(trunc("MONTH")).toEqual([utc("2024-05-01T00:00:00Z"), utc("1969-12-01T00:00:00Z"), null]);
    expect(trunc("week")).toEqual([utc("2024-05-13T00:00:00Z"), utc("1969-12-29T00:00:00Z"), null]);
    expect(trunc("day")).toEqual([utc("2024-05-15T00:00:00Z"), utc("1969-12-31T00:00:00Z"), null]);
    expect(trunc("hour")).toEqual([utc("2024-05-15T13:00:00Z"), utc("1969-12-31T23:00:00Z"), null]);
    expect(trunc("minute")).toEqual([utc("2024-05-15T13:45:00Z"), utc("1969-12-31T23:59:00Z"), null]);
    expect(trunc("second")).toEqual([utc("2024-05-15T13:45:30Z"), utc("1969-12-31T23:59:59Z"), null]);
    expect(trunc("fortnight")).toEqual([null, null, null]);
  });

  it("date_trunc() needs a literal unit", () => {
    const b = rowsToBatch([{ u: "day", t: 0 }], [field("u", "string"), field("t", "timestamp")]);
    expect(() => evaluate(call("date_trunc", col("u"), col("t")), b)).toThrow(AnalysisError);
  });

  it("hour() is the UTC hour of day, also before 1970", () => {
    expect(valuesOf(call("hour", col("t")), times("2024-05-15T13:45:30Z", -1, null))).toEqual([13, 23, null]);
  });

  it("a tumbling window() evaluates row by row, with startTime offsets and times before 1970", () => {
    const b = times("2024-05-15T12:34:56Z", -1, "2024-05-15T12:30:00Z");
    const w = (startMs: number): Expr => ({ kind: "window", time: col("t"), sizeMs: 600_000, slideMs: 600_000, startMs });
    expect(valuesOf(w(0), b)).toEqual([
      { start: utc("2024-05-15T12:30:00Z"), end: utc("2024-05-15T12:40:00Z") },
      { start: utc("1969-12-31T23:50:00Z"), end: utc("1970-01-01T00:00:00Z") },
      { start: utc("2024-05-15T12:30:00Z"), end: utc("2024-05-15T12:40:00Z") },
    ]);
    expect(valuesOf(w(300_000), b)).toEqual([
      { start: utc("2024-05-15T12:25:00Z"), end: utc("2024-05-15T12:35:00Z") },
      { start: utc("1969-12-31T23:55:00Z"), end: utc("1970-01-01T00:05:00Z") },
      { start: utc("2024-05-15T12:25:00Z"), end: utc("2024-05-15T12:35:00Z") },
    ]);
  });

  it("unix_seconds(), unix_millis() and unix_micros() count from the epoch; seconds are floored; null stays null", () => {
    const b = times("2026-01-01T00:00:00.123Z", -1, 0, null);
    expect(valuesOf(call("unix_seconds", col("t")), b)).toEqual([1_767_225_600, -1, 0, null]);
    expect(valuesOf(call("unix_millis", col("t")), b)).toEqual([1_767_225_600_123, -1, 0, null]);
    expect(valuesOf(call("unix_micros", col("t")), b)).toEqual([1_767_225_600_123_000, -1000, 0, null]);
    for (const fn of ["unix_seconds", "unix_millis", "unix_micros"] as const) {
      expect(compileExpr(call(fn, col("t")), b.fields).type).toEqual({ type: "int64", nullable: true });
    }
  });

  it("unix_millis() writes an int64 column, also for a window's start and end", () => {
    const b = times("2024-05-15T12:34:56.789Z", null);
    const w: Expr = { kind: "window", time: col("t"), sizeMs: 10_000, slideMs: 10_000, startMs: 0 };
    const data = evaluate(call("unix_millis", col("t")), b);
    expect(String(data.type)).toBe("Int64");
    const windowed = makeBatch([field("w", "window", false)], [evaluate(w, times("2024-05-15T12:34:56.789Z"))]);
    expect(valuesOf(call("unix_millis", col("w.start")), windowed)).toEqual([Date.parse("2024-05-15T12:34:50Z")]);
    expect(valuesOf(call("unix_millis", col("w.end")), windowed)).toEqual([Date.parse("2024-05-15T12:35:00Z")]);
  });

  it("unix_millis() and friends need a timestamp", () => {
    expect(() => compileExpr(call("unix_millis", col("s")), strings("x").fields)).toThrow(AnalysisError);
    expect(() => compileExpr(call("unix_seconds", col("s")), strings("x").fields)).toThrow(/unix_seconds\(\).*timestamp.*string/);
  });

  it("timestamp literals hold epoch milliseconds", () => {
    expect(valuesOf(lit(1_700_000_000_123, "timestamp"), times(0, 1))).toEqual([new Date(1_700_000_000_123), new Date(1_700_000_000_123)]);
  });
});
