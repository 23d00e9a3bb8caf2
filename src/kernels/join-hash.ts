import type { KeyColumn } from "./join-hash-keys.js";

/**
 * An equi-join hash table in typed arrays: open addressing with linear probing over the distinct
 * keys of the build side; each slot holds the first build row with its key, and `next` chains the
 * other rows with the same key in insertion order. The arrays come from the caller's allocator, so
 * the table can be built straight into shared memory and probed from any thread.
 *
 * Keys follow SQL equality: a row with a null in any key column never matches. Like Spark, which
 * normalizes floating-point join keys, NaN equals NaN and -0 equals 0. Number keys hash by their
 * double and compare double and int64 residual (join-hash-keys.ts), so int64 keys beyond 2^53 are
 * exact.
 */
export interface JoinHashTable {
  /** Number of slots minus one (slots are a power of two). */
  readonly mask: number;
  /**
   * Two words per slot, side by side so a lookup touches one cache line: [2s] is the first build
   * row with the slot's key plus one (0: empty slot), [2s + 1] the key's hash, compared before
   * the keys themselves.
   */
  readonly slots: Int32Array;
  /** Per build row: the next build row with the same key; -1 ends the chain. */
  readonly next: Int32Array;
}

export type Int32Allocator = (length: number) => Int32Array;

/** Matching row pairs, in probe order; `buildRows[i]` is -1 for a kept unmatched probe row. */
export interface JoinMatches {
  readonly probeRows: Int32Array;
  readonly buildRows: Int32Array;
  readonly count: number;
}

export function buildJoinHashTable(keys: readonly KeyColumn[], numRows: number, allocate: Int32Allocator): JoinHashTable {
  const { hashes, usable } = hashKeys(keys, numRows);
  let capacity = 16;
  while (capacity < numRows * 2) capacity *= 2; // load factor at most 1/2: short probe runs
  const mask = capacity - 1;
  const slots = allocate(capacity * 2);
  const next = allocate(numRows).fill(-1);
  const tails = new Int32Array(capacity); // last row of each slot's chain, while building
  for (let row = 0; row < numRows; row++) {
    if (usable !== null && usable[row] === 0) continue;
    const h = hashes[row]!;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const head = slots[2 * slot]!;
      if (head === 0) {
        slots[2 * slot] = row + 1;
        slots[2 * slot + 1] = h;
        tails[slot] = row;
        break;
      }
      if (slots[2 * slot + 1] === h && keysEqual(keys, head - 1, keys, row)) {
        next[tails[slot]!] = row;
        tails[slot] = row;
        break;
      }
    }
  }
  return { mask, slots, next };
}

/**
 * A probe side's key columns hashed once per batch. `usable[row]` is 0 for a row that cannot
 * match: a null in a key column, or a row the caller rules out (a probe-side condition that failed).
 */
export interface HashedKeys {
  readonly hashes: Int32Array;
  readonly usable: Uint8Array | null;
}

/**
 * Looks probe rows [from, to) up. Each match gives one pair (several build rows with the key:
 * several pairs, in build insertion order); `keepUnmatched` (outer joins) gives an unmatched probe
 * row one pair with build row -1. Pairs come in probe row order.
 *
 * With no key columns every row hashes alike and every build row is on one chain: each probe row
 * pairs with every build row, the nested-loop join a condition without an equality needs.
 */
export function probeJoinHashTable(
  table: JoinHashTable,
  buildKeys: readonly KeyColumn[],
  probeKeys: readonly KeyColumn[],
  hashed: HashedKeys,
  from: number,
  to: number,
  keepUnmatched: boolean,
): JoinMatches {
  const { next } = table;
  const { usable } = hashed;
  const equal = keyComparer(buildKeys, probeKeys);
  let probeRows = new Int32Array(Math.max(16, to - from));
  let buildRows = new Int32Array(probeRows.length);
  let count = 0;
  for (let row = from; row < to; row++) {
    const first = usable === null || usable[row] === 1 ? firstBuildRow(table, hashed.hashes[row]!, row, equal) : -1;
    if (first === -1 && !keepUnmatched) continue;
    for (let b = first; ; b = next[b]!) {
      if (count === probeRows.length) {
        probeRows = grow(probeRows);
        buildRows = grow(buildRows);
      }
      probeRows[count] = row;
      buildRows[count] = b;
      count++;
      if (b === -1 || next[b] === -1) break;
    }
  }
  return { probeRows, buildRows, count };
}

/**
 * Per probe row, 1 when some build row has its key: all a left semi or anti join without a pair
 * condition asks, answered without listing the pairs.
 */
export function probeHasMatch(table: JoinHashTable, buildKeys: readonly KeyColumn[], probeKeys: readonly KeyColumn[], hashed: HashedKeys, numRows: number): Uint8Array {
  const { usable, hashes } = hashed;
  const equal = keyComparer(buildKeys, probeKeys);
  const matched = new Uint8Array(numRows);
  for (let row = 0; row < numRows; row++) {
    if (usable === null || usable[row] === 1) matched[row] = firstBuildRow(table, hashes[row]!, row, equal) === -1 ? 0 : 1;
  }
  return matched;
}

