import { entryCount, spreadEntries, type StringsView } from "./columns.js";
import { compareDoubles } from "./compare.js";
import { doubleWords, RADIX_MIN_ROWS, radixOrder, sortTies, stringPrefixWords, validityWord } from "./radix-order.js";
import { compareUtf8 } from "./utf8.js";

/**
 * ORDER BY with Spark's rules: multi-key, stable, nulls first when ascending and last when
 * descending, NaN larger than every other number. Every key is reduced to float64 values (strings
 * to their rank in byte order, windows to start then end), so the comparator reads typed arrays
 * only.
 */

export interface NumericKey {
  readonly values: Float64Array;
  readonly valid: Uint8Array | null;
  readonly descending: boolean;
}

/**
 * The stable order of rows 0..n-1 by `keys` (each with its own direction), or null when the rows
 * are in that order already.
 */
export function stableOrder(keys: readonly NumericKey[], n: number): Int32Array | null {
  const order = n < RADIX_MIN_ROWS ? comparatorOrder(keys, n) : radixOrder(keys.flatMap((k) => keyWords(k, n)), n);
  for (let i = 0; i < n; i++) if (order[i] !== i) return order;
  return null;
}

/** The same order by a comparator sort (small inputs, and the reference the radix sort is tested against). */
export function comparatorOrder(keys: readonly NumericKey[], n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order.sort((a, b) => compareRows(keys, a, b));
}

/** A key's radix words: validity (nulls lowest), then the double; all inverted when descending, nulls then last. */
function keyWords(key: NumericKey, n: number): Uint32Array[] {
  const words = doubleWords(key.values, key.valid, n);
  const all = key.valid === null ? words : [validityWord(key.valid, n), ...words];
  if (key.descending) for (const word of all) for (let i = 0; i < n; i++) word[i] = ~word[i] >>> 0;
  return all;
}

function compareRows(keys: readonly NumericKey[], a: number, b: number): number {
  for (let k = 0; k < keys.length; k++) {
    const { values, valid, descending } = keys[k];
    let c: number;
    const va = valid === null ? 1 : valid[a];
    const vb = valid === null ? 1 : valid[b];
    if (va & vb) c = compareDoubles(values[a], values[b]);
    else c = va - vb; // null sorts as the smallest value
    if (c !== 0) return descending ? -c : c;
  }
  return a - b; // equal keys keep their input order: the sort is stable whatever the engine does
}

/**
 * Each row's dense rank among the distinct strings of the view in byte (code point) order: equal
 * strings share a rank. Dictionary views rank their dictionary once.
 */
export function stringRanks(view: StringsView, n: number): Float64Array {
  const entries = entryCount(view, n);
  const { offsets, bytes } = view;
  const cmp = (x: number, y: number): number => compareUtf8(bytes, offsets[x], offsets[x + 1], bytes, offsets[y], offsets[y + 1]);
  let byValue: Int32Array;
  if (entries < RADIX_MIN_ROWS) {
    byValue = new Int32Array(entries);
    for (let e = 0; e < entries; e++) byValue[e] = e;
    byValue.sort(cmp);
  } else {
    const prefix = stringPrefixWords(bytes, offsets.subarray(0, entries), offsets.subarray(1, entries + 1), null, entries);
    byValue = radixOrder(prefix.words, entries);
    if (!prefix.exact) sortTies(byValue, prefix.words, cmp);
  }
  const rankOfEntry = new Float64Array(entries);
  let rank = 0;
  for (let k = 0; k < entries; k++) {
    if (k > 0 && cmp(byValue[k - 1], byValue[k]) !== 0) rank++;
    rankOfEntry[byValue[k]] = rank;
  }
  return spreadEntries(rankOfEntry, view, n);
}
