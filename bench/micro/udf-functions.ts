import type * as arrow from "apache-arrow";

/** The functions bench/micro/udf.ts compares: the same arithmetic, row by row and over a whole vector. */

export function affineRow(x: number | null, args: { readonly a: number; readonly b: number }): number | null {
  return x === null ? null : x * args.a + args.b;
}

export function affineVector(x: arrow.Vector, args: { readonly a: number; readonly b: number }): Float64Array {
  const xs = x.data[0]!.values as Float64Array;
  const out = new Float64Array(x.length);
  const { a, b } = args;
  for (let i = 0; i < out.length; i++) out[i] = xs[i]! * a + b;
  return out;
}
