import type { AggFn, Expr, Literal, ScalarFn } from "../expr/ast.js";
import { intervalExpr } from "../expr/interval.js";
import { literalExpr } from "../expr/literal.js";
import { sessionWindowExpr, windowExpr } from "../expr/window-spec.js";
import { parseSqlExpression } from "../sql/expression-parser.js";
import type { z } from "zod";
import { OptionError } from "../errors/errors.js";
import { fieldsFromZod, type SchemaOfZod } from "../schema/zod-schema.js";
import type { ColType, SchemaShape } from "../types/dtype.js";
import type { Fixed, LitType, Ref, TExpr } from "../types/expr-types.js";
import { DecodedColumns } from "./value-functions.js";
import { Column, type ExprOf, type NameOf, type Operand, type RefsOf, StructColumn, toExpr } from "./column.js";

/**
 * Spark's `functions`: column references, literals, aggregates, scalar and time functions.
 * Names and argument orders follow `org.apache.spark.sql.functions`.
 */

type AnyColumn = Column<any, any, any>;
type E<C> = C extends Column<infer X, any, any> ? X : never;
type R<C> = C extends Column<any, infer X, any> ? X : never;
type N<C> = C extends Column<any, any, infer X> ? X : never;

/** A reference to an input column by name; `"window.start"` reads a window's start. */
export function col<const Name extends string>(name: Name): Column<Ref<Name>, RootName<Name>, LeafName<Name>> {
  return new Column({ kind: "col", name });
}

type RootName<Name extends string> = Name extends `${infer W}.${"start" | "end"}` ? W : Name;
type LeafName<Name extends string> = Name extends `${string}.${infer L extends "start" | "end"}` ? L : Name;

/** A constant column. Integers are int32, other numbers float64, dates timestamps. */
export function lit<const V extends Literal | Date>(
  value: V,
): Column<Fixed<LitType<V>, V extends null ? true : false>, never, NameOf<V>> {
  return new Column(literalExpr(value));
}

function agg(fn: AggFn, c: AnyColumn | null): any {
  return new Column({ kind: "agg", fn, child: c ? c.expr : null });
}

/** `count(col)` counts non-null values; `count()` or `count("*")` counts rows (named `count(1)`). */
export function count(): Column<Fixed<"int64">, never, "count(1)">;
export function count(star: "*"): Column<Fixed<"int64">, never, "count(1)">;
export function count<C extends AnyColumn>(c: C): Column<Fixed<"int64">, R<C>, `count(${N<C>})`>;
export function count(c?: AnyColumn | "*"): AnyColumn {
  return agg("count", c === undefined || c === "*" ? null : c);
}
export function sum<C extends AnyColumn>(c: C): Column<{ k: "sum"; a: E<C> }, R<C>, `sum(${N<C>})`> {
  return agg("sum", c);
}
export function avg<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "float64"; nullable: true }, R<C>, `avg(${N<C>})`> {
  return agg("avg", c);
}
export function min<C extends AnyColumn>(c: C): Column<{ k: "same"; a: E<C>; nullable: true }, R<C>, `min(${N<C>})`> {
  return agg("min", c);
}
export function max<C extends AnyColumn>(c: C): Column<{ k: "same"; a: E<C>; nullable: true }, R<C>, `max(${N<C>})`> {
  return agg("max", c);
}
/** The first value seen in the group, in arrival order within and across batches. */
export function first<C extends AnyColumn>(c: C): Column<{ k: "same"; a: E<C>; nullable: true }, R<C>, `first(${N<C>})`> {
  return agg("first", c);
}
/** The last value seen in the group, in arrival order. */
export function last<C extends AnyColumn>(c: C): Column<{ k: "same"; a: E<C>; nullable: true }, R<C>, `last(${N<C>})`> {
  return agg("last", c);
}

function call(fn: ScalarFn, ...args: Expr[]): any {
  return new Column({ kind: "call", fn, args });
}

type Str<C extends AnyColumn, F extends string> = Column<{ k: "map"; a: E<C>; to: "string"; nullable: "inherit" }, R<C>, `${F}(${N<C>})`>;

