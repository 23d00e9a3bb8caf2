import { entryCount, spreadEntries } from "../kernels/columns.js";
import { encodeUtf8, equalUtf8 } from "../kernels/utf8.js";
import type { DType } from "../types/dtype.js";
import type { Literal } from "./ast.js";
import { literalValue } from "./eval-literal.js";
import { type BoolVec, type StrVec, type Vec, restrictValidity } from "./eval-vec.js";

/**
 * `x IN (v1, v2, ...)` with SQL's three-valued answer: true when x equals a listed value; null when
 * x is null, or when nothing matched and the list holds a null; false otherwise. List values are
 * converted to x's type first (Spark's implicit cast); NaN matches NaN.
 */
export interface InList {
  /** Per row: 1 when the value is in the list (rows that are null themselves are irrelevant). */
  readonly test: (child: Vec, n: number) => Uint8Array;
  /** True when the list holds a null, so a miss is unknown rather than false. */
  readonly hasNull: boolean;
}

/** Prepares a list once, at compile time, for a child of type `type`. */
export function prepareInList(values: readonly Literal[], type: DType): InList {
  const converted = values.map((v) => literalValue(v, type));
  const hasNull = converted.some((v) => v === null);
  const present = converted.filter((v) => v !== null);
  if (type === "string" || type === "binary") {
    const encoded = present.map((v) => encodeUtf8(v as string));
    return { hasNull, test: (child, n) => stringsInList(child as StrVec, encoded, n) };
  }
  // Numbers, timestamps and booleans all arrive as numbers; a Set uses SameValueZero (NaN = NaN).
  const numbers = new Set(present.map((v) => (typeof v === "boolean" ? +v : (v as number))));
  return {
    hasNull,
    test: (child, n) => {
      const values = child.kind === "num" || child.kind === "bool" ? child.values : new Float64Array(n);
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = +numbers.has(values[i]);
      return out;
    },
  };
}

function stringsInList(child: StrVec, candidates: readonly Uint8Array[], n: number): Uint8Array {
  const view = child.strings;
  const { offsets, bytes } = view;
  const entries = entryCount(view, n);
  const perEntry = new Uint8Array(entries);
  for (let e = 0; e < entries; e++) {
    for (const c of candidates) {
      if (equalUtf8(bytes, offsets[e], offsets[e + 1], c, 0, c.length)) {
        perEntry[e] = 1;
        break;
      }
    }
  }
  return spreadEntries(perEntry, view, n);
}

/** Applies a prepared list to a vector. */
export function isIn(list: InList, child: Vec, n: number): BoolVec {
  const hits = list.test(child, n);
  // A miss against a list holding null is unknown: the row becomes null unless it matched.
  const valid = list.hasNull ? restrictValidity(child.valid, hits) : child.valid;
  return { kind: "bool", values: hits, valid };
}
