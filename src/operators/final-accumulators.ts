import type * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { compareDoubles } from "../kernels/compare.js";
import {
  compareBytes,
  numbersToArrow,
  takeView,
  viewOf,
  viewToArrow,
  type ColumnView,
  type NumberView,
} from "../kernels/hash-table-columns.js";
import type { StateTable } from "../state/state-table.js";
import { STATE_ROWS, stateColumnOf, type AggregateLayout } from "./aggregate-layout.js";

/**
 * The driver half of a grouped aggregation: merging accumulators into state rows and turning
 * state rows into final values. A merge source is either a partial batch or the state table
 * itself (session windows merge state rows into one another); both expose the accumulators as
 * views in the same column order.
 */
export interface AccumulatorSource {
  readonly rows: NumberView;
  readonly columns: readonly ColumnView[];
}

export function partialSource(layout: AggregateLayout, partial: Batch): AccumulatorSource {
  const at = (i: number) => viewOf(partial.columns[i]!, partial.fields[i]!.type);
  return {
    rows: at(layout.partialRows) as NumberView,
    columns: layout.accumulatorFields.map((_, c) => at(layout.partialRows + 1 + c)),
  };
}

/** The state's accumulators as a source; take it after inserting rows (columns may have grown). */
export function stateSource(layout: AggregateLayout, table: StateTable): AccumulatorSource {
  return {
    rows: table.view(STATE_ROWS) as NumberView,
    columns: layout.accumulatorFields.map((_, c) => table.view(stateColumnOf(c))),
  };
}

/**
 * Merges the accumulators whose result does not depend on order: row counts, counts, sums,
 * min and max. Source row `srcRows[k]` goes into state slot `dstSlots[k]`.
 */
export function mergeOrderFree(layout: AggregateLayout, table: StateTable, src: AccumulatorSource, srcRows: Int32Array, dstSlots: Int32Array): void {
  addInto(table, STATE_ROWS, src.rows, srcRows, dstSlots);
  for (const acc of layout.accumulators) {
    switch (acc.kind) {
      case "count":
        addInto(table, stateColumnOf(acc.offset), src.columns[acc.offset] as NumberView, srcRows, dstSlots);
        break;
      case "sumCount":
        addInto(table, stateColumnOf(acc.offset), src.columns[acc.offset] as NumberView, srcRows, dstSlots);
        addInto(table, stateColumnOf(acc.offset + 1), src.columns[acc.offset + 1] as NumberView, srcRows, dstSlots);
        break;
      case "value":
        if (acc.call.fn === "min" || acc.call.fn === "max") {
          keepExtreme(table, stateColumnOf(acc.offset), src.columns[acc.offset]!, srcRows, dstSlots, acc.call.fn === "min" ? -1 : 1);
        }
        break;
    }
  }
}

/**
 * Writes the first() (or last()) values of the given source rows into their slots, in order, so
 * that for a slot given several rows the last one wins. Callers pass, per slot, the rows that
 * come first (or last) in the aggregate's order.
 */
export function assignOrdered(
  layout: AggregateLayout,
  table: StateTable,
  src: AccumulatorSource,
  srcRows: Int32Array,
  dstSlots: Int32Array,
  fn: "first" | "last",
): void {
  for (const acc of layout.accumulators) {
    if (acc.call.fn !== fn) continue;
    const col = table.column(stateColumnOf(acc.offset));
    const from = src.columns[acc.offset]!;
    for (let k = 0; k < srcRows.length; k++) {
      const r = srcRows[k]!;
      const d = dstSlots[k]!;
      if (from.kind === "window" || (from.valid !== null && from.valid[r] === 0)) col.clear(d);
      else if (col.kind === "f64") col.set(d, (from as NumberView).values[r]!);
      else if (from.kind === "string") col.set(d, from.bytes, from.starts[r]!, from.ends[r]!);
    }
  }
}

function addInto(table: StateTable, col: number, src: NumberView, srcRows: Int32Array, dstSlots: Int32Array): void {
  const dst = table.f64(col);
  const values = dst.values;
  const valid = dst.valid;
  for (let k = 0; k < srcRows.length; k++) {
    const d = dstSlots[k]!;
    values[d]! += src.values[srcRows[k]!]!;
    valid[d] = 1;
  }
}

/** Keeps the smaller (better = -1) or larger (better = 1) of the slot's and the source's values. */
function keepExtreme(table: StateTable, col: number, src: ColumnView, srcRows: Int32Array, dstSlots: Int32Array, better: number): void {
  const dst = table.column(col);
  for (let k = 0; k < srcRows.length; k++) {
    const r = srcRows[k]!;
    const d = dstSlots[k]!;
    if (src.kind === "window" || (src.valid !== null && src.valid[r] === 0)) continue;
    if (dst.kind === "f64") {
      const v = (src as NumberView).values[r]!;
      if (dst.valid[d] === 0 || compareDoubles(v, dst.values[d]!) === better) dst.set(d, v);
    } else if (src.kind === "string") {
      const s = src.starts[r]!;
      const e = src.ends[r]!;
      if (dst.valid[d] === 0 || compareBytes(src.bytes, s, e, dst.arena, dst.starts[d]!, dst.ends[d]!) === better) dst.set(d, src.bytes, s, e);
    }
  }
}

/** Final aggregate columns (in `aggFields` order) of the given state slots, in that order. */
export function finalColumns(layout: AggregateLayout, table: StateTable, slots: Int32Array): arrow.Data[] {
  return layout.accumulators.map((acc) => {
    const type = acc.output.type;
    const column = (c: number) => takeView(table.view(stateColumnOf(c)), slots);
    switch (acc.kind) {
      case "count":
        return numbersToArrow((column(acc.offset) as NumberView).values, null, "int64");
      case "sumCount": {
        const sums = (column(acc.offset) as NumberView).values;
        const counts = (column(acc.offset + 1) as NumberView).values;
        const valid = new Uint8Array(slots.length);
        const out = new Float64Array(slots.length);
        const average = acc.call.fn === "avg";
        for (let j = 0; j < slots.length; j++) {
          if (counts[j] === 0) continue;
          valid[j] = 1;
          out[j] = average ? sums[j]! / counts[j]! : sums[j]!;
        }
        return numbersToArrow(out, valid, type);
      }
      case "value":
        return viewToArrow(column(acc.offset), type);
    }
  });
}