export function lower<C extends AnyColumn>(c: C): Str<C, "lower"> {
  return call("lower", c.expr);
}
export function upper<C extends AnyColumn>(c: C): Str<C, "upper"> {
  return call("upper", c.expr);
}
/** Length in characters (UTF-16 code units are never split: counts code points, as Spark); of binary, in bytes. */
export function length<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "int32"; nullable: "inherit" }, R<C>, `length(${N<C>})`> {
  return call("length", c.expr);
}
/** Concatenates strings; null if any input is null, as Spark's `concat`. Name it with `alias`. */
export function concat<Cs extends Operand[]>(
  ...cols: Cs
): Column<{ k: "map"; a: { k: "bool"; args: { [I in keyof Cs]: ExprOf<Cs[I]> } }; to: "string"; nullable: "inherit" }, RefsOf<Cs[number]>, string> {
  return call("concat", ...cols.map(toExpr));
}
/** Substring starting at 1-based `pos`, `len` characters long, as Spark's `substring`. */
export function substring<C extends AnyColumn>(c: C, pos: number, len: number): Column<{ k: "map"; a: E<C>; to: "string"; nullable: "inherit" }, R<C>, string> {
  return call("substring", c.expr, literalExpr(pos), literalExpr(len));
}

/** Base64 text of binary (or of a string's UTF-8 bytes), padded and without line breaks, as Spark's `base64`. */
export function base64<C extends AnyColumn>(c: C): Str<C, "base64"> {
  return call("base64", c.expr);
}
/** The bytes of base64 text, as Spark's `unbase64`; characters outside the alphabet are skipped, text that holds no whole byte is null. */
export function unbase64<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "binary"; nullable: true }, R<C>, `unbase64(${N<C>})`> {
  return call("unbase64", c.expr);
}
/** Upper-case hex digits of binary (or of a string's UTF-8 bytes), as Spark's `hex`. */
export function hex<C extends AnyColumn>(c: C): Str<C, "hex"> {
  return call("hex", c.expr);
}

/**
 * Parses a string (ISO-8601 by default) or epoch seconds into a timestamp. Unparsable values become
 * null, as Spark does outside ANSI mode.
 */
export function to_timestamp<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "timestamp"; nullable: true }, R<C>, `to_timestamp(${N<C>})`> {
  return call("to_timestamp", c.expr);
}

export type TruncUnit = "year" | "month" | "week" | "day" | "hour" | "minute" | "second";
/** Truncates a timestamp to the unit (UTC), as Spark's `date_trunc(format, ts)`. */
export function date_trunc<C extends AnyColumn>(unit: TruncUnit, c: C): Column<{ k: "map"; a: E<C>; to: "timestamp"; nullable: "inherit" }, R<C>, string> {
  return call("date_trunc", literalExpr(unit), c.expr);
}
/** Hour of day (UTC) of a timestamp. */
export function hour<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "int32"; nullable: "inherit" }, R<C>, `hour(${N<C>})`> {
  return call("hour", c.expr);
}

/**
 * Seconds since the epoch of a timestamp (floored: one millisecond before 1970 is -1), as Spark's
 * `unix_seconds`; int64, null where the timestamp is null.
 */
export function unix_seconds<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "int64"; nullable: "inherit" }, R<C>, `unix_seconds(${N<C>})`> {
  return call("unix_seconds", c.expr);
}
/** Milliseconds since the epoch of a timestamp, as Spark's `unix_millis`; int64, null where the timestamp is null. */
export function unix_millis<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "int64"; nullable: "inherit" }, R<C>, `unix_millis(${N<C>})`> {
  return call("unix_millis", c.expr);
}
/**
 * Microseconds since the epoch of a timestamp, as Spark's `unix_micros` (Sluice keeps milliseconds,
 * so the last three digits are 0); int64, null where the timestamp is null.
 */
export function unix_micros<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "int64"; nullable: "inherit" }, R<C>, `unix_micros(${N<C>})`> {
  return call("unix_micros", c.expr);
}

/**
 * Seconds since the epoch as a timestamp, as Spark's `timestamp_seconds`: int or double seconds
 * (fractions kept to the millisecond, floored); NaN and the infinities give null.
 */
export function timestamp_seconds<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "timestamp"; nullable: "inheritOrDouble" }, R<C>, `timestamp_seconds(${N<C>})`> {
  return call("timestamp_seconds", c.expr);
}

/**
 * The event time of a window, as Spark's `window_time(window)`: the last time inside it. Spark
 * gives end - 1 microsecond; Sluice keeps milliseconds and gives end - 1 ms, which lies in the
 * window as Spark's does, so a second window aggregation over it puts each row back in its window.
 */
