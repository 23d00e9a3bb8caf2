import type * as arrow from "apache-arrow";
import { emptyBatch, makeBatch, readNumbers, readValidity, type Batch } from "../batch/batch.js";
import { keyViewOf, takeView, viewToArrow, type ColumnView, type WindowView } from "../kernels/hash-table-columns.js";
import { KeyEncoder, type KeyInput } from "../kernels/hash-table-keys.js";
import { KeyHashTable } from "../kernels/hash-table.js";
import { sessionize } from "../kernels/window-session.js";
import { assignWindows, isLate } from "../kernels/window.js";
import type { AggregateSpec } from "../planner/physical.js";
import { aggregateLayout, partialFields, type AggregateLayout } from "./aggregate-layout.js";
import { accumulatePartial } from "./partial-accumulators.js";
import { BaseExec } from "./exec.js";

/** The partial layout, for pipelines' `outputFields` and for the driver (see `aggregate-layout.ts`). */
export { partialFields };

export interface PartialAggregateResult {
  readonly batch: Batch;
  readonly numRowsDroppedByWatermark: number;
}

/**
 * The worker half of a grouped aggregation. The input is laid out as
 * `[plain keys (numPlainKeys)..., event time (windowed only)..., aggregate arguments...]`.
 *
 * Rows are windowed (tumbling / sliding: one entry per window a row falls in; session: rows of
 * a key merged into sessions), late entries are dropped and counted (Spark's rule: a window or
 * session whose end is at or before the watermark, or a timestamp key at or before it), and the
 * rest are grouped by all keys in a typed-array hash table. The output has one row per group in
 * the layout of `partialFields(spec)`, groups in order of first appearance.
 */
export function partialAggregate(batch: Batch, spec: AggregateSpec, watermarkMs: number | null): PartialAggregateResult {
  const layout = aggregateLayout(spec);
  const plain: ColumnView[] = [];
  for (let j = 0; j < spec.numPlainKeys; j++) plain.push(keyViewOf(batch.columns[j]!, batch.fields[j]!.type, batch.fields[j]!.name));
  const late = lateTest(layout, plain, watermarkMs);
  const window = spec.window;
  if (window === null) return groupRows(layout, batch, plain, windowlessRows(batch.numRows, late), null);
  const time = batch.columns[spec.numPlainKeys]!;
  const times = readNumbers(time, batch.fields[spec.numPlainKeys]!.name);
  const valid = readValidity(time);
  switch (window.kind) {
    case "tumbling":
    case "sliding": {
      const assigned = assignWindows(times, valid, window);
      const rows = new Int32Array(assigned.count);
      const starts = new Float64Array(assigned.count);
      let kept = 0;
      for (let k = 0; k < assigned.count; k++) {
        if (late !== null && late(assigned.rows[k]!, assigned.starts[k]! + window.sizeMs)) continue;
        rows[kept] = assigned.rows[k]!;
        starts[kept++] = assigned.starts[k]!;
      }
      const ends = new Float64Array(kept);
      for (let k = 0; k < kept; k++) ends[k] = starts[k]! + window.sizeMs;
      const selected = { rows: rows.subarray(0, kept), dropped: assigned.count - kept };
      return groupRows(layout, batch, plain, selected, { kind: "window", starts: starts.subarray(0, kept), ends });
    }
    case "session":
      return sessionRows(layout, batch, plain, times, valid, window.gapMs, late);
  }
}

/**
 * The worker half of `groupBy(...).agg(...)` (Spark's partial HashAggregateExec): one partial row
 * per group of the task's split; late rows (by the batch's watermark for late events) are dropped and counted.
 */
export class PartialAggregateExec extends BaseExec {
  constructor(readonly spec: AggregateSpec) {
    super();
  }

  process(batch: Batch): Batch {
    const out = partialAggregate(batch, this.spec, this.ctx.batch.watermarkForLateEventsMs);
    this.ctx.metrics.numRowsDroppedByWatermark += out.numRowsDroppedByWatermark;
    return out.batch;
  }
}

/** Whether source row r, whose window (if any) ends at `windowEnd`, is late. */
type LateTest = (r: number, windowEnd: number) => boolean;

/**
 * Spark's late rule for this aggregation: by the end of the row's window (or of its own session
 * window), by a timestamp key, or never (no event-time key, or no watermark yet).
 */
function lateTest(layout: AggregateLayout, plain: readonly ColumnView[], watermarkMs: number | null): LateTest | null {
  const key = layout.spec.eventTimeKey;
  if (key === null || watermarkMs === null) return null;
  if (key.isWindow) return (_r, windowEnd) => isLate(windowEnd, watermarkMs);
  const time = plain[layout.eventTimeKeyPosition];
  // A window column grouped as it is (an aliased window(...)) counts by its end.
  if (time?.kind === "window") return (r) => isLate(time.ends[r]!, watermarkMs);
  if (time?.kind !== "number") throw new Error("the event-time key of an aggregation must be a window or a timestamp");
  return (r) => (time.valid === null || time.valid[r] === 1) && isLate(time.values[r]!, watermarkMs);
}