/** The first build row whose key equals probe row `row`'s (hash `h`), or -1. */
function firstBuildRow(table: JoinHashTable, h: number, row: number, equal: (b: number, p: number) => boolean): number {
  const { mask, slots } = table;
  for (let slot = h & mask; slots[2 * slot] !== 0; slot = (slot + 1) & mask) {
    if (slots[2 * slot + 1] !== h) continue;
    const head = slots[2 * slot]! - 1;
    if (equal(head, row)) return head;
  }
  return -1;
}

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(a.length * 2);
  bigger.set(a);
  return bigger;
}

/**
 * `(buildRow, probeRow) => keys equal`. A single key column, the common lookup, gets a comparer
 * of its own kind, which the JIT inlines into the probe loop.
 */
function keyComparer(buildKeys: readonly KeyColumn[], probeKeys: readonly KeyColumn[]): (b: number, p: number) => boolean {
  if (buildKeys.length === 1) {
    const x = buildKeys[0]!;
    const y = probeKeys[0]!;
    if (x.kind === "number" && y.kind === "number" && x.residuals === null && y.residuals === null) {
      const u = x.values;
      const v = y.values;
      return (b, p) => sameNumber(u[b]!, v[p]!);
    }
    if (x.kind === "string" && y.kind === "string" && x.codes === null && y.codes === null) {
      const { offsets: xo, bytes: xb } = x;
      const { offsets: yo, bytes: yb } = y;
      return (b, p) => bytesEqual(xb, xo[b]!, xo[b + 1]!, yb, yo[p]!, yo[p + 1]!);
    }
  }
  return (b, p) => keysEqual(buildKeys, b, probeKeys, p);
}

function sameNumber(u: number, v: number): boolean {
  return u === v || (u !== u && v !== v);
}

function keysEqual(aKeys: readonly KeyColumn[], a: number, bKeys: readonly KeyColumn[], b: number): boolean {
  for (let k = 0; k < aKeys.length; k++) {
    const x = aKeys[k]!;
    const y = bKeys[k]!;
    if (x.kind === "number") {
      const z = y as typeof x;
      if (!sameNumber(x.values[a]!, z.values[b]!)) return false;
      if ((x.residuals === null ? 0 : x.residuals[a]!) !== (z.residuals === null ? 0 : z.residuals[b]!)) return false;
    } else {
      const z = y as typeof x;
      const i = x.codes === null ? a : x.codes[a]!;
      const j = z.codes === null ? b : z.codes[b]!;
      if (!bytesEqual(x.bytes, x.offsets[i]!, x.offsets[i + 1]!, z.bytes, z.offsets[j]!, z.offsets[j + 1]!)) return false;
    }
  }
  return true;
}

function bytesEqual(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): boolean {
  const len = aEnd - aStart;
  if (len !== bEnd - bStart) return false;
  for (let i = 0; i < len; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

// ---- hashing: murmur3's 32-bit mixing, one key column at a time ----

/** Per-row hash of all key columns; `usable` is 0 where a key is null (null when none is). */
export function hashKeys(keys: readonly KeyColumn[], numRows: number): HashedKeys {
  const hashes = new Int32Array(numRows).fill(SEED);
  let usable: Uint8Array | null = null;
  for (const key of keys) {
    if (key.kind === "number") hashNumbers(key.values, numRows, hashes);
    else hashStrings(key, numRows, hashes);
    if (key.valid !== null) {
      usable ??= new Uint8Array(numRows).fill(1);
      for (let i = 0; i < numRows; i++) usable[i]! &= key.valid[i]!;
    }
  }
  for (let i = 0; i < numRows; i++) hashes[i] = finalMix(hashes[i]!);
  return { hashes, usable };
}

const SEED = 0x2f9be6a1;
const NAN_HASH = 0x7ff80000;
const scratch = new Float64Array(1);
const scratchWords = new Int32Array(scratch.buffer);

function hashNumbers(values: Float64Array, n: number, hashes: Int32Array): void {
  for (let i = 0; i < n; i++) {
    const x = values[i]!;
    let h = hashes[i]!;
    if (x !== x) {
      h = mix(h, NAN_HASH);
    } else {
      scratch[0] = x === 0 ? 0 : x; // -0 hashes as 0
      h = mix(mix(h, scratchWords[0]!), scratchWords[1]!);
    }
    hashes[i] = h;
  }
}

function hashStrings(key: KeyColumn & { kind: "string" }, n: number, hashes: Int32Array): void {
  const { offsets, bytes, codes } = key;
  if (codes === null) {
    for (let i = 0; i < n; i++) hashes[i] = mix(hashes[i]!, hashBytes(bytes, offsets[i]!, offsets[i + 1]!));
    return;
  }
  // Dictionary-encoded: hash each entry once, then look the codes up.
  const entries = offsets.length - 1;
  const entryHashes = new Int32Array(entries);
  for (let e = 0; e < entries; e++) entryHashes[e] = hashBytes(bytes, offsets[e]!, offsets[e + 1]!);
  for (let i = 0; i < n; i++) hashes[i] = mix(hashes[i]!, entryHashes[codes[i]!]!);
}

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = end - start;
  let i = start;
  for (; i + 4 <= end; i += 4) h = mix(h, bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
  let tail = 0;
  for (let shift = 0; i < end; i++, shift += 8) tail |= bytes[i]! << shift;
  return finalMix(mix(h, tail));
}

function mix(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finalMix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
