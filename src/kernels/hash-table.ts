import { hashWords, type EncodedKeys } from "./hash-table-keys.js";

const EMPTY = -1;
const TOMBSTONE = -2;
/** Slots are kept at most half full: short probe sequences with linear probing. */
const MAX_LOAD = 0.5;

/**
 * Open-addressing hash table from encoded keys (see `hash-table-keys.ts`) to dense group ids.
 * Everything lives in typed arrays: a slot array of group ids probed linearly, per-group hash,
 * key position and liveness, and one word arena holding the keys. No per-key objects, so a
 * million groups cost a few typed arrays and a clone is a handful of memcpys. Key positions and
 * lengths are in 32-bit words.
 *
 * Group ids are handed out in insertion order and never reused while the table lives; `remove`
 * leaves a tombstone and `compact` renumbers the live groups densely (the caller renumbers its
 * per-group data with the returned mapping).
 */
export class KeyHashTable {
  private slots: Int32Array;
  private mask: number;
  /** Slots holding a group or a tombstone. */
  private occupied = 0;
  private hashes: Int32Array;
  private starts: Int32Array;
  private lengths: Int32Array;
  private live: Uint8Array;
  private arena: Int32Array;
  private arenaUsed = 0;
  private groups = 0;
  private liveGroups = 0;
  /** True when the last `findOrInsertKey` call created its group. */
  lastInserted = false;

  constructor(expectedKeys = 16) {
    const capacity = slotCapacityFor(expectedKeys);
    this.slots = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    const g = Math.max(16, expectedKeys);
    this.hashes = new Int32Array(g);
    this.starts = new Int32Array(g);
    this.lengths = new Int32Array(g);
    this.live = new Uint8Array(g);
    this.arena = new Int32Array(Math.max(64, g * 4));
  }

  /** Group ids handed out so far, live or removed: per-group arrays need this many entries. */
  get groupCount(): number {
    return this.groups;
  }

  /** Live groups. */
  get size(): number {
    return this.liveGroups;
  }

  /** The word arena that holds every key; group g's key starts at word `keyStarts[g]`. */
  get keyArena(): Int32Array {
    return this.arena;
  }

  get keyStarts(): Int32Array {
    return this.starts;
  }

  isLive(group: number): boolean {
    return this.live[group] === 1;
  }

  /** Length of group g's key in words. */
  keyLength(group: number): number {
    return this.lengths[group]!;
  }

  /** Group g's key (a view into the arena, valid until the next insert or compaction). */
  keyOf(group: number): Int32Array {
    const s = this.starts[group]!;
    return this.arena.subarray(s, s + this.lengths[group]!);
  }

  /**
   * Finds each row's group, inserting the keys not seen yet. `out[i]` receives row i's group;
   * `isNew[i]`, when given, is 1 for the rows that created their group. Returns how many groups
   * were created.
   */
  findOrInsert(keys: EncodedKeys, out: Int32Array, isNew: Uint8Array | null = null): number {
    const before = this.groups;
    const { words, offsets, hashes } = keys;
    for (let i = 0; i < keys.count; i++) {
      const g = this.findOrInsertKey(words, offsets[i]!, offsets[i + 1]!, hashes[i]!);
      out[i] = g;
      if (isNew !== null) isNew[i] = this.lastInserted ? 1 : 0;
    }
    return this.groups - before;
  }

  /** Finds each row's group without inserting: -1 for keys not in the table. */
  find(keys: EncodedKeys, out: Int32Array): void {
    for (let i = 0; i < keys.count; i++) out[i] = this.findKey(keys.words, keys.offsets[i]!, keys.offsets[i + 1]!, keys.hashes[i]!);
  }

  /** The group of the key `key[start, end)` (words), inserting it when absent (see `lastInserted`). */
  findOrInsertKey(key: Int32Array, start: number, end: number, hash: number = hashWords(key, start, end)): number {
    if ((this.occupied + 1) > this.slots.length * MAX_LOAD) this.rehash();
    const slots = this.slots;
    let p = hash & this.mask;
    let reusable = -1;
    for (;;) {
      const g = slots[p]!;
      if (g === EMPTY) break;
      if (g === TOMBSTONE) {
        if (reusable < 0) reusable = p;
      } else if (this.hashes[g] === hash && this.keyEquals(g, key, start, end)) {
        this.lastInserted = false;
        return g;
      }
      p = (p + 1) & this.mask;
    }
    const g = this.appendGroup(key, start, end, hash);
    if (reusable >= 0) slots[reusable] = g;
    else {
      slots[p] = g;
      this.occupied++;
    }
    this.lastInserted = true;
    return g;
  }

  /** The group of the key `key[start, end)` (words), -1 when absent. */
  findKey(key: Int32Array, start: number, end: number, hash: number = hashWords(key, start, end)): number {
    const slots = this.slots;
    let p = hash & this.mask;
    for (;;) {
      const g = slots[p]!;
      if (g === EMPTY) return -1;
      if (g >= 0 && this.hashes[g] === hash && this.keyEquals(g, key, start, end)) return g;
      p = (p + 1) & this.mask;
    }
  }

