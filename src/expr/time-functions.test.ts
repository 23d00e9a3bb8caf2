import { describe, expect, it } from "vitest";
import { type Batch, field, makeBatch } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError } from "../errors/errors.js";
import type { DType } from "../types/dtype.js";
import type { Expr, ScalarFn } from "./ast.js";
import { compileExpr, evaluate } from "./compile.js";
import { intervalExpr, parseInterval } from "./interval.js";
import { outputName } from "./resolve.js";

const col = (name: string): Expr => ({ kind: "col", name });
const call = (fn: ScalarFn, ...args: Expr[]): Expr => ({ kind: "call", fn, args });

function valuesOf(expr: Expr, batch: Batch): unknown[] {
  const data = evaluate(expr, batch);
  return batchToRows(makeBatch([field("v", compileExpr(expr, batch.fields).type.type)], [data])).map((r) => r.v);
}
const column = (type: DType, ...values: unknown[]): Batch => rowsToBatch(values.map((x) => ({ x })), [field("x", type)]);
const utc = (iso: string): Date => new Date(iso);

describe("timestamp_seconds", () => {
  it("reads int seconds exactly and double seconds to the millisecond, floored below zero, as Spark's microseconds floored", () => {
    expect(valuesOf(call("timestamp_seconds", col("x")), column("int32", 0, 1_700_000_000, -1, null))).toEqual([
      utc("1970-01-01T00:00:00Z"),
      utc("2023-11-14T22:13:20Z"),
      utc("1969-12-31T23:59:59Z"),
      null,
    ]);
    expect(valuesOf(call("timestamp_seconds", col("x")), column("float64", 1.5, 1.0009, -0.0005, Number.NaN, Number.POSITIVE_INFINITY, null))).toEqual([
      utc("1970-01-01T00:00:01.500Z"),
      utc("1970-01-01T00:00:01.000Z"),
      utc("1969-12-31T23:59:59.999Z"),
      null,
      null,
      null,
    ]);
    expect(valuesOf(call("timestamp_seconds", col("x")), column("int64", 86_400))).toEqual([utc("1970-01-02T00:00:00Z")]);
  });

  it("is named as Spark names it, nullable for doubles, and refuses text", () => {
    expect(outputName(call("timestamp_seconds", col("x")))).toBe("timestamp_seconds(x)");
    expect(compileExpr(call("timestamp_seconds", col("x")), [field("x", "float64", false)]).type).toEqual({ type: "timestamp", nullable: true });
    expect(compileExpr(call("timestamp_seconds", col("x")), [field("x", "int32", false)]).type).toEqual({ type: "timestamp", nullable: false });
    expect(() => compileExpr(call("timestamp_seconds", col("x")), [field("x", "string")])).toThrow("timestamp_seconds() needs a number of seconds, but got string");
  });
});

describe("window_time", () => {
  it("is the window's end minus one millisecond, null for a null window", () => {
    const b = rowsToBatch(
      [{ w: { start: utc("2024-01-01T10:00:00Z"), end: utc("2024-01-01T10:10:00Z") } }, { w: null }],
      [field("w", "window", true)],
    );
    expect(valuesOf(call("window_time", col("w")), b)).toEqual([utc("2024-01-01T10:09:59.999Z"), null]);
    expect(outputName(call("window_time", col("w")))).toBe("window_time(w)");
    expect(() => compileExpr(call("window_time", col("x")), [field("x", "timestamp")])).toThrow("window_time() needs a window column");
  });
});

describe("intervals", () => {
  const t = column("timestamp", utc("2024-01-01T10:00:00Z"), null);

  it("parse Spark's units, signs and fractions into milliseconds", () => {
    expect(parseInterval("1 hour")).toBe(3_600_000);
    expect(parseInterval("interval 1 hour 30 minutes")).toBe(5_400_000);
    expect(parseInterval("-2 days 3 hours")).toBe(-162_000_000);
    expect(parseInterval("1.5 seconds 250 ms 1000 microseconds")).toBe(1751);
    expect(parseInterval("2 WEEKS")).toBe(1_209_600_000);
    expect(() => parseInterval("1 month")).toThrow(AnalysisError);
    expect(() => parseInterval("1 month")).toThrow("months have no fixed length");
    expect(() => parseInterval("1 microsecond")).toThrow("Sluice keeps times in whole milliseconds");
    expect(() => parseInterval("ten minutes")).toThrow('cannot parse "ten minutes" as an interval');
  });

  it("shift timestamps: t + interval, interval + t, t - interval; nulls stay null", () => {
    const ten = intervalExpr("10 minutes");
    expect(valuesOf({ kind: "arith", op: "+", left: col("x"), right: ten }, t)).toEqual([utc("2024-01-01T10:10:00Z"), null]);
    expect(valuesOf({ kind: "arith", op: "+", left: ten, right: col("x") }, t)).toEqual([utc("2024-01-01T10:10:00Z"), null]);
    expect(valuesOf({ kind: "arith", op: "-", left: col("x"), right: intervalExpr("1 day") }, t)).toEqual([utc("2023-12-31T10:00:00Z"), null]);
    expect(outputName({ kind: "arith", op: "+", left: col("x"), right: ten })).toBe("(x + INTERVAL '10 minutes')");
  });

  it("are refused anywhere else, naming what is allowed", () => {
    const ten = intervalExpr("10 minutes");
    expect(() => compileExpr({ kind: "arith", op: "-", left: ten, right: col("x") }, t.fields)).toThrow("only timestamp + interval, interval + timestamp and timestamp - interval are defined");
    expect(() => compileExpr({ kind: "arith", op: "+", left: col("x"), right: ten }, [field("x", "int32")])).toThrow("an interval can only be added to or subtracted from a timestamp, but got int32");
    expect(() => compileExpr(ten, t.fields)).toThrow("Sluice has no interval column type");
    expect(() => compileExpr({ kind: "arith", op: "*", left: col("x"), right: ten }, t.fields)).toThrow(AnalysisError);
  });
});
