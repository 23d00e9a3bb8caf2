import type * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { AnalysisError } from "../errors/errors.js";
import { type ColumnView, takeView, viewKindOf, viewOf, viewToArrow } from "../kernels/hash-table-columns.js";
import type { EncodedKeys } from "../kernels/hash-table-keys.js";
import { KeyHashTable } from "../kernels/hash-table.js";
import type { StateStore } from "../state/state-store.js";
import type { StateColumnSpec, StateTable } from "../state/state-table.js";
import type { Fields } from "../types/dtype.js";

/**
 * One side of a symmetric hash join in versioned state: the side's rows, several per join key
 * (Spark keeps them as keyToNumValues and keyWithIndexToValue). Each row is a state row whose key
 * is its join key's words followed by a sequence number (two words) unique within the side; its
 * value columns are the row's columns (a number per f64 column, bytes for strings and binary, a
 * window as start and end) and a `#matched` flag (it met a row of the other side at least once:
 * an outer join emits it with nulls on eviction only when it did not).
 *
 * Lookup by join key goes through an index kept beside the table: a hash table of join keys and,
 * per join key, a chain of the slots of its rows. The index is derived data: it is rebuilt when
 * the store renumbers its slots (a commit that compacts) or is opened on committed state.
 */
export class JoinSideState {
  private readonly table: StateTable;
  private readonly matchedCol: number;
  /** State column of each field (the first of two for a window). */
  private readonly fieldCols: readonly number[];
  private groups = new KeyHashTable(16);
  private head: Int32Array = new Int32Array(16).fill(-1);
  private tail: Int32Array = new Int32Array(16).fill(-1);
  private next: Int32Array = new Int32Array(16).fill(-1);
  private indexedGeneration = -1;
  private indexedSlots = 0;
  private nextSeq = 0;
  private keyWords: Int32Array = new Int32Array(64);

  constructor(
    private readonly store: StateStore,
    private readonly fields: Fields,
    operatorKind: string,
  ) {
    const schema: StateColumnSpec[] = [];
    const fieldCols: number[] = [];
    for (const f of fields) {
      if (f.type === "headers") throw new AnalysisError(`column "${f.name}" holds Kafka headers, which a stream-stream join cannot keep in state; select the headers out (or to_json them) before the join`);
      fieldCols.push(schema.length);
      switch (viewKindOf(f.type)) {
        case "number":
          schema.push({ name: f.name, kind: "f64" });
          break;
        case "string":
          schema.push({ name: f.name, kind: "bytes" });
          break;
        case "window":
          schema.push({ name: `${f.name}.start`, kind: "f64" }, { name: `${f.name}.end`, kind: "f64" });
          break;
      }
    }
    this.matchedCol = schema.length;
    schema.push({ name: "#matched", kind: "f64" });
    this.fieldCols = fieldCols;
    this.table = store.open(schema, operatorKind);
  }

  get size(): number {
    return this.table.size;
  }

  memoryBytes(): number {
    return this.table.memoryBytes() + this.groups.memoryBytes() + (this.head.byteLength + this.tail.byteLength + this.next.byteLength);
  }

  /**
   * The live slots of the rows under each key: `out(i, slot)` for every key `i` of `keys` and
   * every row of the side with that key, in the order the rows came.
   */
  forEachMatch(keys: EncodedKeys, rows: Int32Array, visit: (row: number, slot: number) => void): void {
    this.ensureIndex();
    const table = this.table;
    for (let j = 0; j < rows.length; j++) {
      const i = rows[j]!;
      const g = this.groups.findKey(keys.words, keys.offsets[i]!, keys.offsets[i + 1]!);
      if (g < 0) continue;
      for (let s = this.head[g]!; s >= 0; s = this.next[s]!) if (table.isLive(s)) visit(i, s);
    }
  }

  /** Stores rows `rows` of `batch` under their keys; `matched[j]` is the flag of `rows[j]`. */
  add(batch: Batch, keys: EncodedKeys, rows: Int32Array, matched: Uint8Array): void {
    this.ensureIndex();
    const table = this.table;
    const views = batch.columns.map((c, k) => viewOf(c, this.fields[k]!.type, this.fields[k]!.name));
    for (let j = 0; j < rows.length; j++) {
      const i = rows[j]!;
      const from = keys.offsets[i]!;
      const len = keys.offsets[i + 1]! - from;
      if (this.keyWords.length < len + 2) this.keyWords = new Int32Array((len + 2) * 2);
      const key = this.keyWords;
      key.set(keys.words.subarray(from, from + len));
      const seq = this.nextSeq++;
      key[len] = seq % 0x40000000;
      key[len + 1] = Math.floor(seq / 0x40000000);
      const slot = table.put(key, 0, len + 2);
      this.writeRow(slot, views, i);
      table.f64(this.matchedCol).set(slot, matched[j]!);
      this.link(slot, keys.words, from, from + len);
    }
  }

  isMatched(slot: number): boolean {
    return this.table.f64(this.matchedCol).values[slot] === 1;
  }

  markMatched(slot: number): void {
    if (this.isMatched(slot)) return;
    this.table.f64(this.matchedCol).set(slot, 1);
    this.table.markUpdated(slot);
  }

