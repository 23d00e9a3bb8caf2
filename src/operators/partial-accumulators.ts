import type * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { compareDoubles } from "../kernels/compare.js";
import { float64Column } from "../batch/batch.js";
import {
  compareBytes,
  keyViewOf,
  takeView,
  viewOf,
  viewToArrow,
  type ColumnView,
} from "../kernels/hash-table-columns.js";
import type { AccumulatorLayout, AggregateLayout } from "./aggregate-layout.js";

/**
 * Accumulates the aggregates of grouped rows within one split (the worker half). Entry k of the
 * grouping is source row `rows[k]` in group `groupOf[k]`; entries are visited in k order, which
 * is what first() and last() follow. Returns the "#rows" column followed by the accumulator
 * columns (see `aggregate-layout.ts`).
 */
export function accumulatePartial(
  layout: AggregateLayout,
  batch: Batch,
  rows: Int32Array,
  groupOf: Int32Array,
  numGroups: number,
): arrow.Data[] {
  const out: arrow.Data[] = [float64Column(countRows(groupOf, numGroups))];
  for (const acc of layout.accumulators) {
    // count() reads only validity, so an int64 beyond ±(2^53 - 1) is no error there.
    const read = acc.kind === "count" ? keyViewOf : viewOf;
    const input = acc.call.input < 0 ? null : read(batch.columns[acc.call.input]!, batch.fields[acc.call.input]!.type, batch.fields[acc.call.input]!.name);
    out.push(...accumulateOne(acc, input, rows, groupOf, numGroups));
  }
  return out;
}

function accumulateOne(acc: AccumulatorLayout, input: ColumnView | null, rows: Int32Array, groupOf: Int32Array, numGroups: number): arrow.Data[] {
  switch (acc.kind) {
    case "count":
      return [float64Column(input === null ? countRows(groupOf, numGroups) : countValid(input, rows, groupOf, numGroups))];
    case "sumCount": {
      const { sums, counts } = sumValid(numeric(input, acc), rows, groupOf, numGroups);
      return [float64Column(sums), float64Column(counts)];
    }
    case "value": {
      const view = input ?? missingInput(acc);
      const winners = winnerRows(acc, view, rows, groupOf, numGroups);
      return [viewToArrow(takeView(view, winners), acc.valueType)];
    }
  }
}

function countRows(groupOf: Int32Array, numGroups: number): Float64Array {
  const counts = new Float64Array(numGroups);
  for (let k = 0; k < groupOf.length; k++) counts[groupOf[k]!]!++;
  return counts;
}

function countValid(input: ColumnView, rows: Int32Array, groupOf: Int32Array, numGroups: number): Float64Array {
  if (input.kind === "window" || input.valid === null) return countRows(groupOf, numGroups);
  const valid = input.valid;
  const counts = new Float64Array(numGroups);
  for (let k = 0; k < groupOf.length; k++) counts[groupOf[k]!]! += valid[rows[k]!]!;
  return counts;
}

function sumValid(input: Extract<ColumnView, { kind: "number" }>, rows: Int32Array, groupOf: Int32Array, numGroups: number) {
  const sums = new Float64Array(numGroups);
  const counts = new Float64Array(numGroups);
  const { values, valid } = input;
  for (let k = 0; k < groupOf.length; k++) {
    const r = rows[k]!;
    if (valid !== null && valid[r] === 0) continue;
    const g = groupOf[k]!;
    sums[g]! += values[r]!;
    counts[g]!++;
  }
  return { sums, counts };
}

/** The source row whose value each group reports, -1 when none (min / max of only nulls). */
function winnerRows(acc: AccumulatorLayout, input: ColumnView, rows: Int32Array, groupOf: Int32Array, numGroups: number): Int32Array {
  const winners = new Int32Array(numGroups).fill(-1);
  switch (acc.call.fn) {
    case "first":
      for (let k = 0; k < groupOf.length; k++) if (winners[groupOf[k]!] === -1) winners[groupOf[k]!] = rows[k]!;
      return winners;
    case "last":
      for (let k = 0; k < groupOf.length; k++) winners[groupOf[k]!] = rows[k]!;
      return winners;
    case "min":
    case "max": {
      const better = acc.call.fn === "min" ? -1 : 1;
      for (let k = 0; k < groupOf.length; k++) {
        const r = rows[k]!;
        const g = groupOf[k]!;
        if (!validAt(input, r)) continue;
        const w = winners[g]!;
        if (w === -1 || compareRows(input, r, w) === better) winners[g] = r;
      }
      return winners;
    }
    default:
      throw new Error(`${acc.call.fn}() does not keep a value accumulator`);
  }
}

function validAt(v: ColumnView, r: number): boolean {
  return v.kind === "window" || v.valid === null || v.valid[r] === 1;
}

function compareRows(v: ColumnView, a: number, b: number): number {
  switch (v.kind) {
    case "number":
      return compareDoubles(v.values[a]!, v.values[b]!);
    case "string":
      return compareBytes(v.bytes, v.starts[a]!, v.ends[a]!, v.bytes, v.starts[b]!, v.ends[b]!);
    case "window":
      throw new Error("windows have no min or max");
  }
}

function numeric(input: ColumnView | null, acc: AccumulatorLayout): Extract<ColumnView, { kind: "number" }> {
  if (input === null || input.kind !== "number") throw new Error(`${acc.call.fn}("${acc.call.name}") needs a numeric argument column`);
  return input;
}

function missingInput(acc: AccumulatorLayout): never {
  throw new Error(`${acc.call.fn}("${acc.call.name}") needs an argument column`);
}
