import { literalExpr } from "./literal.js";
import * as arrow from "apache-arrow";
import { describe, expect, it } from "vitest";
import { type Batch, field, makeBatch, utf8FromStrings } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { AnalysisError } from "../errors/errors.js";
import type { DType, Fields } from "../types/dtype.js";
import type { Expr, Literal } from "./ast.js";
import { compileExpr, evaluate } from "./compile.js";

const col = (name: string): Expr => ({ kind: "col", name });
const lit = (value: Literal, type: DType): Expr => ({ kind: "lit", value, type });
const arith = (op: "+" | "-" | "*" | "/" | "%", left: Expr, right: Expr): Expr => ({ kind: "arith", op, left, right });
const cmp = (op: "=" | "!=" | "<" | "<=" | ">" | ">=", left: Expr, right: Expr): Expr => ({ kind: "cmp", op, left, right });

/** The values of one evaluated column, as `batchToRows` shows them. */
function valuesOf(expr: Expr, batch: Batch): unknown[] {
  const data = evaluate(expr, batch);
  const type = compileExpr(expr, batch.fields).type.type;
  return batchToRows(makeBatch([field("v", type)], [data])).map((r) => r.v);
}

const fields: Fields = [
  field("i", "int32"),
  field("j", "int32"),
  field("l", "int64"),
  field("x", "float64"),
  field("s", "string"),
  field("b", "boolean"),
  field("t", "timestamp"),
];
const batch = rowsToBatch(
  [
    { i: 2147483647, j: 1, l: 2 ** 40, x: 1.5, s: "apple", b: true, t: 1000 },
    { i: -7, j: 2, l: -3, x: -0.5, s: "Zebra", b: false, t: 2000 },
    { i: 7, j: 0, l: 5, x: NaN, s: "éclair", b: null, t: 3000 },
    { i: null, j: 3, l: null, x: null, s: null, b: true, t: null },
  ],
  fields,
);

describe("column references", () => {
  it("return the batch's own Data for a pass-through column", () => {
    expect(evaluate(col("s"), batch)).toBe(batch.columns[4]);
    expect(evaluate({ kind: "alias", child: col("x"), name: "y" }, batch)).toBe(batch.columns[3]);
  });

  it("read window.start / window.end as the struct's children", () => {
    const w = rowsToBatch([{ w: { start: new Date(0), end: new Date(60_000) } }], [field("w", "window", false)]);
    expect(evaluate(col("w.start"), w)).toBe(w.columns[0].children[0]);
    expect(valuesOf(col("w.end"), w)).toEqual([new Date(60_000)]);
  });

  it("fail with AnalysisError naming the unknown column", () => {
    expect(() => evaluate(col("nope"), batch)).toThrow(AnalysisError);
    expect(() => evaluate(col("nope"), batch)).toThrow(/cannot resolve column "nope"/);
  });
});

describe("arithmetic", () => {
  it("wraps int32 + int32 at 32 bits and promotes to float64 with a double", () => {
    expect(valuesOf(arith("+", col("i"), col("j")), batch)).toEqual([-2147483648, -5, 7, null]);
    expect(evaluate(arith("+", col("i"), col("j")), batch).type).toBeInstanceOf(arrow.Int32);
    expect(valuesOf(arith("*", col("i"), col("x")), batch)).toEqual([3221225470.5, 3.5, NaN, null]);
  });

  it("wraps int32 multiplication like Java", () => {
    expect(valuesOf(arith("*", col("i"), lit(2, "int32")), batch)).toEqual([-2, -14, 14, null]);
  });

  it("computes int64 exactly within 2^53 and stores Int64", () => {
    const data = evaluate(arith("*", col("l"), lit(3, "int32")), batch);
    expect(data.type).toBeInstanceOf(arrow.Int64);
    expect(valuesOf(arith("*", col("l"), lit(3, "int32")), batch)).toEqual([3 * 2 ** 40, -9, 15, null]);
  });

  it("divides into float64 and gives null on division by zero", () => {
    expect(valuesOf(arith("/", col("i"), col("j")), batch)).toEqual([2147483647, -3.5, null, null]);
  });

  it("takes the remainder with the dividend's sign and null for a zero divisor", () => {
    expect(valuesOf(arith("%", col("i"), col("j")), batch)).toEqual([0, -1, null, null]);
    expect(valuesOf(arith("%", col("x"), lit(1, "int32")), batch)).toEqual([0.5, -0.5, NaN, null]);
  });

  it("negates, wrapping int32's minimum onto itself", () => {
    const min = rowsToBatch([{ v: -2147483648 }, { v: 5 }], [field("v", "int32")]);
    expect(valuesOf({ kind: "call", fn: "negate", args: [col("v")] }, min)).toEqual([-2147483648, -5]);
  });
});

