import { columnIndex, type Batch } from "../batch/batch.js";
import { AnalysisError } from "../errors/errors.js";
import { takeRows } from "../kernels/gather.js";
import { viewOf } from "../kernels/hash-table-columns.js";
import { KeyEncoder } from "../kernels/hash-table-keys.js";
import { isLate } from "../kernels/window.js";
import type { StatefulSpec } from "../planner/physical.js";
import type { StateStore } from "../state/state-store.js";
import type { Fields } from "../types/dtype.js";
import { StateBatchAccounting, type StateOperatorMetrics } from "./state-metrics.js";

export type DeduplicateSpec = Extract<StatefulSpec, { kind: "deduplicate" }>;

/** The one state column: when a key may be forgotten (epoch ms), null when never. */
const EXPIRY = 0;

/**
 * Streaming deduplication: passes on the first row of each key, in input order, and remembers
 * the key in versioned state.
 *
 * - `dropDuplicates(cols)`: the key is `cols`. With a watermarked event-time column, rows at or
 *   before the watermark are dropped as late (and counted); when that column is one of `cols`,
 *   a key is forgotten once its event time is at or before the watermark. Otherwise keys are
 *   kept forever.
 * - `dropDuplicatesWithinWatermark(cols)`: the key is `cols` without the event-time column; a key
 *   is forgotten once its first event time + the watermark delay is at or before the watermark,
 *   so duplicates arriving within the delay are dropped. Late rows are dropped as above.
 */
export class DeduplicateExec {
  private readonly keyColumns: readonly number[];
  private readonly eventTimeIndex: number;
  private readonly withinDelayMs: number | null;
  /** Whether keys are forgotten by watermark. */
  private readonly expires: boolean;
  private readonly encoder = new KeyEncoder();
  private readonly accounting: StateBatchAccounting;

  constructor(
    readonly spec: DeduplicateSpec,
    readonly fields: Fields,
    private readonly store: StateStore,
  ) {
    this.eventTimeIndex = spec.eventTimeColumn === null ? -1 : columnIndex(fields, spec.eventTimeColumn);
    this.withinDelayMs = spec.withinWatermarkDelayMs;
    const within = this.withinDelayMs !== null;
    if (within && this.eventTimeIndex < 0) throw new AnalysisError("dropDuplicatesWithinWatermark needs a watermark: call withWatermark on the event-time column first");
    const keyNames = within ? spec.keyColumns.filter((c) => c !== spec.eventTimeColumn) : spec.keyColumns;
    this.keyColumns = keyNames.map((c) => columnIndex(fields, c));
    this.expires = within || (spec.eventTimeColumn !== null && spec.keyColumns.includes(spec.eventTimeColumn));
    store.open([{ name: within ? "#expiresAt" : "#eventTime", kind: "f64" }], this.operatorName);
    this.accounting = new StateBatchAccounting(store, this.operatorName);
  }

  get operatorName(): string {
    return this.withinDelayMs === null ? "dedupe" : "dedupeWithinWatermark";
  }

  /** The first occurrences of keys not seen before, in input order. */
  process(batch: Batch, watermarkMs: number | null): Batch {
    return this.accounting.update(() => this.firstOccurrences(batch, watermarkMs));
  }

  /**
   * Forgets expired keys; commits the state as `commitVersion` when given (otherwise call
   * `commit` before the next batch).
   */
  finishBatch(watermarkMs: number | null, commitVersion?: number): StateOperatorMetrics {
    return this.accounting.finish(this.expires ? EXPIRY : null, watermarkMs, commitVersion);
  }

  /** Commits the finished batch's state as `version`; returns the commit time in ms. */
  commit(version: number): number {
    return this.accounting.commit(version);
  }

  private firstOccurrences(batch: Batch, watermarkMs: number | null): Batch {
    const table = this.store.table;
    const timeAt = eventTimeReader(batch, this.eventTimeIndex);
    const candidates = new Int32Array(batch.numRows);
    let n = 0;
    for (let r = 0; r < batch.numRows; r++) {
      if (isLate(timeAt(r), watermarkMs)) this.accounting.addDropped(1);
      else candidates[n++] = r;
    }
    const rows = candidates.subarray(0, n);
    const keys = this.encoder.encode(
      this.keyColumns.map((c) => ({ view: viewOf(batch.columns[c]!, batch.fields[c]!.type), rows })),
      n,
    );
    const slots = new Int32Array(n);
    const isNew = new Uint8Array(n);
    table.upsert(keys, slots, isNew);
    const expiry = table.f64(EXPIRY);
    const firsts = new Int32Array(n);
    let kept = 0;
    for (let k = 0; k < n; k++) {
      if (isNew[k] === 0) continue;
      const r = rows[k]!;
      firsts[kept++] = r;
      table.markUpdated(slots[k]!);
      const t = timeAt(r) + (this.withinDelayMs ?? 0);
      if (this.expires && t === t) expiry.set(slots[k]!, t);
    }
    return kept === batch.numRows ? batch : takeRows(batch, firsts.subarray(0, kept));
  }
}

/** Each row's event time in epoch ms (a window column counts by its end); NaN when null or absent. */
function eventTimeReader(batch: Batch, index: number): (row: number) => number {
  if (index < 0) return () => NaN;
  const view = viewOf(batch.columns[index]!, batch.fields[index]!.type);
  switch (view.kind) {
    case "number":
      return (r) => (view.valid !== null && view.valid[r] === 0 ? NaN : view.values[r]!);
    case "window":
      return (r) => view.ends[r]!;
    case "string":
      throw new Error(`event-time column "${batch.fields[index]!.name}" must be a timestamp`);
  }
}
