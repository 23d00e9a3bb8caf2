import { toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import type { Expr } from "../../expr/ast.js";
import type { Fields } from "../../types/dtype.js";
import { ExpressionSchema } from "../gen/spark/connect/expressions_pb.js";
import { compileExpression, type ExprScope, namedExpression } from "./compile-expression.js";

const json = (e: Expr, scope?: ExprScope) => toJson(ExpressionSchema, compileExpression(e, scope));
const c = (name: string): Expr => ({ kind: "col", name });
const attr = (name: string) => ({ unresolvedAttribute: { unparsedIdentifier: name } });
const f = (functionName: string, ...args: unknown[]) => ({ unresolvedFunction: { functionName, ...(args.length ? { arguments: args } : {}) } });
const str = (s: string) => ({ literal: { string: s } });
const int = (n: number) => ({ literal: { integer: n } });

describe("expressions as Spark Connect messages", () => {
  it("columns as unparsed identifiers: one part in backquotes, a window's start as a field", () => {
    const fields: Fields = [
      { name: "w", type: "window", nullable: false },
      { name: "a.start", type: "int32", nullable: false },
    ];
    expect(json(c("user id"))).toEqual(attr("`user id`"));
    expect(json(c("w.start"), { fields })).toEqual(attr("`w`.start"));
    expect(json(c("a.start"), { fields })).toEqual(attr("`a.start`"));
    expect(json(c("k"), { planIdOf: () => 3n })).toEqual({ unresolvedAttribute: { unparsedIdentifier: "`k`", planId: "3" } });
  });

  it("literals typed from Sluice's types", () => {
    expect(json({ kind: "lit", value: "x", type: "string" })).toEqual(str("x"));
    expect(json({ kind: "lit", value: 7, type: "int32" })).toEqual(int(7));
    expect(json({ kind: "lit", value: 2 ** 40, type: "int64" })).toEqual({ literal: { long: "1099511627776" } });
    expect(json({ kind: "lit", value: 0.5, type: "float64" })).toEqual({ literal: { double: 0.5 } });
    expect(json({ kind: "lit", value: true, type: "boolean" })).toEqual({ literal: { boolean: true } });
    expect(json({ kind: "lit", value: Date.UTC(2026, 0, 1, 9), type: "timestamp" })).toEqual({ literal: { timestamp: "1767258000000000" } });
    expect(json({ kind: "lit", value: null, type: "int64" })).toEqual({ literal: { null: { long: {} } } });
    expect(json({ kind: "interval", ms: 90_000, text: "90 seconds" })).toEqual({ literal: { dayTimeInterval: "90000000" } });
  });

  it("operators with Spark's function names", () => {
    const a = c("a");
    const b = c("b");
    expect((["+", "-", "*", "/", "%"] as const).map((op) => json({ kind: "arith", op, left: a, right: b }))).toEqual(["+", "-", "*", "/", "%"].map((op) => f(op, attr("`a`"), attr("`b`"))));
    expect((["=", "<", "<=", ">", ">="] as const).map((op) => json({ kind: "cmp", op, left: a, right: b }))).toEqual(["==", "<", "<=", ">", ">="].map((op) => f(op, attr("`a`"), attr("`b`"))));
    expect(json({ kind: "cmp", op: "!=", left: a, right: b })).toEqual(f("not", f("==", attr("`a`"), attr("`b`"))));
    expect(json({ kind: "logic", op: "and", left: a, right: b })).toEqual(f("and", attr("`a`"), attr("`b`")));
    expect(json({ kind: "logic", op: "or", left: a, right: b })).toEqual(f("or", attr("`a`"), attr("`b`")));
    expect(json({ kind: "not", child: a })).toEqual(f("not", attr("`a`")));
    expect(json({ kind: "isNull", child: a, negated: false })).toEqual(f("isnull", attr("`a`")));
    expect(json({ kind: "isNull", child: a, negated: true })).toEqual(f("isnotnull", attr("`a`")));
    expect(json({ kind: "in", child: a, values: [1, 2.5, "x", null] })).toEqual(f("in", attr("`a`"), int(1), { literal: { double: 2.5 } }, str("x"), { literal: { null: { null: {} } } }));
  });

  it("a text literal compared with a binary column is sent as bytes", () => {
    const fields: Fields = [{ name: "key", type: "binary", nullable: true }];
    expect(json({ kind: "cmp", op: "=", left: c("key"), right: { kind: "lit", value: "ab", type: "string" } }, { fields })).toEqual(f("==", attr("`key`"), { literal: { binary: "YWI=" } }));
  });

  it("CASE as when(), a null branch of Spark's NullType", () => {
    const e: Expr = {
      kind: "case",
      branches: [
        { when: c("p"), then: { kind: "lit", value: 1, type: "int32" } },
        { when: c("q"), then: { kind: "lit", value: null, type: "string" } },
      ],
      otherwise: { kind: "lit", value: 3, type: "int32" },
    };
    expect(json(e)).toEqual(f("when", attr("`p`"), int(1), attr("`q`"), { literal: { null: { null: {} } } }, int(3)));
  });

  it("casts to Spark's types, aliases", () => {
    expect(json({ kind: "cast", child: c("a"), to: "int64" })).toEqual({ cast: { expr: attr("`a`"), type: { long: {} }, evalMode: "EVAL_MODE_LEGACY" } });
    expect(json({ kind: "alias", child: c("a"), name: "b" })).toEqual({ alias: { expr: attr("`a`"), name: ["b"] } });
  });

  it("every scalar function under Spark's name", () => {
    const fns = ["lower", "upper", "length", "concat", "substring", "to_timestamp", "date_trunc", "hour", "unix_seconds", "unix_millis", "unix_micros", "base64", "unbase64", "hex", "timestamp_seconds", "window_time", "split"] as const;
    for (const fn of fns) expect(json({ kind: "call", fn, args: [c("a")] })).toEqual(f(fn, attr("`a`")));
    expect(json({ kind: "call", fn: "negate", args: [c("a")] })).toEqual(f("negative", attr("`a`")));
    expect(json({ kind: "explode", child: { kind: "call", fn: "split", args: [c("line"), { kind: "lit", value: " ", type: "string" }] } })).toEqual(f("explode", f("split", attr("`line`"), str(" "))));
  });

  it("windows with interval texts", () => {
    expect(json({ kind: "window", time: c("t"), sizeMs: 600_000, slideMs: 600_000, startMs: 0 })).toEqual(f("window", attr("`t`"), str("10 minutes"), str("10 minutes")));
    expect(json({ kind: "window", time: c("t"), sizeMs: 3_600_000, slideMs: 1_500, startMs: 300_000 })).toEqual(f("window", attr("`t`"), str("1 hour"), str("1500 milliseconds"), str("5 minutes")));
    expect(json({ kind: "window", time: c("t"), sizeMs: 60_000, slideMs: 60_000, startMs: -1_000 })).toEqual(f("window", attr("`t`"), str("1 minute"), str("1 minute"), str("-1 second")));
    expect(json({ kind: "sessionWindow", time: c("t"), gapMs: 86_400_000 })).toEqual(f("session_window", attr("`t`"), str("1 day")));
  });

  it("aggregates; count(*) over a star, as Spark's clients send it", () => {
    expect(json({ kind: "agg", fn: "count", child: null })).toEqual(f("count", { unresolvedStar: {} }));
    for (const fn of ["count", "sum", "avg", "min", "max", "first", "last"] as const) expect(json({ kind: "agg", fn, child: c("a") })).toEqual(f(fn, attr("`a`")));
  });

  it("struct as named_struct with Sluice's field names, to_json", () => {
    const e: Expr = { kind: "toJson", child: { kind: "struct", fields: [c("a"), { kind: "alias", child: c("b"), name: "bee" }, { kind: "lit", value: 1, type: "int32" }] } };
    expect(json(e)).toEqual(f("to_json", f("named_struct", str("a"), attr("`a`"), str("bee"), attr("`b`"), str("col3"), int(1))));
  });

  it("an output column is aliased to Sluice's name", () => {
    const named = (e: Expr) => toJson(ExpressionSchema, namedExpression(e));
    expect(named(c("a"))).toEqual(attr("`a`"));
    expect(named({ kind: "arith", op: "+", left: c("a"), right: { kind: "lit", value: 1, type: "int32" } })).toEqual({ alias: { expr: f("+", attr("`a`"), int(1)), name: ["(a + 1)"] } });
    expect(named({ kind: "agg", fn: "count", child: null })).toEqual({ alias: { expr: f("count", { unresolvedStar: {} }), name: ["count(1)"] } });
    expect(named(c("window.start"))).toEqual({ alias: { expr: attr("`window`.start"), name: ["start"] } });
  });
});