export function window_time<C extends AnyColumn>(windowColumn: C): Column<{ k: "map"; a: E<C>; to: "timestamp"; nullable: "inherit" }, R<C>, `window_time(${N<C>})`> {
  return call("window_time", windowColumn.expr);
}

/**
 * A day-time interval, Spark's `INTERVAL '1 hour'`, to add to or subtract from a timestamp:
 * `col("time").plus(interval("10 minutes"))`. Units: weeks, days, hours, minutes, seconds,
 * milliseconds (microseconds in whole milliseconds); months and years have no fixed length and
 * are refused. An interval is no column of its own.
 */
export function interval<const T extends string>(text: T): Column<{ k: "interval" }, never, `INTERVAL '${T}'`> {
  return new Column(intervalExpr(text));
}

/**
 * Spark's `split(str, regex, limit)`: the pieces of a string around a pattern (a Java-style regex;
 * limit > 0 keeps at most that many pieces, the last holding the rest). Sluice has no array
 * column type, so what split gives can only be passed to `explode`:
 * `select(explode(split(col("line"), " ")).alias("word"))`.
 */
export function split<C extends AnyColumn>(str: C, pattern: string, limit = -1): SplitColumn<R<C>> {
  return new SplitColumn({ kind: "call", fn: "split", args: [str.expr, literalExpr(pattern), literalExpr(limit)] });
}

/** The array of `split(...)`: only `explode` takes it. */
export class SplitColumn<R extends string = string> {
  declare readonly __split: true;
  declare readonly __r?: R;
  constructor(readonly expr: Expr) {}
}

/**
 * One row per piece of a `split`, as Spark's `explode` (named "col" unless aliased): a top-level
 * column of `select`, the other columns repeated on each row; a null string gives no rows.
 */
export function explode<R extends string>(array: SplitColumn<R>): Column<Fixed<"string">, R, "col"> {
  return new Column({ kind: "explode", child: array.expr });
}

/**
 * A column from a SQL expression, as Spark's `expr`: column names, literals, arithmetic,
 * comparisons, AND / OR / NOT, IS [NOT] NULL, CAST(x AS type), intervals and calls of Sluice's
 * functions, e.g. `expr("amount * 2 > 10 AND page <> 'home'")`. Its names and type are checked when
 * the query is built (a syntax error names the position), not at compile time.
 */
export function expr(sql: string): Column<{ k: "unknown" }, never, string> {
  return new Column(parseSqlExpression(sql));
}

/** What `struct` takes: columns, nested structs, or column names (`"window.start"` included). */
export type StructInput = AnyColumn | StructColumn<any, any> | string;

type FieldRefs<F> = F extends string ? RootName<F> : F extends StructColumn<infer X, any> ? X : F extends Column<any, infer X, any> ? X : never;
type FieldLabel<F> = F extends string ? LeafName<F> : F extends StructColumn<any, infer X> ? X : F extends Column<any, any, infer X> ? X : string;
type JoinLabels<Fs extends readonly unknown[]> = Fs extends readonly []
  ? ""
  : Fs extends readonly [infer H]
    ? FieldLabel<H>
    : Fs extends readonly [infer H, ...infer T]
      ? `${FieldLabel<H>}, ${JoinLabels<T>}`
      : string;

/**
 * A struct of the given columns, as Spark's `struct(cols)`. Field names follow Spark: an alias or a
 * column keeps its name (`col("window.start")` gives "start"); any other expression is named
 * `col1`, `col2`... by position, so alias computed fields. Sluice has no struct column type: a
 * struct can only be passed to `to_json()` (or nested in another struct), e.g.
 * `to_json(struct(col("key"), unix_millis(col("window.start")).alias("start"))).alias("value")`.
 */
export function struct<const Fs extends readonly StructInput[]>(...cols: Fs): StructColumn<FieldRefs<Fs[number]>, `struct(${JoinLabels<Fs>})`> {
  return new StructColumn({
    kind: "struct",
    fields: cols.map((c): Expr => (typeof c === "string" ? { kind: "col", name: c } : c.expr)),
  });
}

/**
 * JSON text of a struct (or of a window or headers column) per row, as Spark's `to_json`: keys in
 * field order, null fields left out, timestamps as "2026-01-01T12:00:00.000Z", doubles as Java
 * prints them (NaN and the infinities as strings), binary as base64, windows and nested structs as
 * nested objects, Kafka headers as `[{"key":"k","value":"<base64>"}]`. The text of a struct is
 * never null; that of a window or headers is null where the column is.
 */