  /** Live slots whose stored column `field` (a window by its end) is at or below `limit`. */
  slotsAtOrBelow(field: number, limit: number): Int32Array {
    const col = this.fieldCols[field]! + (this.fields[field]!.type === "window" ? 1 : 0);
    return this.table.slotsAtOrBelow(col, limit);
  }

  /** Every live slot (a static join's end of input). */
  liveSlots(): Int32Array {
    return this.table.liveSlots();
  }

  remove(slots: Int32Array): void {
    for (const s of slots) this.table.remove(s);
  }

  /** The stored rows of `slots` as columns of the side's fields; slot -1 gives a row of nulls. */
  columns(slots: Int32Array): arrow.Data[] {
    return this.fields.map((f, k) => {
      const c = this.fieldCols[k]!;
      let view: ColumnView;
      if (f.type === "window") {
        view = { kind: "window", starts: this.table.f64(c).values, ends: this.table.f64(c + 1).values };
      } else {
        view = this.table.view(c);
      }
      return viewToArrow(takeView(view, slots), f.type);
    });
  }

  private writeRow(slot: number, views: readonly ColumnView[], row: number): void {
    const table = this.table;
    views.forEach((view, k) => {
      const c = this.fieldCols[k]!;
      switch (view.kind) {
        case "number":
          if (view.valid !== null && view.valid[row] === 0) table.f64(c).clear(slot);
          else table.f64(c).set(slot, view.values[row]!);
          return;
        case "string":
          if (view.valid !== null && view.valid[row] === 0) table.bytes(c).clear(slot);
          else table.bytes(c).set(slot, view.bytes, view.starts[row]!, view.ends[row]!);
          return;
        case "window":
          table.f64(c).set(slot, view.starts[row]!);
          table.f64(c + 1).set(slot, view.ends[row]!);
          return;
      }
    });
  }

  private link(slot: number, words: Int32Array, from: number, to: number): void {
    const g = this.groups.findOrInsertKey(words, from, to);
    if (g >= this.head.length) {
      this.head = grow(this.head, g + 1);
      this.tail = grow(this.tail, g + 1);
    }
    if (slot >= this.next.length) this.next = grow(this.next, slot + 1);
    this.next[slot] = -1;
    if (this.head[g]! < 0) this.head[g] = slot;
    else this.next[this.tail[g]!] = slot;
    this.tail[g] = slot;
    this.indexedSlots = Math.max(this.indexedSlots, slot + 1);
  }

  /**
   * Rebuilds the key index from the table when its slots were renumbered (or never indexed), in
   * one walk over the slots. Rows of one key are chained in the order they came, by sequence
   * number; slot order is that order already (a new row takes the next slot, and compaction keeps
   * the live slots' order), so each slot goes to its chain's tail, and only a slot older than
   * its chain's tail (a table that holds its rows in some other order) is put in place.
   */
  private ensureIndex(): void {
    if (this.indexedGeneration === this.store.generation) return;
    this.indexedGeneration = this.store.generation;
    const table = this.table;
    this.groups = new KeyHashTable(Math.max(16, table.size));
    this.head = new Int32Array(Math.max(16, table.size)).fill(-1);
    this.tail = new Int32Array(Math.max(16, table.size)).fill(-1);
    this.next = new Int32Array(Math.max(16, table.slotCount)).fill(-1);
    this.indexedSlots = 0;
    const keys = table.keyTable;
    let maxSeq = -1;
    const n = table.slotCount;
    for (let s = 0; s < n; s++) {
      if (!table.isLive(s)) continue;
      const from = keys.keyStarts[s]!;
      const to = from + keys.keyLength(s) - 2;
      const seq = seqAt(keys.keyArena, to);
      if (seq > maxSeq) {
        maxSeq = seq;
        this.link(s, keys.keyArena, from, to);
      } else {
        this.linkInOrder(s, seq, keys.keyArena, from, to);
      }
    }
    this.nextSeq = Math.max(this.nextSeq, maxSeq + 1);
  }

  /** Links `slot` (sequence number `seq`) into its key's chain after the rows older than it. */
  private linkInOrder(slot: number, seq: number, words: Int32Array, from: number, to: number): void {
    const g = this.groups.findKey(words, from, to);
    if (g < 0 || seqOf(this.table, this.tail[g]!) < seq) return this.link(slot, words, from, to);
    let prev = -1;
    let s = this.head[g]!;
    while (seqOf(this.table, s) < seq) {
      prev = s;
      s = this.next[s]!;
    }
    this.next[slot] = s;
    if (prev < 0) this.head[g] = slot;
    else this.next[prev] = slot;
    this.indexedSlots = Math.max(this.indexedSlots, slot + 1);
  }
}

/** The sequence number held in the two key words at `end` (past the join key's words). */
function seqAt(arena: Int32Array, end: number): number {
  return arena[end]! + arena[end + 1]! * 0x40000000;
}

/** The sequence number of the row in `slot`. */
function seqOf(table: StateTable, slot: number): number {
  const keys = table.keyTable;
  return seqAt(keys.keyArena, keys.keyStarts[slot]! + keys.keyLength(slot) - 2);
}

function grow(a: Int32Array, min: number): Int32Array {
  const out = new Int32Array(Math.max(min, a.length * 2)).fill(-1);
  out.set(a);
  return out;
}
