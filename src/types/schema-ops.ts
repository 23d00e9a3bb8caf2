import type { Column } from "../api/column.js";
import type { ColType, SchemaShape } from "./dtype.js";
import type { Resolve } from "./expr-types.js";

/** Type-level results of DataFrame methods: how column names and types flow through a query. */

/** Flattens an intersection into one object type, kept as a schema for the compiler. */
type Simplify<T> = Shape<{ [K in keyof T]: T[K] } & {}>;
type Shape<T> = T extends SchemaShape ? T : never;

export type ColumnName<S extends SchemaShape> = keyof S & string;

/** A column expression that reads only columns of S. */
export type ColumnOf<S extends SchemaShape> = Column<any, ColumnName<S> | WindowField<S>, any>;

/** `"window.start"` / `"window.end"` for each window-typed column of S. */
type WindowField<S extends SchemaShape> = {
  [K in ColumnName<S>]: S[K]["type"] extends "window" ? K : never;
}[ColumnName<S>];

/** What `select` and `groupBy` take: a column name or a column expression over S. */
export type Selectable<S extends SchemaShape> = ColumnName<S> | ColumnOf<S>;

type OutputPair<S extends SchemaShape, C> = C extends ColumnName<S>
  ? [C, S[C]]
  : C extends { readonly __decoded?: infer J extends SchemaShape }
    ? { [K in keyof J & string]: [K, J[K]] }[keyof J & string]
    : C extends Column<infer E, any, infer N>
    ? [N, Resolve<E, S>]
    : never;

/** The schema of `select(...cs)`. */
export type SelectSchema<S extends SchemaShape, Cs extends readonly unknown[]> = Simplify<{
  readonly [P in OutputPair<S, Cs[number]> as P[0]]: P[1];
}>;

export type WithColumnSchema<S extends SchemaShape, K extends string, C> = Simplify<
  { readonly [P in Exclude<keyof S, K>]: S[P] } & {
    readonly [P in K]: C extends Column<infer E, any, any> ? Resolve<E, S> : never;
  }
>;

export type RenameSchema<S extends SchemaShape, From extends keyof S, To extends string> = Simplify<{
  readonly [P in keyof S as P extends From ? To : P]: S[P];
}>;

export type DropSchema<S extends SchemaShape, K extends keyof S> = Simplify<{ readonly [P in Exclude<keyof S, K>]: S[P] }>;

type Nullable<S extends SchemaShape> = { readonly [P in keyof S]: ColType<S[P]["type"], true> };

/** `join` type names, as Spark spells them (case-insensitive at run time). */
export type JoinHow =
  | "inner"
  | "left" | "left_outer" | "leftouter"
  | "right" | "right_outer" | "rightouter"
  | "full" | "outer" | "full_outer" | "fullouter"
  | "left_semi" | "leftsemi" | "semi"
  | "left_anti" | "leftanti" | "anti";

/** Joins that give the left columns only: a left row that has a match (semi) or has none (anti). */
type LeftOnlyHow = "left_semi" | "leftsemi" | "semi" | "left_anti" | "leftanti" | "anti";
/** Joins that may leave a left row without a match (its right columns null). */
type RightMayBeNull = "left" | "left_outer" | "leftouter" | "full" | "outer" | "full_outer" | "fullouter";
/** Joins that may leave a right row without a match (its left columns null). */
type LeftMayBeNull = "right" | "right_outer" | "rightouter" | "full" | "outer" | "full_outer" | "fullouter";

type NullableIf<S extends SchemaShape, Yes extends boolean> = Yes extends true ? Nullable<S> : S;

/** The schema of `left.join(right, on, how)`: every left column (the keys once), then the right side's others. */
export type JoinSchema<L extends SchemaShape, R extends SchemaShape, On extends string, How extends string> = Simplify<
  How extends LeftOnlyHow
    ? L
    : NullableIf<Omit<L, On>, How extends LeftMayBeNull ? true : false> & {
        readonly [K in On & keyof L & keyof R]: How extends "right" | "right_outer" | "rightouter"
          ? R[K]
          : How extends "full" | "outer" | "full_outer" | "fullouter"
            ? ColType<L[K]["type"], L[K]["nullable"] | R[K]["nullable"]>
            : L[K];
      } & NullableIf<Omit<R, On>, How extends RightMayBeNull ? true : false>
>;

/** A right column whose name the left side has too comes out of a condition join as `<name>_right`. */
type RightOfConditionJoin<L extends SchemaShape, R extends SchemaShape> = {
  readonly [K in keyof R as K extends keyof L ? `${K & string}_right` : K]: R[K];
};

/** The schema of `left.join(right, condition, how)`: every left column, then every right one. */
export type ConditionJoinSchema<L extends SchemaShape, R extends SchemaShape, How extends string> = Simplify<
  How extends LeftOnlyHow
    ? L
    : NullableIf<L, How extends LeftMayBeNull ? true : false> &
        NullableIf<RightOfConditionJoin<L, R>, How extends RightMayBeNull ? true : false>
>;

export type MergeSchemas<A extends SchemaShape, B extends SchemaShape> = Simplify<A & B>;

type NumericDType = "int32" | "int64" | "float64";

/**
 * The types a union may meet `T` with (plan/union-types.ts has the rules): numbers widen among
 * themselves, a string takes numbers and timestamps, every other type only itself.
 */
type UnionPartner<T> = T extends NumericDType
  ? NumericDType | "string"
  : T extends "string"
    ? NumericDType | "string" | "timestamp"
    : T extends "timestamp"
      ? "timestamp" | "string"
      : T;

/** What `union` accepts beside S: the same column names, each of a type S's column widens with. */
export type UnionInput<S extends SchemaShape> = { readonly [K in keyof S]: ColType<UnionPartner<S[K]["type"]>> };

/** The wider of two column types, as `union` widens them. */
export type WiderType<A, B> = [A] extends [B]
  ? A
  : "string" extends A | B
    ? "string"
    : "float64" extends A | B
      ? "float64"
      : "int64" extends A | B
        ? "int64"
        : A;

/** The schema of `a.union(b)`: a's names, each column widened with b's, nullable where either is. */
export type UnionSchema<A extends SchemaShape, B extends SchemaShape> = Simplify<{
  readonly [K in keyof A]: K extends keyof B ? ColType<WiderType<A[K]["type"], B[K]["type"]>, true extends A[K]["nullable"] | B[K]["nullable"] ? true : false> : A[K];
}>;
