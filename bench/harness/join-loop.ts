/**
 * The peer of bench/stream-join.ts: the same ad-impression/click join written by hand, as a
 * kafkajs `eachMessage` handler would do it: one record at a time, per-ad `Map`s of the rows each
 * side keeps, an output object per joined row. It reads the same steps (one step = one poll) and
 * keeps Spark's rules (impressions first, then clicks; a row is evicted by the watermark of the
 * steps before, once no row of the other side can match it; a left outer join emits unmatched
 * impressions as they leave). Eviction pops rows from a FIFO per side: the loop may assume what
 * the engine may not, that each stream arrives in event-time order.
 */
import { type AdClickData, flushEvents, MATCH_WINDOW_MS } from "./ad-clicks.js";

export interface LoopOptions {
  readonly leftOuter: boolean;
  readonly impressionDelayMs: number;
  readonly clickDelayMs: number;
}

interface Impression {
  readonly adId: number;
  readonly time: number;
  matched: boolean;
}

interface Click {
  readonly adId: number;
  readonly time: number;
}

interface JoinedRow {
  impressionAdId: number;
  impressionTime: number;
  clickAdId: number | null;
  clickTime: number | null;
}

/** Rows of one side by ad, and the same rows in arrival (= event-time) order for eviction. */
class SideState<R extends { readonly adId: number; readonly time: number }> {
  readonly byAd = new Map<number, R[]>();
  private fifo: R[] = [];
  private head = 0;

  get size(): number {
    return this.fifo.length - this.head;
  }

  add(row: R): void {
    const rows = this.byAd.get(row.adId);
    if (rows === undefined) this.byAd.set(row.adId, [row]);
    else rows.push(row);
    this.fifo.push(row);
  }

  /** Removes the rows with time + `slack` <= `watermark`, oldest first; `onEvict` sees each. */
  evict(watermark: number, slack: number, onEvict: (row: R) => void): void {
    while (this.head < this.fifo.length && this.fifo[this.head]!.time + slack <= watermark) {
      const row = this.fifo[this.head++]!;
      const rows = this.byAd.get(row.adId)!;
      // A key's rows came in time order too: the evicted one is its oldest.
      if (rows.length === 1) this.byAd.delete(row.adId);
      else rows.shift();
      onEvict(row);
    }
    if (this.head > 65_536 && this.head * 2 > this.fifo.length) {
      this.fifo = this.fifo.slice(this.head);
      this.head = 0;
    }
  }
}

export interface LoopResult {
  readonly outputRows: number;
  readonly peakStateRows: number;
  readonly lastStepStateRows: number;
}

export function runJoinLoop(data: AdClickData, o: LoopOptions): LoopResult {
  const impressions = new SideState<Impression>();
  const clicks = new SideState<Click>();
  let watermark = -Infinity;
  let maxImp = -Infinity;
  let maxClick = -Infinity;
  let outputRows = 0;
  let peakStateRows = 0;
  let lastStepStateRows = 0;
  const steps = data.impBounds.length - 1;
  const flush = flushEvents();
  // Both sides probe the other with the same condition: a click within the hour after its impression.
  const joinIfMatched = (out: JoinedRow[], imp: Impression, c: Click) => {
    if (c.time < imp.time || c.time > imp.time + MATCH_WINDOW_MS) return;
    imp.matched = true;
    out.push({ impressionAdId: imp.adId, impressionTime: imp.time, clickAdId: c.adId, clickTime: c.time });
  };
  // Steps after the data: the flush events, then one without data that evicts by their watermark.
  for (let k = 0; k < steps + 2; k++) {
    const out: JoinedRow[] = [];
    const imps: Impression[] = [];
    const cls: Click[] = [];
    if (k < steps) {
      for (let i = data.impBounds[k]!; i < data.impBounds[k + 1]!; i++) imps.push({ adId: data.impAdId[i]!, time: data.impTime[i]!, matched: false });
      for (let j = data.clickBounds[k]!; j < data.clickBounds[k + 1]!; j++) cls.push({ adId: data.clickAdId[j]!, time: data.clickTime[j]! });
    } else if (k === steps) {
      imps.push({ adId: flush.impAdId, time: flush.time, matched: false });
      cls.push({ adId: flush.clickAdId, time: flush.time });
    }
    for (const imp of imps) {
      if (imp.time <= watermark) continue;
      maxImp = Math.max(maxImp, imp.time);
      for (const c of clicks.byAd.get(imp.adId) ?? []) joinIfMatched(out, imp, c);
      impressions.add(imp);
    }
    for (const c of cls) {
      if (c.time <= watermark) continue;
      maxClick = Math.max(maxClick, c.time);
      for (const imp of impressions.byAd.get(c.adId) ?? []) joinIfMatched(out, imp, c);
      clicks.add(c);
    }
    // A future click is after the watermark: an impression an hour older than it cannot match;
    // a future impression is too, so a click at or before it cannot either.
    impressions.evict(watermark, MATCH_WINDOW_MS, (imp) => {
      if (o.leftOuter && !imp.matched) out.push({ impressionAdId: imp.adId, impressionTime: imp.time, clickAdId: null, clickTime: null });
    });
    clicks.evict(watermark, 0, () => undefined);
    outputRows += out.length;
    const stateRows = impressions.size + clicks.size;
    peakStateRows = Math.max(peakStateRows, stateRows);
    if (k === steps - 1) lastStepStateRows = stateRows;
    watermark = Math.max(watermark, Math.min(maxImp - o.impressionDelayMs, maxClick - o.clickDelayMs));
  }
  return { outputRows, peakStateRows, lastStepStateRows };
}
