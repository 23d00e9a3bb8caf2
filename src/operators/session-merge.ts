import type { Batch } from "../batch/batch.js";
import type { WindowView } from "../kernels/hash-table-columns.js";
import { windowAtKeyEnd } from "../kernels/hash-table-key-decode.js";
import { KeyEncoder, WINDOW_KEY_WORDS, appendWindowKey, type EncodedKeys } from "../kernels/hash-table-keys.js";
import { KeyHashTable } from "../kernels/hash-table.js";
import type { StateTable } from "../state/state-table.js";
import { STATE_EVENT_TIME, type AggregateLayout } from "./aggregate-layout.js";
import { assignOrdered, mergeOrderFree, partialSource, stateSource, type AccumulatorSource } from "./final-accumulators.js";
import { partialEventTimes, partialKeyViews, rowsNotLate } from "./group-merge.js";

/** A member of a merged session: a state row (`index` is its slot) or a partial row. */
interface Member {
  readonly fromState: boolean;
  readonly index: number;
}

/** A session taking part in a key's merge; `entry` is an incoming session's encoded-key entry. */
interface Candidate extends Member {
  readonly start: number;
  readonly end: number;
  readonly entry: number;
}

/** The merges one call decided on, applied column by column once every new session exists. */
class MergePlan {
  private readonly pairs = { state: new PairList(), partial: new PairList() };
  private readonly firsts = { state: new PairList(), partial: new PairList() };
  private readonly lasts = { state: new PairList(), partial: new PairList() };

  /** Members in session order (by start): the first gives first(), the last gives last(). */
  add(members: readonly Member[], slot: number): void {
    for (const m of members) this.side(this.pairs, m).push(m.index, slot);
    const first = members[0]!;
    const last = members[members.length - 1]!;
    this.side(this.firsts, first).push(first.index, slot);
    this.side(this.lasts, last).push(last.index, slot);
  }

  apply(layout: AggregateLayout, table: StateTable, partial: AccumulatorSource): void {
    // Take the state's columns after all new sessions were inserted (inserting may grow them).
    const state = stateSource(layout, table);
    const sources = [
      [state, "state"],
      [partial, "partial"],
    ] as const;
    for (const [src, side] of sources) mergeOrderFree(layout, table, src, this.pairs[side].src(), this.pairs[side].dst());
    for (const [src, side] of sources) assignOrdered(layout, table, src, this.firsts[side].src(), this.firsts[side].dst(), "first");
    for (const [src, side] of sources) assignOrdered(layout, table, src, this.lasts[side].src(), this.lasts[side].dst(), "last");
  }

  private side(lists: { state: PairList; partial: PairList }, m: Member): PairList {
    return m.fromState ? lists.state : lists.partial;
  }
}

class PairList {
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  push(src: number, dst: number): void {
    this.from.push(src);
    this.to.push(dst);
  }
  src(): Int32Array {
    return Int32Array.from(this.from);
  }
  dst(): Int32Array {
    return Int32Array.from(this.to);
  }
}

/**
 * Merges partial session rows into the sessions kept in state. A state row is one session of a
 * key (the window is the last key column). An incoming session that overlaps or touches sessions
 * of its key replaces them all with one session spanning them: a bridging row merges two.
 * first() / last() follow session order (event time), as Spark's sort-based merge does.
 *
 * An index from each key (without its window) to its sessions' slots, kept as linked lists in
 * typed arrays, finds a key's sessions; it is rebuilt whenever the store renumbers slots.
 */
export class SessionMerger {
  private readonly encoder = new KeyEncoder();
  private keyIds = new KeyHashTable();
  private head: Int32Array = new Int32Array(16).fill(-1);
  private next: Int32Array = new Int32Array(16).fill(-1);
  private indexed: StateTable | null = null;
  private indexedGeneration = -1;

  constructor(private readonly layout: AggregateLayout) {}

  /** Returns the number of input rows dropped as late. */
  merge(table: StateTable, generation: number, partial: Batch, lateBy: number | null): number {
    this.syncIndex(table, generation);
    const layout = this.layout;
    const keyViews = partialKeyViews(layout, partial);
    const window = keyViews[keyViews.length - 1] as WindowView;
    const times = partialEventTimes(layout, keyViews);
    const { rows, droppedInputRows } = rowsNotLate(partial, layout.partialRows, times, lateBy);
    const n = rows.length;
    const keys = this.encoder.encode(
      keyViews.slice(0, -1).map((view) => ({ view, rows })),
      n,
    );
    const ids = new Int32Array(n);
    this.keyIds.findOrInsert(keys, ids);
    this.head = ensure(this.head, this.keyIds.groupCount);
    const startOf = (k: number) => window.starts[rows[k]!]!;
    const order = new Int32Array(n);
    for (let k = 0; k < n; k++) order[k] = k;
    order.sort((a, b) => ids[a]! - ids[b]! || startOf(a) - startOf(b) || a - b);
    const plan = new MergePlan();
    for (let a = 0; a < n; ) {
      let b = a + 1;
      while (b < n && ids[order[b]!] === ids[order[a]!]) b++;
      this.mergeKey(table, ids[order[a]!]!, order.subarray(a, b), { rows, window, keys, times }, plan);
      a = b;
    }
    plan.apply(layout, table, partialSource(layout, partial));
    return droppedInputRows;
  }