  /** Removes a live group; its id stays taken (and its key readable) until `compact`. */
  remove(group: number): void {
    if (this.live[group] !== 1) return;
    let p = this.hashes[group]! & this.mask;
    while (this.slots[p] !== group) p = (p + 1) & this.mask;
    this.slots[p] = TOMBSTONE;
    this.live[group] = 0;
    this.liveGroups--;
  }

  /**
   * Renumbers the live groups densely, in their current order, and drops removed keys from the
   * arena. Returns old id -> new id (-1 for removed groups), or null when nothing was removed.
   */
  compact(): Int32Array | null {
    if (this.liveGroups === this.groups) return null;
    const mapping = new Int32Array(this.groups).fill(-1);
    const arena = new Int32Array(Math.max(64, this.liveWords() * 2));
    let used = 0;
    let next = 0;
    for (let g = 0; g < this.groups; g++) {
      if (this.live[g] !== 1) continue;
      const s = this.starts[g]!;
      const len = this.lengths[g]!;
      arena.set(this.arena.subarray(s, s + len), used);
      this.hashes[next] = this.hashes[g]!;
      this.starts[next] = used;
      this.lengths[next] = len;
      mapping[g] = next++;
      used += len;
    }
    this.live.fill(1, 0, next);
    this.live.fill(0, next, this.groups);
    this.arena = arena;
    this.arenaUsed = used;
    this.groups = next;
    this.rebuildSlots(slotCapacityFor(next));
    return mapping;
  }

  clone(): KeyHashTable {
    const copy = Object.create(KeyHashTable.prototype) as KeyHashTable;
    copy.slots = this.slots.slice();
    copy.mask = this.mask;
    copy.occupied = this.occupied;
    copy.hashes = this.hashes.slice(0, Math.max(16, this.groups));
    copy.starts = this.starts.slice(0, Math.max(16, this.groups));
    copy.lengths = this.lengths.slice(0, Math.max(16, this.groups));
    copy.live = this.live.slice(0, Math.max(16, this.groups));
    copy.arena = this.arena.slice(0, Math.max(64, this.arenaUsed));
    copy.arenaUsed = this.arenaUsed;
    copy.groups = this.groups;
    copy.liveGroups = this.liveGroups;
    copy.lastInserted = false;
    return copy;
  }

  /** Bytes held by the table's arrays (allocated, not just used). */
  memoryBytes(): number {
    return this.slots.byteLength + this.hashes.byteLength * 3 + this.live.byteLength + this.arena.byteLength;
  }

  private keyEquals(g: number, key: Int32Array, start: number, end: number): boolean {
    const len = end - start;
    if (this.lengths[g] !== len) return false;
    const s = this.starts[g]!;
    const a = this.arena;
    for (let k = 0; k < len; k++) if (a[s + k] !== key[start + k]) return false;
    return true;
  }

  private appendGroup(key: Int32Array, start: number, end: number, hash: number): number {
    const g = this.groups;
    if (g === this.hashes.length) this.growGroups();
    const len = end - start;
    if (this.arenaUsed + len > this.arena.length) {
      const grown = new Int32Array(Math.max(this.arena.length * 2, this.arenaUsed + len));
      grown.set(this.arena.subarray(0, this.arenaUsed));
      this.arena = grown;
    }
    const a = this.arena;
    const s = this.arenaUsed;
    for (let k = 0; k < len; k++) a[s + k] = key[start + k]!;
    this.arenaUsed += len;
    this.hashes[g] = hash;
    this.starts[g] = s;
    this.lengths[g] = len;
    this.live[g] = 1;
    this.groups++;
    this.liveGroups++;
    return g;
  }

  private growGroups(): void {
    const size = this.hashes.length * 2;
    this.hashes = grow(this.hashes, size);
    this.starts = grow(this.starts, size);
    this.lengths = grow(this.lengths, size);
    const live = new Uint8Array(size);
    live.set(this.live);
    this.live = live;
  }

  /**
   * Called when occupied slots reach the load limit: doubles when live keys fill at least half of
   * that limit, otherwise keeps the size and only sweeps the tombstones out.
   */
  private rehash(): void {
    const liveHeavy = this.liveGroups + 1 > this.slots.length * MAX_LOAD * 0.5;
    this.rebuildSlots(liveHeavy ? this.slots.length * 2 : this.slots.length);
  }

  private rebuildSlots(capacity: number): void {
    const slots = new Int32Array(capacity).fill(EMPTY);
    const mask = capacity - 1;
    for (let g = 0; g < this.groups; g++) {
      if (this.live[g] !== 1) continue;
      let p = this.hashes[g]! & mask;
      while (slots[p] !== EMPTY) p = (p + 1) & mask;
      slots[p] = g;
    }
    this.slots = slots;
    this.mask = mask;
    this.occupied = this.liveGroups;
  }

  private liveWords(): number {
    let total = 0;
    for (let g = 0; g < this.groups; g++) if (this.live[g] === 1) total += this.lengths[g]!;
    return total;
  }
}

function slotCapacityFor(keys: number): number {
  let capacity = 16;
  while (capacity * MAX_LOAD < keys + 1) capacity *= 2;
  return capacity;
}

function grow(a: Int32Array, size: number): Int32Array {
  const out = new Int32Array(size);
  out.set(a);
  return out;
}
