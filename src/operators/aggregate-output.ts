import type * as arrow from "apache-arrow";
import { emptyBatch, makeBatch, type Batch } from "../batch/batch.js";
import { sortedRowOrder, takeView, viewToArrow, type ColumnView } from "../kernels/hash-table-columns.js";
import { decodeKeys } from "../kernels/hash-table-key-decode.js";
import type { StateTable } from "../state/state-table.js";
import { outputFields, type AggregateLayout } from "./aggregate-layout.js";
import { finalColumns } from "./final-accumulators.js";

/**
 * The final rows of the given state slots: `[...keyFields, ...aggFields]`, sorted by the keys
 * ascending in `keyFields` order (nulls first, windows by start then end). Spark leaves the order
 * of an aggregation's output unspecified; Sluice sorts so that every run emits the same rows in
 * the same order.
 */
export function emitRows(layout: AggregateLayout, table: StateTable, slots: Int32Array): Batch {
  const spec = layout.spec;
  const fields = outputFields(spec);
  if (slots.length === 0) return emptyBatch(fields);
  const keyTable = table.keyTable;
  const decoded = decodeKeys(keyTable.keyArena, keyTable.keyStarts, slots, layout.keyKinds);
  const keyViews: ColumnView[] = new Array(spec.keyFields.length);
  layout.stateKeyOrder.forEach((k, pos) => (keyViews[k] = decoded[pos]!));
  const order = sortedRowOrder(keyViews, slots.length);
  const sortedSlots = new Int32Array(slots.length);
  for (let j = 0; j < slots.length; j++) sortedSlots[j] = slots[order[j]!]!;
  const keyColumns: arrow.Data[] = keyViews.map((view, k) => viewToArrow(takeView(view, order), spec.keyFields[k]!.type));
  return makeBatch(fields, [...keyColumns, ...finalColumns(layout, table, sortedSlots)], slots.length);
}