interface SelectedRows {
  readonly rows: Int32Array;
  readonly dropped: number;
}

/** Rows of a window-less aggregation that are not late. */
function windowlessRows(n: number, late: LateTest | null): SelectedRows {
  const rows = new Int32Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) if (late === null || !late(i, NaN)) rows[kept++] = i;
  return { rows: rows.subarray(0, kept), dropped: n - kept };
}

/** Groups entries (source row `rows[k]`, window `window` entry k) by all keys and accumulates. */
function groupRows(layout: AggregateLayout, batch: Batch, plain: readonly ColumnView[], selected: SelectedRows, window: WindowView | null): PartialAggregateResult {
  const { rows, dropped } = selected;
  const inputs: KeyInput[] = plain.map((view) => ({ view, rows }));
  if (window !== null) inputs.push({ view: window, rows: null });
  const { groupOf, firstEntry } = groupEntries(inputs, rows.length);
  const keyColumns = outputKeys(layout, plain, rows, firstEntry, window === null ? null : (takeView(window, firstEntry) as WindowView));
  return finish(layout, batch, keyColumns, rows, groupOf, firstEntry.length, dropped);
}

/** Merges each key's rows into sessions; one output group per (key, session). */
function sessionRows(
  layout: AggregateLayout,
  batch: Batch,
  plain: readonly ColumnView[],
  times: Float64Array,
  valid: Uint8Array | null,
  gapMs: number,
  late: LateTest | null,
): PartialAggregateResult {
  const candidates = new Int32Array(batch.numRows);
  let kept = 0;
  let dropped = 0;
  for (let i = 0; i < batch.numRows; i++) {
    if (valid !== null && valid[i] === 0) continue;
    // An event's own session window [t, t + gap) decides whether it is late.
    if (late !== null && late(i, times[i]! + gapMs)) dropped++;
    else candidates[kept++] = i;
  }
  const rows = candidates.subarray(0, kept);
  const { groupOf: keyOf } = groupEntries(
    plain.map((view) => ({ view, rows })),
    kept,
  );
  const eventTimes = new Float64Array(kept);
  for (let k = 0; k < kept; k++) eventTimes[k] = times[rows[k]!]!;
  const sessions = sessionize(keyOf, eventTimes, gapMs);
  const orderedRows = new Int32Array(kept);
  for (let k = 0; k < kept; k++) orderedRows[k] = rows[sessions.order[k]!]!;
  const firstEntry = sessions.firstEntry;
  const window: WindowView = { kind: "window", starts: sessions.starts, ends: sessions.ends };
  const keyColumns = outputKeys(layout, plain, orderedRows, firstEntry, window);
  return finish(layout, batch, keyColumns, orderedRows, sessions.sessionOf, sessions.count, dropped);
}

/** One encoder per thread: its buffers are reused by every task a worker runs. */
const encoder = new KeyEncoder();

/** Group of each entry, and the first entry of each group. */
function groupEntries(inputs: readonly KeyInput[], count: number): { groupOf: Int32Array; firstEntry: Int32Array } {
  const keys = encoder.encode(inputs, count);
  const table = new KeyHashTable(Math.min(count, 1 << 16));
  const groupOf = new Int32Array(count);
  const isNew = new Uint8Array(count);
  table.findOrInsert(keys, groupOf, isNew);
  const firstEntry = new Int32Array(table.groupCount);
  for (let k = 0; k < count; k++) if (isNew[k] === 1) firstEntry[groupOf[k]!] = k;
  return { groupOf, firstEntry };
}

/** Key columns in `keyFields` order: plain keys from each group's first entry, and the window. */
function outputKeys(layout: AggregateLayout, plain: readonly ColumnView[], rows: Int32Array, firstEntry: Int32Array, window: WindowView | null): arrow.Data[] {
  const spec = layout.spec;
  const firstRows = new Int32Array(firstEntry.length);
  for (let g = 0; g < firstEntry.length; g++) firstRows[g] = rows[firstEntry[g]!]!;
  const columns: arrow.Data[] = new Array(spec.keyFields.length);
  layout.stateKeyOrder.forEach((k, pos) => {
    const view = pos < plain.length ? takeView(plain[pos]!, firstRows) : window!;
    columns[k] = viewToArrow(view, spec.keyFields[k]!.type);
  });
  return columns;
}

function finish(
  layout: AggregateLayout,
  batch: Batch,
  keyColumns: arrow.Data[],
  rows: Int32Array,
  groupOf: Int32Array,
  numGroups: number,
  dropped: number,
): PartialAggregateResult {
  const fields = partialFields(layout.spec);
  if (numGroups === 0) return { batch: emptyBatch(fields), numRowsDroppedByWatermark: dropped };
  const columns = [...keyColumns, ...accumulatePartial(layout, batch, rows, groupOf, numGroups)];
  return { batch: makeBatch(fields, columns, numGroups), numRowsDroppedByWatermark: dropped };
}
