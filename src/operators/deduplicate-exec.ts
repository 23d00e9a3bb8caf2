import { columnIndex, type Batch } from "../batch/batch.js";
import { AnalysisError, InternalError } from "../errors/errors.js";
import { takeRows } from "../kernels/gather.js";
import { keyViewOf } from "../kernels/hash-table-columns.js";
import { KeyEncoder } from "../kernels/hash-table-keys.js";
import { isLate } from "../kernels/window.js";
import { deduplicationKeys, type DeduplicateSpec } from "../planner/physical.js";
import type { StateStore } from "../state/state-store.js";
import { BaseExec, type ExecContext, type StatefulExec } from "./exec.js";
import { eventTimesAt } from "./late-rows.js";
import { StateBatchAccounting, type StateOperatorMetrics } from "./state-metrics.js";

export type { DeduplicateSpec };

/** The one state column: when a key may be forgotten (epoch ms), null when never. */
const EXPIRY = 0;

/**
 * Streaming deduplication: passes on the first row of each key, in input order, and remembers
 * the key in versioned state.
 *
 * - `dropDuplicates(cols)`: the key is `cols`. With a watermarked event-time column, rows at or
 *   before the previous batch's watermark are dropped as late (and counted); when that column is one of `cols`,
 *   a key is forgotten once its event time is at or before the watermark. Otherwise keys are
 *   kept forever.
 * - `dropDuplicatesWithinWatermark(cols)`: the key is `cols` without the event-time column; a key
 *   is forgotten once its first event time + the watermark delay is at or before the watermark,
 *   so duplicates arriving within the delay are dropped. Late rows are dropped as above.
 */
export class DeduplicateExec extends BaseExec implements StatefulExec {
  private readonly keyColumns: readonly number[];
  private readonly eventTimeIndex: number;
  private readonly withinDelayMs: number | null;
  /** Whether keys are forgotten by watermark. */
  private readonly expires: boolean;
  private readonly encoder = new KeyEncoder();
  private store: StateStore | null = null;
  private accounting: StateBatchAccounting | null = null;
  private metrics: StateOperatorMetrics | null = null;
  /** Rows of this batch dropped as duplicates (Spark's numDroppedDuplicateRows). */
  private duplicates = 0;

  constructor(
    readonly operatorId: number,
    readonly spec: DeduplicateSpec,
  ) {
    super();
    const fields = spec.inputFields;
    this.eventTimeIndex = spec.eventTimeColumn === null ? -1 : columnIndex(fields, spec.eventTimeColumn);
    this.withinDelayMs = spec.withinWatermarkDelayMs;
    const within = this.withinDelayMs !== null;
    if (within && this.eventTimeIndex < 0) throw new AnalysisError("dropDuplicatesWithinWatermark needs a watermark: call withWatermark on the event-time column first");
    this.keyColumns = deduplicationKeys(spec).map((c) => columnIndex(fields, c));
    this.expires = within || (spec.eventTimeColumn !== null && spec.keyColumns.includes(spec.eventTimeColumn));
  }

  get operatorName(): string {
    return this.withinDelayMs === null ? "dedupe" : "dedupeWithinWatermark";
  }

  override open(ctx: ExecContext): void {
    super.open(ctx);
    const store = ctx.stateStore(this.operatorId);
    store.open([{ name: this.withinDelayMs !== null ? "#expiresAt" : "#eventTime", kind: "f64" }], this.operatorName);
    this.store = store;
    this.accounting = new StateBatchAccounting(store, this.operatorName);
  }

  /** The first occurrences of keys not seen before, in input order. */
  process(batch: Batch): Batch {
    const { accounting } = this.opened();
    return accounting.update(() => this.firstOccurrences(batch, this.ctx.batch.watermarkForLateEventsMs));
  }

  /** Forgets expired keys; emits nothing (first occurrences went out as they came). */
  override onWatermark(watermarkMs: number | null): null {
    const metrics = this.opened().accounting.finish(this.expires ? EXPIRY : null, watermarkMs, undefined);
    this.metrics = { ...metrics, customMetrics: { numDroppedDuplicateRows: this.duplicates } };
    this.duplicates = 0;
    return null;
  }

  override commit(version: number): void {
    const commitTimeMs = this.opened().accounting.commit(version);
    if (this.metrics) this.metrics = { ...this.metrics, commitTimeMs: Math.round(commitTimeMs) };
  }

  lastMetrics(): StateOperatorMetrics | null {
    return this.metrics;
  }

  private opened(): { store: StateStore; accounting: StateBatchAccounting } {
    const { store, accounting } = this;
    if (store === null || accounting === null) throw new InternalError(`${this.operatorName} was used before open()`);
    return { store, accounting };
  }

  private firstOccurrences(batch: Batch, watermarkMs: number | null): Batch {
    const { store, accounting } = this.opened();
    const table = store.table;
    // Each row's event time (a window counts by its end; NaN when null), or none without an event-time column.
    const times = this.eventTimeIndex < 0 ? null : eventTimesAt(batch, this.eventTimeIndex);
    const candidates = new Int32Array(batch.numRows);
    let n = 0;
    for (let r = 0; r < batch.numRows; r++) {
      if (times !== null && isLate(times[r]!, watermarkMs)) accounting.addDropped(1);
      else candidates[n++] = r;
    }
    const rows = candidates.subarray(0, n);
    const keys = this.encoder.encode(
      this.keyColumns.map((c) => ({ view: keyViewOf(batch.columns[c]!, batch.fields[c]!.type, batch.fields[c]!.name), rows })),
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
      const t = (times === null ? NaN : times[r]!) + (this.withinDelayMs ?? 0);
      if (this.expires && t === t) expiry.set(slots[k]!, t);
    }
    this.duplicates += n - kept;
    return kept === batch.numRows ? batch : takeRows(batch, firsts.subarray(0, kept));
  }
}
