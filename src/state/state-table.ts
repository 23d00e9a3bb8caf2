import type { ColumnView } from "../kernels/hash-table-columns.js";
import type { EncodedKeys } from "../kernels/hash-table-keys.js";
import { KeyHashTable } from "../kernels/hash-table.js";
import { BytesStateColumn, F64StateColumn, type StateColumn } from "./state-columns.js";

export type StateColumnKind = StateColumn["kind"];

export interface StateColumnSpec {
  readonly name: string;
  readonly kind: StateColumnKind;
}

/** A version's changes to a table: slots of the rows removed, and of the rows inserted or changed. */
export interface TableChanges {
  readonly removed: Int32Array;
  readonly upserted: Int32Array;
}

/** The value columns of a state table; the key is always the encoded key words. */
export type StateSchema = readonly StateColumnSpec[];

/** Whether tables of the two schemas hold the same columns, by position and kind; the names may differ. */
export function sameColumnKinds(a: StateSchema, b: StateSchema): boolean {
  return a.length === b.length && a.every((c, i) => c.kind === b[i]!.kind);
}

export function describeSchema(schema: StateSchema): string {
  return `[${schema.map((c) => `${c.name}: ${c.kind}`).join(", ")}]`;
}

/**
 * One version of an operator's state: key -> row, columnar. Keys (encoded words, see
 * `kernels/hash-table-keys.ts`) live in a typed-array hash table whose group id is the row's
 * slot; values live in typed-array columns indexed by slot. No per-row objects: cloning a
 * version for a commit is a few array copies.
 *
 * Slots stay stable while a batch works (removal only marks a slot dead, and its key and values
 * stay readable); `commitChanges` renumbers them. The changes since the last commit are cheap to
 * list, which is what update-mode output, metrics and delta files need:
 *
 * - each slot carries an "updated" flag: callers mark every row whose values they change
 *   (`put` does it for them), and the marked slots are also kept in a list, so that listing
 *   them costs what the batch changed, not the table's size. Eviction floors (`removeAtOrBelow`)
 *   rely on this mark: a value written without it could hide from eviction;
 * - right after a commit every slot below `committedSlots` is live and new rows get higher
 *   slots, so the rows removed since the commit are the dead slots below `committedSlots`.
 */
export class StateTable {
  private keys: KeyHashTable;
  private cols: StateColumn[];
  private updated: Uint8Array;
  /** Slots at the last commit (all live then); a dead slot below it is a removal since. */
  private committedSlots = 0;
  /** Dead slots below `committedSlots`. */
  private removedSinceCommit = 0;
  /** The buffer `slotsWhere` scans into. */
  private scan = new Int32Array(0);
  /** The slots whose updated flag is set, in the order they were first marked: `updatedCount` of them. */
  private updatedList = new Int32Array(16);
  private updatedCount = 0;
  /**
   * Eviction floors, by f64 column evicted with `removeAtOrBelow`: no live row outside the updated
   * list holds a value below its floor. A batch whose watermark is below the floor and below the
   * values of the rows it updated has nothing to evict, and skips the table scan: most batches,
   * when windows close every few seconds over a state of a million rows.
   */
  private floors = new Map<number, number>();

  constructor(
    readonly schema: StateSchema,
    expectedRows = 16,
  ) {
    this.keys = new KeyHashTable(expectedRows);
    const capacity = Math.max(16, expectedRows);
    this.cols = schema.map((c) => (c.kind === "f64" ? new F64StateColumn(capacity) : new BytesStateColumn(capacity)));
    this.updated = new Uint8Array(capacity);
  }

  /** Live rows. */
  get size(): number {
    return this.keys.size;
  }

  /** Slots handed out (live or removed): per-slot arrays of callers need this many entries. */
  get slotCount(): number {
    return this.keys.groupCount;
  }

  /** The key table, for decoding keys (`decodeKeys(keyTable.keyArena, keyTable.keyStarts, ...)`). */
  get keyTable(): KeyHashTable {
    return this.keys;
  }

