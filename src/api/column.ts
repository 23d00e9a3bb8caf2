import type { ArithOp, CmpOp, Expr, Literal } from "../expr/ast.js";
import type { DType } from "../types/dtype.js";
import type { Fixed, LitType, TExpr } from "../types/expr-types.js";
import { literalExpr } from "../expr/literal.js";

/**
 * A column expression. At run time it is only a wrapper around a serializable `Expr`; its type
 * parameters let the compiler follow the expression:
 * - `E`: the type-level expression, resolved against a schema by DataFrame methods;
 * - `R`: the names of the input columns it reads (a misspelt name fails to compile there);
 * - `N`: the output name Spark would give it (`alias` sets it).
 */
export class Column<E extends TExpr = TExpr, R extends string = string, N extends string = string> {
  /** Phantom members: never set at run time, present so that types stay distinct. */
  declare readonly __e?: E;
  declare readonly __r?: R;
  declare readonly __n?: N;

  constructor(readonly expr: Expr) {}

  alias<A extends string>(name: A): Column<E, R, A> {
    const inner = this.expr.kind === "alias" ? this.expr.child : this.expr;
    return new Column({ kind: "alias", child: inner, name });
  }

  /** Same as `alias`, as in Spark. */
  as<A extends string>(name: A): Column<E, R, A> {
    return this.alias(name);
  }

  plus<O extends Operand>(other: O): Column<Arith<E, O, false>, R | RefsOf<O>, `(${N} + ${NameOf<O>})`> {
    return arith("+", this, other);
  }
  minus<O extends Operand>(other: O): Column<Arith<E, O, false>, R | RefsOf<O>, `(${N} - ${NameOf<O>})`> {
    return arith("-", this, other);
  }
  multiply<O extends Operand>(other: O): Column<Arith<E, O, false>, R | RefsOf<O>, `(${N} * ${NameOf<O>})`> {
    return arith("*", this, other);
  }
  /** Division always yields float64 (null when dividing by zero), as Spark's `/`. */
  divide<O extends Operand>(other: O): Column<Arith<E, O, true>, R | RefsOf<O>, `(${N} / ${NameOf<O>})`> {
    return arith("/", this, other);
  }
  mod<O extends Operand>(other: O): Column<Arith<E, O, false>, R | RefsOf<O>, `(${N} % ${NameOf<O>})`> {
    return arith("%", this, other);
  }

  equalTo<O extends Operand>(other: O): Column<Bool<[E, ExprOf<O>]>, R | RefsOf<O>, `(${N} = ${NameOf<O>})`> {
    return cmp("=", this, other);
  }
  notEqual<O extends Operand>(other: O): Column<Bool<[E, ExprOf<O>]>, R | RefsOf<O>, `(${N} != ${NameOf<O>})`> {
    return cmp("!=", this, other);
  }
  lt<O extends Operand>(other: O): Column<Bool<[E, ExprOf<O>]>, R | RefsOf<O>, `(${N} < ${NameOf<O>})`> {
    return cmp("<", this, other);
  }
  leq<O extends Operand>(other: O): Column<Bool<[E, ExprOf<O>]>, R | RefsOf<O>, `(${N} <= ${NameOf<O>})`> {
    return cmp("<=", this, other);
  }
  gt<O extends Operand>(other: O): Column<Bool<[E, ExprOf<O>]>, R | RefsOf<O>, `(${N} > ${NameOf<O>})`> {
    return cmp(">", this, other);
  }
  geq<O extends Operand>(other: O): Column<Bool<[E, ExprOf<O>]>, R | RefsOf<O>, `(${N} >= ${NameOf<O>})`> {
    return cmp(">=", this, other);
  }

  /** `lower <= this AND this <= upper`, as Spark's `between` (both bounds inclusive). */
  between<L extends Operand, U extends Operand>(
    lower: L,
    upper: U,
  ): Column<Bool<[E, ExprOf<L>, ExprOf<U>]>, R | RefsOf<L> | RefsOf<U>, `((${N} >= ${NameOf<L>}) AND (${N} <= ${NameOf<U>}))`> {
    return new Column({ kind: "logic", op: "and", left: cmp(">=", this, lower).expr, right: cmp("<=", this, upper).expr });
  }

  and<O extends Operand>(other: O): Column<Bool<[E, ExprOf<O>]>, R | RefsOf<O>, `(${N} AND ${NameOf<O>})`> {
    return new Column({ kind: "logic", op: "and", left: this.expr, right: toExpr(other) });
  }
  or<O extends Operand>(other: O): Column<Bool<[E, ExprOf<O>]>, R | RefsOf<O>, `(${N} OR ${NameOf<O>})`> {
    return new Column({ kind: "logic", op: "or", left: this.expr, right: toExpr(other) });
  }

