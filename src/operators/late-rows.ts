import { type Batch, columnIndex } from "../batch/batch.js";
import { InternalError } from "../errors/errors.js";
import { takeRows } from "../kernels/gather.js";
import { viewOf } from "../kernels/hash-table-columns.js";
import { isLate } from "../kernels/window.js";

/** Each row's event time in epoch ms (NaN when null): a window counts by its end. */
export function eventTimesOf(batch: Batch, column: string): Float64Array {
  return eventTimesAt(batch, columnIndex(batch, column));
}

/** `eventTimesOf` for the column at `index`. */
export function eventTimesAt(batch: Batch, index: number): Float64Array {
  const column = batch.fields[index]!.name;
  const view = viewOf(batch.columns[index]!, batch.fields[index]!.type, column);
  if (view.kind === "window") return view.ends;
  if (view.kind !== "number") throw new InternalError(`event-time column "${column}" is not a timestamp`);
  if (view.valid === null) return view.values;
  return view.values.map((v, i) => (view.valid![i] === 0 ? NaN : v));
}

/**
 * The rows of `batch` that are not late by `watermarkMs` (event time at or before it, Spark's
 * watermarkForLateEvents) and how many were dropped; the batch itself when none is late.
 */
export function withoutLateRows(batch: Batch, column: string | null, watermarkMs: number | null): { readonly batch: Batch; readonly dropped: number } {
  if (column === null || watermarkMs === null || batch.numRows === 0) return { batch, dropped: 0 };
  const times = eventTimesOf(batch, column);
  const kept = new Int32Array(batch.numRows);
  let n = 0;
  for (let r = 0; r < times.length; r++) if (!isLate(times[r]!, watermarkMs)) kept[n++] = r;
  return n === batch.numRows ? { batch, dropped: 0 } : { batch: takeRows(batch, kept.subarray(0, n)), dropped: batch.numRows - n };
}