  /** The slot of an encoded key (see `kernels/hash-table-keys.ts`), or -1 when absent. */
  get(key: Int32Array, from = 0, to = key.length): number {
    return this.keys.findKey(key, from, to);
  }

  /** The slot of an encoded key, inserting an empty row (zeros, values null) when absent; marks it updated. */
  put(key: Int32Array, from = 0, to = key.length): number {
    const slot = this.keys.findOrInsertKey(key, from, to);
    if (this.keys.lastInserted) this.initSlots(slot, slot + 1);
    this.markUpdated(slot);
    return slot;
  }

  /**
   * The slot of each encoded key, inserting empty rows for new keys (`isNew[i]` = 1 for the row
   * that inserted). Does not mark rows updated: callers mark the rows they change.
   */
  upsert(keys: EncodedKeys, out: Int32Array, isNew: Uint8Array | null = null): number {
    const before = this.keys.groupCount;
    const created = this.keys.findOrInsert(keys, out, isNew);
    if (created > 0) this.initSlots(before, this.keys.groupCount);
    return created;
  }

  /** Slots of the encoded keys, -1 where absent. */
  lookup(keys: EncodedKeys, out: Int32Array): void {
    this.keys.find(keys, out);
  }

  isLive(slot: number): boolean {
    return this.keys.isLive(slot);
  }

  keyOf(slot: number): Int32Array {
    return this.keys.keyOf(slot);
  }

  markUpdated(slot: number): void {
    if (this.updated[slot] === 1) return;
    this.updated[slot] = 1;
    if (this.updatedCount === this.updatedList.length) {
      const grown = new Int32Array(2 * this.updatedList.length);
      grown.set(this.updatedList);
      this.updatedList = grown;
    }
    this.updatedList[this.updatedCount++] = slot;
  }

  isUpdated(slot: number): boolean {
    return this.updated[slot] === 1;
  }

  /** Removes a row; its key and values stay readable through its slot until the next commit. */
  remove(slot: number): void {
    if (slot < this.committedSlots && this.keys.isLive(slot)) this.removedSinceCommit++;
    this.keys.remove(slot);
  }

  /** Every live slot, in slot order. */
  liveSlots(): Int32Array {
    const n = this.keys.groupCount;
    const out = new Int32Array(this.keys.size);
    if (out.length === n) {
      for (let s = 0; s < n; s++) out[s] = s;
      return out;
    }
    let k = 0;
    for (let s = 0; s < n; s++) if (this.keys.isLive(s)) out[k++] = s;
    return out;
  }

  /** Live slots updated since the last commit, in slot order. */
  updatedSlots(): Int32Array {
    const out = new Int32Array(this.updatedCount);
    let k = 0;
    for (let j = 0; j < this.updatedCount; j++) {
      const slot = this.updatedList[j]!;
      // Every listed slot is flagged (flags and list are cleared together at commit); a removed row may still be on the list.
      if (this.keys.isLive(slot)) out[k++] = slot;
    }
    return out.subarray(0, k).sort();
  }

  /** Slots of the rows that were committed and have been removed since (keys still readable). */
  removedSlots(): Int32Array {
    const out = new Int32Array(this.removedSinceCommit);
    for (let s = 0, k = 0; k < out.length; s++) if (!this.keys.isLive(s)) out[k++] = s;
    return out;
  }

  /** This version's changes, each list made when first read (valid until the table next changes). */
  changesSinceCommit(): TableChanges {
    return new ChangesSinceCommit(this);
  }

  /** Live slots whose f64 column `col` is valid and at or below `limit` (eviction by watermark). */
  slotsAtOrBelow(col: number, limit: number): Int32Array {
    if (this.noneAtOrBelow(col, limit)) return new Int32Array(0);
    const c = this.f64(col);
    return this.slotsWhere((s) => c.valid[s] === 1 && c.values[s]! <= limit);
  }