export function to_json<C extends StructColumn<any, any>>(c: C): Column<Fixed<"string">, C extends StructColumn<infer X, any> ? X : never, `to_json(${C extends StructColumn<any, infer X> ? X : string})`>;
export function to_json<C extends AnyColumn>(c: C): Column<{ k: "map"; a: E<C>; to: "string"; nullable: "inherit" }, R<C>, `to_json(${N<C>})`>;
export function to_json(c: AnyColumn | StructColumn<any, any>): AnyColumn {
  return new Column({ kind: "toJson", child: c.expr });
}

/**
 * Parses JSON text into the columns of a zod schema, as Spark's `from_json(col, schema)`. Use it at
 * the top level of `select`: `df.select(from_json(col("value"), Reading), "timestamp")` has the
 * schema's columns followed by `timestamp`. `mode` is PERMISSIVE (bad values give nulls) or FAILFAST.
 */
export function from_json<C extends AnyColumn, Z extends z.ZodObject<any>>(
  c: C,
  schema: Z,
  options: { mode?: "PERMISSIVE" | "FAILFAST" } = {},
): DecodedColumns<NullableShape<SchemaOfZod<Z>>, R<C>> {
  const mode = options.mode ?? "PERMISSIVE";
  if (mode !== "PERMISSIVE" && mode !== "FAILFAST") {
    throw new OptionError(`from_json(): mode must be PERMISSIVE or FAILFAST (got ${JSON.stringify(mode)}); DROPMALFORMED would change the row count of a select`);
  }
  return new DecodedColumns({ kind: "decodeValues", child: c.expr, fields: fieldsFromZod(schema), mode, format: { kind: "json" }, registry: null });
}

type NullableShape<S extends SchemaShape> = { readonly [K in keyof S]: ColType<S[K]["type"], true> };

/** Logical negation. */
export function not<C extends AnyColumn>(c: C): Column<{ k: "bool"; args: [E<C>] }, R<C>, `(NOT ${N<C>})`> {
  return new Column({ kind: "not", child: c.expr }) as any;
}

/** Arithmetic negation. */
export function negate<C extends AnyColumn>(c: C): Column<{ k: "same"; a: E<C>; nullable: "inherit" }, R<C>, `(- ${N<C>})`> {
  return call("negate", c.expr);
}

/**
 * Event-time window, as Spark's `window(timeColumn, windowDuration, slideDuration?, startTime?)`.
 * Durations are strings such as `"10 minutes"` or milliseconds. A row falls into every window
 * `[start, end)` that contains its time.
 */
export function window<C extends AnyColumn>(
  timeColumn: C,
  windowDuration: string | number,
  slideDuration?: string | number,
  startTime?: string | number,
): Column<Fixed<"window">, R<C>, "window"> {
  return new Column(windowExpr(timeColumn.expr, windowDuration, slideDuration, startTime));
}

/** Session window: rows of a key closer than `gapDuration` belong to one session. */
export function session_window<C extends AnyColumn>(timeColumn: C, gapDuration: string | number): Column<Fixed<"window">, R<C>, "session_window"> {
  return new Column(sessionWindowExpr(timeColumn.expr, gapDuration));
}

/** `when(cond, value).when(...).otherwise(value)`, as Spark's CASE WHEN. */
export function when<Cd extends AnyColumn, V extends Operand>(condition: Cd, value: V): CaseBuilder<[ExprOf<V>], R<Cd> | RefsOf<V>> {
  return new CaseBuilder([{ when: condition.expr, then: toExpr(value) }]);
}

export class CaseBuilder<Vs extends TExpr[], Rs extends string> extends Column<{ k: "case"; values: Vs }, Rs, string> {
  constructor(private readonly branches: readonly { when: Expr; then: Expr }[], otherwise: Expr | null = null) {
    super({ kind: "case", branches, otherwise });
  }
  when<Cd extends AnyColumn, V extends Operand>(condition: Cd, value: V): CaseBuilder<[...Vs, ExprOf<V>], Rs | R<Cd> | RefsOf<V>> {
    return new CaseBuilder([...this.branches, { when: condition.expr, then: toExpr(value) }]);
  }
  otherwise<V extends Operand>(value: V): Column<{ k: "case"; values: [...Vs, ExprOf<V>] }, Rs | RefsOf<V>, string> {
    return new Column({ kind: "case", branches: this.branches, otherwise: toExpr(value) });
  }
}
