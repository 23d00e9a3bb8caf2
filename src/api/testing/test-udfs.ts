import { existsSync, writeFileSync } from "node:fs";
import * as arrow from "apache-arrow";

/** Functions the UDF tests call, each as a module export that the workers import. */

export function addOne(x: number | null): number | null {
  return x === null ? null : x + 1;
}

export function label(name: string | null, n: number | null, args: { readonly prefix: string }): string {
  return `${args.prefix}${name ?? "?"}:${n ?? "null"}`;
}

export function isEven(n: number): boolean {
  return n % 2 === 0;
}

export function dayOf(t: Date): string {
  return t.toISOString().slice(0, 10);
}

export function failOnThree(n: number): number {
  if (n === 3) throw new RangeError("three is not allowed");
  return n;
}

export function returnsText(_n: number): unknown {
  return "not a number";
}

export function returnsPromise(n: number): unknown {
  return Promise.resolve(n);
}

/** Fails the first time it sees a row, anywhere: a marker file (args.marker) says it failed already. */
export function failOnce(n: number, args: { readonly marker: string }): number {
  if (!existsSync(args.marker)) {
    writeFileSync(args.marker, "failed once");
    throw new Error("a passing failure");
  }
  return n * 10;
}

/** x * args.factor + y, over whole vectors. */
export function scaleAndAdd(x: arrow.Vector, y: arrow.Vector, args: { readonly factor: number }): Float64Array {
  const xs = x.toArray() as Float64Array;
  const ys = y.toArray() as Float64Array;
  const out = new Float64Array(x.length);
  for (let i = 0; i < out.length; i++) out[i] = xs[i]! * args.factor + ys[i]!;
  return out;
}

/** The Vector of the names' lengths, nulls kept. */
export function nameLengths(names: arrow.Vector): arrow.Vector {
  const out: (number | null)[] = [];
  for (let i = 0; i < names.length; i++) {
    const v = names.get(i) as string | null;
    out.push(v === null ? null : v.length);
  }
  return arrow.vectorFromArray(out, new arrow.Int32());
}

export function upperAll(names: arrow.Vector): (string | null)[] {
  return Array.from({ length: names.length }, (_, i) => (names.get(i) as string | null)?.toUpperCase() ?? null);
}

export function tooShort(x: arrow.Vector): Float64Array {
  return new Float64Array(Math.max(0, x.length - 1));
}

export function wrongVectorType(x: arrow.Vector): arrow.Vector {
  return arrow.vectorFromArray(Array.from({ length: x.length }, () => "x"), new arrow.Utf8());
}

export function throwsOnBatch(_x: arrow.Vector): never {
  throw new Error("the model is not loaded");
}

export const notAFunction = 42;

/** Results in each form a vector UDF may give them. */
export function chunked(x: arrow.Vector): arrow.Vector {
  const half = Math.floor(x.length / 2);
  const values = Array.from({ length: x.length }, (_, i) => i * 1.5);
  return arrow.vectorFromArray(values.slice(0, half), new arrow.Float64()).concat(arrow.vectorFromArray(values.slice(half), new arrow.Float64()));
}

export function bigints(x: arrow.Vector): BigInt64Array {
  return BigInt64Array.from({ length: x.length }, (_, i) => 2n ** 60n + BigInt(i));
}

export function evens(x: arrow.Vector): Uint8Array {
  return Uint8Array.from({ length: x.length }, (_, i) => (i % 2 === 0 ? 1 : 0));
}

export function epochMillis(x: arrow.Vector): Float64Array {
  return Float64Array.from({ length: x.length }, (_, i) => Date.UTC(2026, 0, 1) + i * 60_000);
}

export function narrowInts(x: arrow.Vector): Int16Array {
  return Int16Array.from({ length: x.length }, (_, i) => -i);
}

export function bytesOf(names: arrow.Vector): (Uint8Array | null)[] {
  return Array.from({ length: names.length }, (_, i) => {
    const v = names.get(i) as string | null;
    return v === null ? null : new TextEncoder().encode(v);
  });
}
