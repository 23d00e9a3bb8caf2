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
const cast = (child: Expr, to: DType): Expr => ({ kind: "cast", child, to });
const bytes = (...b: number[]) => Uint8Array.from(b);
const utf8 = (s: string) => new TextEncoder().encode(s);

function valuesOf(expr: Expr, batch: Batch): unknown[] {
  const data = evaluate(expr, batch);
  return batchToRows(makeBatch([field("v", compileExpr(expr, batch.fields).type.type)], [data])).map((r) => r.v);
}

/** A batch with binary column `b` and string column `s`. */
function rows(...values: { b: Uint8Array | null; s?: string | null }[]): Batch {
  return rowsToBatch(
    values.map((v) => ({ s: null, ...v })),
    [field("b", "binary"), field("s", "string")],
  );
}

/** Bytes that are not UTF-8: a lone 0xff, 0xfe, a NUL, a stray continuation byte. */
const NOT_UTF8 = bytes(0xff, 0xfe, 0x00, 0x80);

describe("cast between binary and string", () => {
  it("decodes UTF-8, replacing each malformed sequence with U+FFFD as Java's decoder does", () => {
    const b = rows({ b: utf8("héllo") }, { b: NOT_UTF8 }, { b: bytes(0x61, 0xe2, 0x82) }, { b: bytes(0xed, 0xa0, 0x80) }, { b: bytes() }, { b: null });
    expect(valuesOf(cast(col("b"), "string"), b)).toEqual(["héllo", "\uFFFD\uFFFD\u0000\uFFFD", "a\uFFFD", "\uFFFD\uFFFD\uFFFD", "", null]);
  });

  it("keeps every value whole: a sequence is never joined across two values", () => {
    // Together the two values are "€" (e2 82 ac); apart, neither is UTF-8.
    expect(valuesOf(cast(col("b"), "string"), rows({ b: bytes(0xe2, 0x82) }, { b: bytes(0xac) }))).toEqual(["\uFFFD", "\uFFFD"]);
  });

  it("encodes text as its UTF-8 bytes, and the two casts round-trip text", () => {
    const b = rows({ b: null, s: "€1" }, { b: null, s: null });
    expect(valuesOf(cast(col("s"), "binary"), b)).toEqual([bytes(0xe2, 0x82, 0xac, 0x31), null]);
    expect(valuesOf(cast(cast(col("s"), "binary"), "string"), b)).toEqual(["€1", null]);
  });

  it("is the only cast binary has", () => {
    const b = rows({ b: bytes(1) });
    expect(() => evaluate(cast(col("b"), "int32"), b)).toThrow(AnalysisError);
    expect(() => evaluate(cast(col("b"), "int32"), b)).toThrow('cannot cast b (binary) to int32: binary casts to and from string only; decode the bytes with b.cast("string") first');
    expect(() => evaluate(cast(lit(1, "int32"), "binary"), b)).toThrow("cannot cast 1 (int32) to binary: binary casts to and from string only; cast it to string first");
  });
});

describe("functions on binary", () => {
  const b = rows({ b: utf8("héllo") }, { b: NOT_UTF8 }, { b: bytes() }, { b: null });

  it("length() counts bytes of binary and characters of strings", () => {
    expect(valuesOf(call("length", col("b")), b)).toEqual([6, 4, 0, null]);
    expect(valuesOf(call("length", cast(col("b"), "string")), b)).toEqual([5, 4, 0, null]);
  });

  it("base64() pads and never breaks lines; unbase64() reads it back and skips what is not base64", () => {
    const long = new Uint8Array(100).map((_, i) => i);
    expect(valuesOf(call("base64", col("b")), b)).toEqual(["aMOpbGxv", "//4AgA==", "", null]);
    expect(valuesOf(call("base64", col("b")), rows({ b: long }))[0]).toBe(Buffer.from(long).toString("base64"));
    const texts = rows({ b: null, s: "aMOpbGxv" }, { b: null, s: "//4A\r\ngA==" }, { b: null, s: "YQ" }, { b: null, s: "Y" }, { b: null, s: "" }, { b: null, s: null });
    expect(valuesOf(call("unbase64", col("s")), texts)).toEqual([utf8("héllo"), NOT_UTF8, utf8("a"), null, bytes(), null]);
  });

  it("hex() writes two upper-case digits per byte, of binary and of a string's UTF-8 bytes", () => {
    expect(valuesOf(call("hex", col("b")), b)).toEqual(["68C3A96C6C6F", "FFFE0080", "", null]);
    expect(valuesOf(call("hex", col("s")), rows({ b: null, s: "Spark SQL" }))).toEqual(["537061726B2053514C"]);
  });

  it("text functions name the cast that decodes binary", () => {
    expect(() => evaluate(call("lower", col("b")), b)).toThrow('lower() needs a string, but b is binary; decode it first with b.cast("string")');
    expect(() => evaluate(call("substring", col("b"), lit(1, "int32"), lit(2, "int32")), b)).toThrow('substring() needs a string, but b is binary; decode it first with b.cast("string")');
    expect(() => evaluate(call("unbase64", col("b")), b)).toThrow("unbase64() needs a string of base64 text, but got binary");
  });
});

describe("comparing binary", () => {
  const b = rows({ b: utf8("abc"), s: "abc" }, { b: utf8("abd") }, { b: NOT_UTF8 }, { b: null });
  const cmp = (op: "=" | "<" | ">=", left: Expr, right: Expr): Expr => ({ kind: "cmp", op, left, right });

  it("compares bytes, unsigned, in either order with a string literal standing for its UTF-8 bytes", () => {
    expect(valuesOf(cmp("=", col("b"), lit("abc", "string")), b)).toEqual([true, false, false, null]);
    expect(valuesOf(cmp("<", lit("abd", "string"), col("b")), b)).toEqual([false, false, true, null]);
    expect(valuesOf(cmp(">=", col("b"), col("b")), b)).toEqual([true, true, true, null]);
    expect(valuesOf({ kind: "in", child: col("b"), values: ["abd", "zz"] }, b)).toEqual([false, true, false, null]);
    expect(valuesOf({ kind: "isNull", child: col("b"), negated: false }, b)).toEqual([false, false, false, true]);
  });

  it("refuses to compare binary with a string column: one side must be cast", () => {
    expect(() => evaluate(cmp("=", col("b"), col("s")), b)).toThrow('cannot compare binary with string in "="; cast one side first');
    expect(() => evaluate(cmp("=", col("b"), lit(1, "int32")), b)).toThrow('cannot compare binary with int32 in "="; cast one side first');
  });
});