  /**
   * Removes the live rows whose f64 column `col` is valid and at or below `limit`; returns how
   * many. Keeps the column's floor: the smallest value left.
   */
  removeAtOrBelow(col: number, limit: number): number {
    if (this.noneAtOrBelow(col, limit)) return 0;
    const { values, valid } = this.f64(col);
    const n = this.keys.groupCount;
    let removed = 0;
    let floor = Infinity;
    for (let s = 0; s < n; s++) {
      if (valid[s] !== 1 || !this.keys.isLive(s)) continue;
      const v = values[s]!;
      if (v <= limit) {
        this.remove(s);
        removed++;
      } else if (v < floor) {
        floor = v;
      }
    }
    this.floors.set(col, floor);
    return removed;
  }

  /** True when the floor of `col` and the rows updated since it was taken show no value at or below `limit`. */
  private noneAtOrBelow(col: number, limit: number): boolean {
    const floor = this.floors.get(col);
    return floor !== undefined && limit < Math.min(floor, this.lowestUpdated(col));
  }

  /** The smallest valid value of f64 column `col` among the rows on the updated list. */
  private lowestUpdated(col: number): number {
    const { values, valid } = this.f64(col);
    let lowest = Infinity;
    for (let j = 0; j < this.updatedCount; j++) {
      const slot = this.updatedList[j]!;
      if (valid[slot] === 1 && values[slot]! < lowest) lowest = values[slot]!;
    }
    return lowest;
  }

  f64(col: number): F64StateColumn {
    const c = this.cols[col]!;
    if (c.kind !== "f64") throw new Error(`state column "${this.schema[col]!.name}" is not f64`);
    return c;
  }

  bytes(col: number): BytesStateColumn {
    const c = this.cols[col]!;
    if (c.kind !== "bytes") throw new Error(`state column "${this.schema[col]!.name}" is not bytes`);
    return c;
  }

  column(col: number): StateColumn {
    return this.cols[col]!;
  }

  /** A view of a value column indexed by slot (valid until the column next grows). */
  view(col: number): ColumnView {
    return this.cols[col]!.view();
  }

  /**
   * Ends a version: drops removed rows (renumbering slots densely), clears the updated flags and
   * starts counting the next version's changes. True when slots were renumbered.
   */
  commitChanges(): boolean {
    // The updated rows leave the list: their values join the floors first.
    for (const [col, floor] of this.floors) this.floors.set(col, Math.min(floor, this.lowestUpdated(col)));
    for (let j = 0; j < this.updatedCount; j++) this.updated[this.updatedList[j]!] = 0;
    this.updatedCount = 0;
    const renumbered = this.compact();
    this.committedSlots = this.keys.groupCount;
    this.removedSinceCommit = 0;
    return renumbered;
  }

  /**
   * Brings this table, which holds what `source` held at its last commit, to `source`'s current
   * rows by applying `source`'s changes since (`removedSlots`, `updatedSlots`), and ends the
   * version. Costs what the changes cost, where `clone` costs the whole table.
   */
  applyChangesOf(source: StateTable, changes: TableChanges): void {
    // Rows are written below without being marked updated.
    this.floors.clear();
    const keys = source.keys;
    const arena = keys.keyArena;
    const starts = keys.keyStarts;
    // A committed row usually has the same slot in both tables (one is a copy of the other, or
    // was kept in step with it): checking its key words there is cheaper than a hash lookup.
    const slotOf = (s: number, insert: boolean) => {
      if (s < source.committedSlots && this.holdsKeyOf(s, source)) return s;
      const from = starts[s]!;
      const to = from + keys.keyLength(s);
      return insert ? this.put(arena, from, to) : this.keys.findKey(arena, from, to);
    };
    for (const s of changes.removed) {
      const slot = slotOf(s, false);
      if (slot >= 0) this.remove(slot);
    }
    const upserted = changes.upserted;
    const slots = new Int32Array(upserted.length);
    for (let j = 0; j < upserted.length; j++) slots[j] = slotOf(upserted[j]!, true);
    // Every key is in by now, so the columns no longer grow.
    this.cols.forEach((to, c) => {
      const from = source.cols[c]!;
      if (to.kind === "f64" && from.kind === "f64") {
        for (let j = 0; j < slots.length; j++) {
          to.values[slots[j]!] = from.values[upserted[j]!]!;
          to.valid[slots[j]!] = from.valid[upserted[j]!]!;
        }
      } else if (to.kind === "bytes" && from.kind === "bytes") {
        for (let j = 0; j < slots.length; j++) {
          const s = upserted[j]!;
          if (from.valid[s] === 1) to.set(slots[j]!, from.arena, from.starts[s]!, from.ends[s]!);
          else to.clear(slots[j]!);
        }
      }
    });
    this.commitChanges();
  }

