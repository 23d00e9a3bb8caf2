import type { Batch } from "../batch/batch.js";
import { keyViewOf, viewOf, type ColumnView, type NumberView } from "../kernels/hash-table-columns.js";
import { KeyEncoder } from "../kernels/hash-table-keys.js";
import { isLate } from "../kernels/window.js";
import type { StateTable } from "../state/state-table.js";
import { ROWS_COLUMN, STATE_EVENT_TIME, type AggregateLayout } from "./aggregate-layout.js";
import { assignOrdered, mergeOrderFree, partialSource } from "./final-accumulators.js";

/** Key columns of a partial batch in encoding order (plain keys, then the window). */
export function partialKeyViews(layout: AggregateLayout, partial: Batch): ColumnView[] {
  const expected = layout.partialRows + 1 + layout.accumulatorFields.length;
  if (partial.fields.length !== expected || partial.fields[layout.partialRows]!.name !== ROWS_COLUMN) {
    const names = partial.fields.map((f) => f.name).join(", ");
    throw new Error(`a partial aggregate needs the ${expected} columns of partialFields(spec), got [${names}]; was it made by partialAggregate with the same spec?`);
  }
  return layout.stateKeyOrder.map((k) => keyViewOf(partial.columns[k]!, layout.spec.keyFields[k]!.type));
}

/** Each partial row's event time (window end, or timestamp key; NaN when null); null without one. */
export function partialEventTimes(layout: AggregateLayout, keyViews: readonly ColumnView[]): Float64Array | null {
  if (layout.eventTimeKeyPosition < 0) return null;
  const view = keyViews[layout.eventTimeKeyPosition]!;
  switch (view.kind) {
    case "window":
      return view.ends;
    case "number": {
      if (view.valid === null) return view.values;
      const out = Float64Array.from(view.values);
      for (let i = 0; i < out.length; i++) if (view.valid[i] === 0) out[i] = NaN;
      return out;
    }
    case "string":
      throw new Error("an event-time key must be a window or a timestamp");
  }
}

/**
 * Rows of a partial batch that are not late by `lateBy`, and how many input rows (their "#rows")
 * the late ones stood for.
 */
export function rowsNotLate(partial: Batch, rowsColumn: number, times: Float64Array | null, lateBy: number | null): { rows: Int32Array; droppedInputRows: number } {
  const n = partial.numRows;
  const rows = new Int32Array(n);
  const inputRows = viewOf(partial.columns[rowsColumn]!, "float64") as NumberView;
  let kept = 0;
  let dropped = 0;
  for (let i = 0; i < n; i++) {
    if (times !== null && isLate(times[i]!, lateBy)) dropped += inputRows.values[i]!;
    else rows[kept++] = i;
  }
  return { rows: rows.subarray(0, kept), droppedInputRows: dropped };
}

/**
 * Merges partial rows into the groups of a (non-session) aggregation: one state row per key.
 * Rows whose group would already be final at `lateBy` are dropped (workers drop them first;
 * this guards state that was already emitted and evicted).
 */
export class GroupMerger {
  private readonly encoder = new KeyEncoder();

  constructor(private readonly layout: AggregateLayout) {}

  /** Returns the number of input rows dropped as late. */
  merge(table: StateTable, partial: Batch, lateBy: number | null): number {
    const layout = this.layout;
    const keyViews = partialKeyViews(layout, partial);
    const times = partialEventTimes(layout, keyViews);
    const { rows, droppedInputRows } = rowsNotLate(partial, layout.partialRows, times, lateBy);
    const n = rows.length;
    const keys = this.encoder.encode(
      keyViews.map((view) => ({ view, rows })),
      n,
    );
    const slots = new Int32Array(n);
    const isNew = new Uint8Array(n);
    table.upsert(keys, slots, isNew);
    const eventTime = table.f64(STATE_EVENT_TIME);
    let created = 0;
    for (let k = 0; k < n; k++) {
      table.markUpdated(slots[k]!);
      if (isNew[k] === 0) continue;
      created++;
      const t = times === null ? NaN : times[rows[k]!]!;
      if (t === t) eventTime.set(slots[k]!, t);
    }
    const src = partialSource(layout, partial);
    mergeOrderFree(layout, table, src, rows, slots);
    // first() comes from the row that created the group; last() from every row, the latest winning.
    const firstRows = new Int32Array(created);
    const firstSlots = new Int32Array(created);
    for (let k = 0, j = 0; k < n; k++) {
      if (isNew[k] === 0) continue;
      firstRows[j] = rows[k]!;
      firstSlots[j++] = slots[k]!;
    }
    assignOrdered(layout, table, src, firstRows, firstSlots, "first");
    assignOrdered(layout, table, src, rows, slots, "last");
    return droppedInputRows;
  }
}
