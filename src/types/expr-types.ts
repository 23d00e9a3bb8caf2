import type { ColType, DType, SchemaShape } from "./dtype.js";

/**
 * Type-level shadow of an expression: enough structure to compute, once the schema is known,
 * the column type an expression produces. `col("x")` does not know its schema, so a column's
 * type is resolved only when a DataFrame method receives it (`Resolve<E, S>`).
 */
export type TExpr =
  | { readonly k: "ref"; readonly n: string }
  | { readonly k: "fixed"; readonly t: ColType }
  | { readonly k: "arith"; readonly div: boolean; readonly a: TExpr; readonly b: TExpr }
  | { readonly k: "bool"; readonly args: readonly TExpr[] }
  | { readonly k: "same"; readonly a: TExpr; readonly nullable: boolean | "inherit" }
  | { readonly k: "sum"; readonly a: TExpr }
  /** "inheritOrDouble": nullable where the argument is, and always for a double (NaN has no value, e.g. timestamp_seconds). */
  | { readonly k: "map"; readonly a: TExpr; readonly to: DType; readonly nullable: boolean | "inherit" | "inheritOrDouble" }
  | { readonly k: "case"; readonly values: readonly TExpr[] }
  /** A day-time interval literal: no column type of its own, it shifts the timestamp it is added to. */
  | { readonly k: "interval" }
  /** `expr("...")`: a column whose type the analyzer finds only when the query is built. */
  | { readonly k: "unknown" };

export type Ref<N extends string> = { readonly k: "ref"; readonly n: N };
export type Fixed<T extends DType, Nl extends boolean = false> = { readonly k: "fixed"; readonly t: ColType<T, Nl> };

type Promote<A extends DType, B extends DType> = A extends "float64"
  ? "float64"
  : B extends "float64"
    ? "float64"
    : A extends "int64"
      ? "int64"
      : B extends "int64"
        ? "int64"
        : A;

type Or<A extends boolean, B extends boolean> = true extends A | B ? true : false;

type AnyNullable<Ts extends readonly ColType[]> = true extends Ts[number]["nullable"] ? true : false;

type ResolveAll<Es extends readonly unknown[], S extends SchemaShape> = {
  [I in keyof Es]: Resolve<Es[I], S>;
};

/** `window.start` / `window.end` on a window-typed column, as Spark's struct field access. */
type ResolveRef<N extends string, S extends SchemaShape> = N extends keyof S
  ? S[N]
  : N extends `${infer W}.${"start" | "end"}`
    ? W extends keyof S
      ? S[W]["type"] extends "window"
        ? ColType<"timestamp", S[W]["nullable"]>
        : never
      : never
    : never;

export type Resolve<E, S extends SchemaShape> = E extends { k: "unknown" }
  ? ColType
  : E extends { k: "arith"; a: infer A; b: { k: "interval" } }
    ? Resolve<A, S>
    : E extends { k: "arith"; a: { k: "interval" }; b: infer B }
      ? Resolve<B, S>
      : E extends { k: "arith"; a: { k: "unknown" } } | { k: "arith"; b: { k: "unknown" } }
        ? ColType
        : ResolveTyped<E, S>;

type ResolveTyped<E, S extends SchemaShape> = E extends { k: "ref"; n: infer N extends string }
  ? ResolveRef<N, S>
  : E extends { k: "fixed"; t: infer T extends ColType }
    ? T
    : E extends { k: "arith"; div: infer D; a: infer A; b: infer B }
      ? ColType<
          D extends true ? "float64" : Promote<Resolve<A, S>["type"], Resolve<B, S>["type"]>,
          D extends true ? true : Or<Resolve<A, S>["nullable"], Resolve<B, S>["nullable"]>
        >
      : E extends { k: "bool"; args: infer As extends readonly unknown[] }
        ? ColType<"boolean", AnyNullable<ResolveAll<As, S>>>
        : E extends { k: "same"; a: infer A; nullable: infer Nl }
          ? ColType<Resolve<A, S>["type"], Nl extends boolean ? Nl : Resolve<A, S>["nullable"]>
          : E extends { k: "sum"; a: infer A }
            ? ColType<Resolve<A, S>["type"] extends "float64" ? "float64" : "int64", true>
            : E extends { k: "map"; a: infer A; to: infer T extends DType; nullable: infer Nl }
              ? ColType<T, Nl extends boolean ? Nl : Nl extends "inheritOrDouble" ? Or<Resolve<A, S>["type"] extends "float64" ? true : false, Resolve<A, S>["nullable"]> : Resolve<A, S>["nullable"]>
              : E extends { k: "case"; values: infer Vs extends readonly unknown[] }
                ? ColType<Resolve<Vs[0], S>["type"], true>
                : never;

/** The type a literal value gets: integers are int32 and other numbers float64, as Spark's `lit`. */
export type LitType<V> = V extends string
  ? "string"
  : V extends boolean
    ? "boolean"
    : V extends Date
      ? "timestamp"
      : V extends number
        ? number extends V
          ? "float64"
          : `${V}` extends `${string}.${string}` | `${string}e${string}`
            ? "float64"
            : "int32"
        : "string";