  /** Whether this table's slot `slot` is live and holds the key of `other`'s slot `slot`. */
  private holdsKeyOf(slot: number, other: StateTable): boolean {
    const a = this.keys;
    const b = other.keys;
    if (slot >= a.groupCount || !a.isLive(slot)) return false;
    const len = a.keyLength(slot);
    if (b.keyLength(slot) !== len) return false;
    const aw = a.keyArena;
    const bw = b.keyArena;
    for (let i = a.keyStarts[slot]!, j = b.keyStarts[slot]!, end = i + len; i < end; i++, j++) if (aw[i] !== bw[j]) return false;
    return true;
  }

  clone(): StateTable {
    const copy = Object.create(StateTable.prototype) as StateTable;
    const count = this.keys.groupCount;
    (copy as { schema: StateSchema }).schema = this.schema;
    copy.keys = this.keys.clone();
    copy.cols = this.cols.map((c) => c.cloned(count));
    copy.updated = this.updated.slice(0, Math.max(16, count));
    copy.committedSlots = this.committedSlots;
    copy.removedSinceCommit = this.removedSinceCommit;
    copy.scan = new Int32Array(0);
    copy.updatedList = this.updatedList.slice();
    copy.updatedCount = this.updatedCount;
    copy.floors = new Map(this.floors);
    return copy;
  }

  memoryBytes(): number {
    return this.keys.memoryBytes() + this.updated.byteLength + this.cols.reduce((n, c) => n + c.memoryBytes(), 0);
  }

  private compact(): boolean {
    const mapping = this.keys.compact();
    if (mapping === null) return false;
    const count = this.keys.groupCount;
    this.cols = this.cols.map((c) => c.compacted(mapping, count));
    this.updated = new Uint8Array(Math.max(16, count * 2));
    return true;
  }

  /**
   * The live slots `pick` keeps, in slot order. The scan fills a buffer the table keeps and copies
   * out what it found: a batch usually updates or evicts few of a large state's rows, and a
   * table-sized array per scan, several scans a batch, kept the garbage collector busy.
   */
  private slotsWhere(pick: (slot: number) => boolean): Int32Array {
    const n = this.keys.groupCount;
    if (this.scan.length < this.keys.size) this.scan = new Int32Array(Math.max(this.keys.size, 2 * this.scan.length));
    const out = this.scan;
    let k = 0;
    for (let s = 0; s < n; s++) if (this.keys.isLive(s) && pick(s)) out[k++] = s;
    return out.slice(0, k);
  }

  private initSlots(from: number, to: number): void {
    for (const c of this.cols) {
      c.ensure(to);
      for (let s = from; s < to; s++) c.clear(s);
    }
    if (this.updated.length < to) {
      const updated = new Uint8Array(Math.max(to, this.updated.length * 2));
      updated.set(this.updated);
      this.updated = updated;
    }
    this.updated.fill(0, from, to);
  }
}

class ChangesSinceCommit implements TableChanges {
  private removedList: Int32Array | null = null;
  private upsertedList: Int32Array | null = null;

  constructor(private readonly table: StateTable) {}

  get removed(): Int32Array {
    return (this.removedList ??= this.table.removedSlots());
  }

  get upserted(): Int32Array {
    return (this.upsertedList ??= this.table.updatedSlots());
  }
}
