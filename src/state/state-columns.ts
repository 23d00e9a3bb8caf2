import type { NumberView, StringView } from "../kernels/hash-table-columns.js";

/**
 * Growable typed-array value columns of the state store, indexed by row slot. A column never
 * shrinks while rows are added; `compacted` and `cloned` produce fresh, trimmed copies (fresh
 * arrays also guarantee that slots handed out later start zeroed).
 */

/** A float64 value per slot plus a validity byte (numbers, timestamps, booleans, counts). */
export class F64StateColumn {
  readonly kind = "f64";
  values: Float64Array;
  valid: Uint8Array;

  constructor(capacity: number) {
    this.values = new Float64Array(capacity);
    this.valid = new Uint8Array(capacity);
  }

  ensure(capacity: number): void {
    if (this.values.length >= capacity) return;
    const size = Math.max(capacity, this.values.length * 2);
    const values = new Float64Array(size);
    values.set(this.values);
    const valid = new Uint8Array(size);
    valid.set(this.valid);
    this.values = values;
    this.valid = valid;
  }

  set(slot: number, value: number): void {
    this.values[slot] = value;
    this.valid[slot] = 1;
  }

  clear(slot: number): void {
    this.values[slot] = 0;
    this.valid[slot] = 0;
  }

  view(): NumberView {
    return { kind: "number", values: this.values, valid: this.valid };
  }

  compacted(mapping: Int32Array, count: number): F64StateColumn {
    const out = new F64StateColumn(Math.max(16, count * 2));
    for (let old = 0; old < mapping.length; old++) {
      const s = mapping[old]!;
      if (s < 0) continue;
      out.values[s] = this.values[old]!;
      out.valid[s] = this.valid[old]!;
    }
    return out;
  }

  cloned(count: number): F64StateColumn {
    const out = new F64StateColumn(Math.max(16, count));
    out.values.set(this.values.subarray(0, count));
    out.valid.set(this.valid.subarray(0, count));
    return out;
  }

  memoryBytes(): number {
    return this.values.byteLength + this.valid.byteLength;
  }
}

/**
 * A byte string per slot (string min / max / first / last), stored in one arena. An update that
 * fits the slot's current range is written in place; a longer one is appended and the old range
 * becomes garbage until the next compaction.
 */
export class BytesStateColumn {
  readonly kind = "bytes";
  starts: Int32Array;
  ends: Int32Array;
  valid: Uint8Array;
  arena: Uint8Array;
  used = 0;

  constructor(capacity: number, arenaBytes = capacity * 16) {
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
    this.valid = new Uint8Array(capacity);
    this.arena = new Uint8Array(Math.max(64, arenaBytes));
  }

  ensure(capacity: number): void {
    if (this.starts.length >= capacity) return;
    const size = Math.max(capacity, this.starts.length * 2);
    const starts = new Int32Array(size);
    starts.set(this.starts);
    const ends = new Int32Array(size);
    ends.set(this.ends);
    const valid = new Uint8Array(size);
    valid.set(this.valid);
    this.starts = starts;
    this.ends = ends;
    this.valid = valid;
  }

  set(slot: number, src: Uint8Array, from: number, to: number): void {
    const len = to - from;
    let at = this.starts[slot]!;
    if (this.valid[slot] !== 1 || this.ends[slot]! - at < len) {
      at = this.reserve(len);
    }
    // Copy through a loop rather than `set`: values are short and `src` may be this arena.
    const arena = this.arena;
    for (let k = 0; k < len; k++) arena[at + k] = src[from + k]!;
    this.starts[slot] = at;
    this.ends[slot] = at + len;
    this.valid[slot] = 1;
  }

  clear(slot: number): void {
    this.starts[slot] = 0;
    this.ends[slot] = 0;
    this.valid[slot] = 0;
  }

  /** A view of the current arena: valid until the next `set` that grows it. */
  view(): StringView {
    return { kind: "string", bytes: this.arena, starts: this.starts, ends: this.ends, valid: this.valid };
  }

  compacted(mapping: Int32Array, count: number): BytesStateColumn {
    const out = new BytesStateColumn(Math.max(16, count * 2), this.liveBytes(mapping) * 2);
    for (let old = 0; old < mapping.length; old++) {
      const s = mapping[old]!;
      if (s >= 0 && this.valid[old] === 1) out.set(s, this.arena, this.starts[old]!, this.ends[old]!);
    }
    return out;
  }

  cloned(count: number): BytesStateColumn {
    const identity = new Int32Array(count);
    for (let i = 0; i < count; i++) identity[i] = i;
    return this.compacted(identity, count);
  }

  memoryBytes(): number {
    return this.starts.byteLength * 2 + this.valid.byteLength + this.arena.byteLength;
  }

  private reserve(len: number): number {
    if (this.used + len > this.arena.length) {
      // Grow into a new buffer and leave the old one untouched: views taken before stay readable.
      const grown = new Uint8Array(Math.max(this.arena.length * 2, this.used + len));
      grown.set(this.arena.subarray(0, this.used));
      this.arena = grown;
    }
    const at = this.used;
    this.used += len;
    return at;
  }

  private liveBytes(mapping: Int32Array): number {
    let total = 0;
    for (let old = 0; old < mapping.length; old++) if (mapping[old]! >= 0 && this.valid[old] === 1) total += this.ends[old]! - this.starts[old]!;
    return total;
  }
}

export type StateColumn = F64StateColumn | BytesStateColumn;