describe("comparisons", () => {
  it("compare numbers of mixed types, with a literal on either side", () => {
    expect(valuesOf(cmp(">", col("i"), lit(0, "int32")), batch)).toEqual([true, false, true, null]);
    expect(valuesOf(cmp("<", lit(0, "int32"), col("i")), batch)).toEqual([true, false, true, null]);
    expect(valuesOf(cmp("<=", col("j"), col("x")), batch)).toEqual([true, false, true, null]);
  });

  it("follow Spark's NaN rules: NaN = NaN and NaN is the largest number", () => {
    expect(valuesOf(cmp(">", col("x"), lit(1e308, "float64")), batch)).toEqual([false, false, true, null]);
    expect(valuesOf(cmp(">=", col("x"), lit(1, "int32")), batch)).toEqual([true, false, true, null]);
    expect(valuesOf(cmp("=", col("x"), lit(NaN, "float64")), batch)).toEqual([false, false, true, null]);
    expect(valuesOf(cmp("<", col("x"), lit(NaN, "float64")), batch)).toEqual([true, true, false, null]);
    expect(valuesOf(cmp("=", col("x"), col("x")), batch)).toEqual([true, true, true, null]);
    expect(valuesOf(cmp("!=", col("x"), col("x")), batch)).toEqual([false, false, false, null]);
  });

  it("order strings by UTF-8 bytes (uppercase < lowercase < accented), against literals and columns", () => {
    expect(valuesOf(cmp("<", col("s"), lit("b", "string")), batch)).toEqual([true, true, false, null]);
    expect(valuesOf(cmp("=", col("s"), lit("Zebra", "string")), batch)).toEqual([false, true, false, null]);
    expect(valuesOf(cmp("!=", lit("Zebra", "string"), col("s")), batch)).toEqual([true, false, true, null]);
    expect(valuesOf(cmp(">", col("s"), lit("zz", "string")), batch)).toEqual([false, false, true, null]);
    const pairs = rowsToBatch(
      [
        { a: "ab", c: "abc" },
        { a: "b", c: "abc" },
        { a: "x", c: "x" },
      ],
      [field("a", "string"), field("c", "string")],
    );
    expect(valuesOf(cmp("<", col("a"), col("c")), pairs)).toEqual([true, false, false]);
    expect(valuesOf(cmp("=", col("a"), col("c")), pairs)).toEqual([false, false, true]);
  });

  it("compare timestamps and booleans (false < true)", () => {
    expect(valuesOf(cmp(">=", col("t"), lit(2000, "timestamp")), batch)).toEqual([false, true, true, null]);
    expect(valuesOf(cmp(">", col("b"), lit(false, "boolean")), batch)).toEqual([true, false, null, true]);
  });

  it("work on dictionary-encoded strings, once per distinct value", () => {
    const dictionary = utf8FromStrings(["red", "green"]);
    const indices = arrow.makeData({ type: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int8()), length: 4, data: Int8Array.of(0, 1, 1, 0), dictionary: arrow.makeVector(dictionary) });
    const b = makeBatch([field("c", "string")], [indices]);
    expect(valuesOf(cmp("=", col("c"), lit("green", "string")), b)).toEqual([false, true, true, false]);
    expect(valuesOf({ kind: "call", fn: "upper", args: [col("c")] }, b)).toEqual(["RED", "GREEN", "GREEN", "RED"]);
  });
});

