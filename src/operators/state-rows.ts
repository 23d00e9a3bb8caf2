/**
 * transformWithState's state rows as they travel between the driver and a task: the rows of a
 * task's keys on the way out, the rows the processor wrote on the way back. One row is a grouping
 * key (its canonical text), a variable's name and its bytes, plus, for a written row, whether it
 * was removed and the two figures the driver's table finds due rows by. The bytes of every row
 * share one buffer and the figures are typed arrays, so a task's message clones a handful of
 * arrays rather than an object and a buffer per row.
 */
export interface StateRows {
  readonly keys: readonly string[];
  readonly names: readonly string[];
  /** Row i's bytes are `bytes[offsets[i], offsets[i + 1])`. */
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  /** 1: the row was removed (it has no bytes). */
  readonly removed: Uint8Array;
  /** The row's earliest TTL expiry and timer; NaN for none. */
  readonly expiresAt: Float64Array;
  readonly timers: Float64Array;
}

export function rowCount(rows: StateRows): number {
  return rows.keys.length;
}

/** Row i's bytes (a view into the shared buffer), or null for a removed row. */
export function rowBytes(rows: StateRows, i: number): Uint8Array | null {
  return rows.removed[i] === 1 ? null : rows.bytes.subarray(rows.offsets[i]!, rows.offsets[i + 1]!);
}

/** Figures are carried as NaN for none. */
export function figure(values: Float64Array, i: number): number | null {
  const v = values[i]!;
  return Number.isNaN(v) ? null : v;
}

/** Collects rows into one `StateRows`; each row's bytes are copied into the shared buffer. */
export class StateRowsBuilder {
  private readonly keys: string[] = [];
  private readonly names: string[] = [];
  private offsets: number[] = [0];
  private bytes = new Uint8Array(4096);
  private readonly removed: number[] = [];
  private readonly expiresAt: number[] = [];
  private readonly timers: number[] = [];

  add(key: string, name: string, bytes: Uint8Array | null, expiresAt: number | null, timer: number | null): void {
    const at = this.offsets[this.offsets.length - 1]!;
    if (bytes !== null) {
      if (at + bytes.length > this.bytes.length) {
        const grown = new Uint8Array(Math.max(this.bytes.length * 2, at + bytes.length));
        grown.set(this.bytes.subarray(0, at));
        this.bytes = grown;
      }
      this.bytes.set(bytes, at);
    }
    this.keys.push(key);
    this.names.push(name);
    this.offsets.push(at + (bytes?.length ?? 0));
    this.removed.push(bytes === null ? 1 : 0);
    this.expiresAt.push(expiresAt ?? Number.NaN);
    this.timers.push(timer ?? Number.NaN);
  }

  finish(): StateRows {
    const used = this.offsets[this.offsets.length - 1]!;
    return {
      keys: this.keys,
      names: this.names,
      offsets: Int32Array.from(this.offsets),
      // A copy of the bytes used: the message then clones no more than the rows hold.
      bytes: this.bytes.slice(0, used),
      removed: Uint8Array.from(this.removed),
      expiresAt: Float64Array.from(this.expiresAt),
      timers: Float64Array.from(this.timers),
    };
  }
}