  isNull(): Column<Fixed<"boolean">, R, `(${N} IS NULL)`> {
    return new Column({ kind: "isNull", child: this.expr, negated: false });
  }
  isNotNull(): Column<Fixed<"boolean">, R, `(${N} IS NOT NULL)`> {
    return new Column({ kind: "isNull", child: this.expr, negated: true });
  }

  /** True when the value is one of `values`; name it with `alias`. */
  isin(...values: Literal[]): Column<Bool<[E]>, R, string> {
    return new Column({ kind: "in", child: this.expr, values });
  }

  /** Spark's non-ANSI CAST: a value that does not convert is null. Windows and headers have no casts. */
  cast<T extends Exclude<DType, "window" | "headers">>(to: T): Column<{ k: "map"; a: E; to: T; nullable: true }, R, `CAST(${N} AS ${Uppercase<T>})`> {
    return new Column({ kind: "cast", child: this.expr, to });
  }

  /** A field of a struct column: `window.start` or `window.end`. */
  getField<F extends "start" | "end">(field: F): Column<{ k: "map"; a: E; to: "timestamp"; nullable: "inherit" }, R, F> {
    if (this.expr.kind !== "col") {
      throw new TypeError(`getField("${field}") needs a column reference such as col("window")`);
    }
    return new Column({ kind: "col", name: `${this.expr.name}.${field}` });
  }

  /** Ascending sort order for `orderBy`. */
  asc(): SortOrder<R> {
    return { expr: this.expr, ascending: true };
  }
  desc(): SortOrder<R> {
    return { expr: this.expr, ascending: false };
  }

  toString(): string {
    return `Column<${JSON.stringify(this.expr)}>`;
  }
}

/**
 * What `struct(...)` returns, as Spark's `struct`. Sluice has no struct column type, so this is
 * not a `Column`: it can only be passed to `to_json()` or nested in another `struct(...)`, and
 * anywhere else it is a compile error (and an `AnalysisError` at run time). `R` and `N` are as
 * for `Column`.
 */
export class StructColumn<R extends string = string, N extends string = string> {
  /** Phantom brand: keeps a struct from passing where a Column is expected, and back. */
  declare readonly __struct: true;
  declare readonly __r?: R;
  declare readonly __n?: N;

  constructor(readonly expr: Expr) {}

  /** Names the struct: its field name when nested in another struct. */
  alias<A extends string>(name: A): StructColumn<R, A> {
    const inner = this.expr.kind === "alias" ? this.expr.child : this.expr;
    return new StructColumn({ kind: "alias", child: inner, name });
  }

  as<A extends string>(name: A): StructColumn<R, A> {
    return this.alias(name);
  }

  toString(): string {
    return `StructColumn<${JSON.stringify(this.expr)}>`;
  }
}

export interface SortOrder<R extends string = string> {
  readonly expr: Expr;
  readonly ascending: boolean;
  /** Phantom: the columns the order reads. */
  readonly __r?: R;
}

/** What column methods accept where Spark accepts a column or a literal. */
export type Operand = Column<any, any, any> | string | number | boolean | Date | null;

export type ExprOf<O> = O extends Column<infer E, any, any> ? E : Fixed<LitType<O>, O extends null ? true : false>;
export type RefsOf<O> = O extends Column<any, infer R, any> ? R : never;
export type NameOf<O> = O extends Column<any, any, infer N>
  ? N
  : O extends string | number | boolean
    ? `${O}`
    : O extends null
      ? "NULL"
      : string;

type Arith<E extends TExpr, O, D extends boolean> = { k: "arith"; div: D; a: E; b: ExprOf<O> };
type Bool<As extends readonly TExpr[]> = { k: "bool"; args: As };

/**
 * Wraps a literal operand. A bare string is a literal here, as in Spark's Column methods
 * (`col("a").equalTo("x")` compares with the text "x"); use `col("x")` for a column.
 */
export function toExpr(o: Operand): Expr {
  return o instanceof Column ? o.expr : literalExpr(o);
}

function arith(op: ArithOp, a: Column<any, any, any>, b: Operand): any {
  return new Column({ kind: "arith", op, left: a.expr, right: toExpr(b) });
}

function cmp(op: CmpOp, a: Column<any, any, any>, b: Operand): any {
  return new Column({ kind: "cmp", op, left: a.expr, right: toExpr(b) });
}