  /**
   * Merges one key's incoming sessions with its sessions in state: candidates sorted by start
   * (state first on ties) are swept once, and each run of overlapping or touching candidates
   * that holds an incoming session becomes one new session replacing the run's state rows.
   */
  private mergeKey(table: StateTable, id: number, incoming: Int32Array, input: IncomingSessions, plan: MergePlan): void {
    const candidates: Candidate[] = this.sessionsOf(table, id).map((s) => ({ fromState: true, index: s.slot, start: s.start, end: s.end, entry: -1 }));
    for (const k of incoming) {
      const r = input.rows[k]!;
      candidates.push({ fromState: false, index: r, start: input.window.starts[r]!, end: input.window.ends[r]!, entry: k });
    }
    candidates.sort((a, b) => a.start - b.start || Number(b.fromState) - Number(a.fromState));
    const kept: number[] = [];
    for (let c = 0; c < candidates.length; ) {
      const run = [candidates[c++]!];
      let end = run[0]!.end;
      while (c < candidates.length && candidates[c]!.start <= end) {
        end = Math.max(end, candidates[c]!.end);
        run.push(candidates[c++]!);
      }
      const newcomer = run.find((m) => !m.fromState);
      if (newcomer === undefined) {
        for (const m of run) kept.push(m.index);
        continue;
      }
      for (const m of run) if (m.fromState) table.remove(m.index);
      const { words, offsets } = input.keys;
      const slot = table.put(appendWindowKey(words, offsets[newcomer.entry]!, offsets[newcomer.entry + 1]!, run[0]!.start, end));
      // The event-time key is the session window (evicted by its end) or, rarely, a timestamp key.
      const eventTime = this.layout.spec.eventTimeKey?.isWindow ? end : (input.times?.[newcomer.index] ?? NaN);
      if (eventTime === eventTime) table.f64(STATE_EVENT_TIME).set(slot, eventTime);
      plan.add(run, slot);
      kept.push(slot);
    }
    this.next = ensure(this.next, table.slotCount);
    this.head[id] = -1;
    for (const slot of kept) this.link(id, slot);
  }

  /** The key's sessions in state, by start. */
  private sessionsOf(table: StateTable, id: number): { slot: number; start: number; end: number }[] {
    const out: { slot: number; start: number; end: number }[] = [];
    const keys = table.keyTable;
    for (let s = this.head[id]!; s >= 0; s = this.next[s]!) {
      out.push({ slot: s, ...windowAtKeyEnd(keys.keyArena, keys.keyStarts[s]! + keys.keyLength(s)) });
    }
    return out.sort((a, b) => a.start - b.start);
  }

  private link(id: number, slot: number): void {
    this.next[slot] = this.head[id]!;
    this.head[id] = slot;
  }

  private syncIndex(table: StateTable, generation: number): void {
    if (this.indexed === table && this.indexedGeneration === generation) return;
    const keys = table.keyTable;
    this.keyIds = new KeyHashTable(table.size);
    this.head = new Int32Array(Math.max(16, table.size)).fill(-1);
    this.next = new Int32Array(Math.max(16, table.slotCount)).fill(-1);
    for (const slot of table.liveSlots()) {
      const start = keys.keyStarts[slot]!;
      const id = this.keyIds.findOrInsertKey(keys.keyArena, start, start + keys.keyLength(slot) - WINDOW_KEY_WORDS);
      this.head = ensure(this.head, id + 1);
      this.link(id, slot);
    }
    this.indexed = table;
    this.indexedGeneration = generation;
  }
}

interface IncomingSessions {
  readonly rows: Int32Array;
  readonly window: WindowView;
  readonly keys: EncodedKeys;
  /** Event time of each partial row (see `partialEventTimes`). */
  readonly times: Float64Array | null;
}

/** `a` with room for `size` entries; new entries are -1 (no slot). */
function ensure(a: Int32Array, size: number): Int32Array {
  if (a.length >= size) return a;
  const out = new Int32Array(Math.max(size, a.length * 2)).fill(-1);
  out.set(a);
  return out;
}