describe("boolean logic", () => {
  const tri = rowsToBatch(
    [true, false, null].flatMap((p) => [true, false, null].map((q) => ({ p, q }))),
    [field("p", "boolean"), field("q", "boolean")],
  );

  it("AND is false when either side is false, else null when either is null", () => {
    expect(valuesOf({ kind: "logic", op: "and", left: col("p"), right: col("q") }, tri)).toEqual([true, false, null, false, false, false, null, false, null]);
  });

  it("OR is true when either side is true, else null when either is null", () => {
    expect(valuesOf({ kind: "logic", op: "or", left: col("p"), right: col("q") }, tri)).toEqual([true, true, true, true, false, null, true, null, null]);
  });

  it("NOT keeps null; IS NULL / IS NOT NULL are never null", () => {
    expect(valuesOf({ kind: "not", child: col("b") }, batch)).toEqual([false, true, null, false]);
    expect(valuesOf({ kind: "isNull", child: col("b"), negated: false }, batch)).toEqual([false, false, true, false]);
    expect(valuesOf({ kind: "isNull", child: col("s"), negated: true }, batch)).toEqual([true, true, true, false]);
  });
});

describe("IN", () => {
  it("is true on a match, false on a miss and null for a null value", () => {
    expect(valuesOf({ kind: "in", child: col("i"), values: [7, 1] }, batch)).toEqual([false, false, true, null]);
    expect(valuesOf({ kind: "in", child: col("s"), values: ["Zebra", "éclair"] }, batch)).toEqual([false, true, true, null]);
  });

  it("is null instead of false when the list holds a null", () => {
    expect(valuesOf({ kind: "in", child: col("i"), values: [7, null] }, batch)).toEqual([null, null, true, null]);
  });

  it("matches NaN with NaN", () => {
    expect(valuesOf({ kind: "in", child: col("x"), values: [NaN] }, batch)).toEqual([false, false, true, null]);
  });
});

describe("CASE WHEN", () => {
  it("takes the first true branch; a null condition counts as false; promotes int32 to float64", () => {
    const e: Expr = {
      kind: "case",
      branches: [
        { when: col("b"), then: col("j") },
        { when: cmp("<", col("x"), lit(0, "int32")), then: col("x") },
      ],
      otherwise: lit(-1, "int32"),
    };
    expect(valuesOf(e, batch)).toEqual([1, -0.5, -1, 3]);
    expect(evaluate(e, batch).type).toBeInstanceOf(arrow.Float64);
  });

  it("a null literal branch of another type (otherwise(lit(null))) gives nulls, as Spark's NullType", () => {
    const e: Expr = { kind: "case", branches: [{ when: cmp(">", col("j"), lit(1, "int32")), then: col("j") }], otherwise: literalExpr(null) };
    expect(valuesOf(e, batch)).toEqual([null, 2, null, 3]);
  });

  it("gives null when nothing matches and there is no otherwise", () => {
    const e: Expr = { kind: "case", branches: [{ when: cmp("=", col("j"), lit(2, "int32")), then: col("s") }], otherwise: null };
    expect(valuesOf(e, batch)).toEqual([null, "Zebra", null, null]);
  });
});

describe("compilation", () => {
  it("is cached per expression and schema", () => {
    const e = cmp(">", col("x"), lit(0, "int32"));
    expect(compileExpr(e, batch.fields)).toBe(compileExpr(e, batch.fields));
    expect(compileExpr(e, [...batch.fields])).toBe(compileExpr(e, batch.fields));
    expect(compileExpr(e, [field("x", "int32")])).not.toBe(compileExpr(e, batch.fields));
  });

  it("rejects sliding windows, session windows and aggregates outside groupBy", () => {
    const time = col("t");
    expect(() => evaluate({ kind: "window", time, sizeMs: 10_000, slideMs: 5_000, startMs: 0 }, batch)).toThrow(/is only allowed in groupBy/);
    expect(() => evaluate({ kind: "sessionWindow", time, gapMs: 10_000 }, batch)).toThrow(/is only allowed in groupBy/);
    expect(() => evaluate({ kind: "agg", fn: "sum", child: col("x") }, batch)).toThrow(AnalysisError);
    expect(() => evaluate({ kind: "agg", fn: "sum", child: col("x") }, batch)).toThrow(/sum\(\) is only allowed in groupBy/);
  });
});
