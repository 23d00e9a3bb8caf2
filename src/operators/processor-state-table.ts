import type { StateStore } from "../state/state-store.js";
import type { StateSchema, StateTable } from "../state/state-table.js";
import type { ProcessorRowStore } from "./processor-state.js";
import type { StateRowsBuilder } from "./state-rows.js";
import { TIMERS } from "./processor-state.js";

/**
 * The driver's side of a `transformWithState` operator's state: every (variable, grouping key) row
 * in the operator's state table, keyed by `[name, key]` (the key's canonical text). What a batch
 * asks of all keys at once lives here: which keys have a timer due, which rows' TTL passed, the
 * earliest timer or expiry (when a processing-time query wants its next batch), a former
 * variable's rows dropped. What one key's processor call needs (its rows) is handed out by key, to
 * travel with the task that runs it.
 *
 * Two f64 columns find due rows without decoding any: `#expiresAt`, the earliest TTL expiry among
 * a row's values, and `#timer`, the earliest timer of a key. An index of each key's variable names,
 * built from the table when first needed and kept up to date by every write, finds a key's rows.
 */
export const PROCESSOR_STATE_SCHEMA: StateSchema = [
  { name: "value", kind: "bytes" },
  { name: "#expiresAt", kind: "f64" },
  { name: "#timer", kind: "f64" },
];
const VALUE = 0;
const EXPIRES_AT = 1;
const TIMER = 2;

export class ProcessorStateTable implements ProcessorRowStore {
  /** Each key's variable names; null until first needed. */
  private names: Map<string, Set<string>> | null = null;

  constructor(private readonly store: StateStore) {}

  /** The store's working version (a commit may replace it). */
  private get table(): StateTable {
    return this.store.table;
  }

  read(name: string, key: string): Uint8Array | undefined {
    const slot = this.table.get(rowKey.words, 0, rowKey.encode(name, key));
    if (slot < 0) return undefined;
    const col = this.table.bytes(VALUE);
    return col.arena.subarray(col.starts[slot]!, col.ends[slot]!);
  }

  write(name: string, key: string, bytes: Uint8Array | null, expiresAt: number | null, timer: number | null): void {
    const index = this.index();
    const n = rowKey.encode(name, key);
    if (bytes === null) {
      const slot = this.table.get(rowKey.words, 0, n);
      if (slot >= 0) this.table.remove(slot);
      const names = index.get(key);
      names?.delete(name);
      if (names?.size === 0) index.delete(key);
      return;
    }
    const slot = this.table.put(rowKey.words, 0, n);
    this.table.bytes(VALUE).set(slot, bytes, 0, bytes.length);
    setOrClear(this.table, EXPIRES_AT, slot, expiresAt);
    setOrClear(this.table, TIMER, slot, timer);
    let names = index.get(key);
    if (names === undefined) index.set(key, (names = new Set()));
    names.add(name);
  }

  /** Adds every row of `key` to `out` (which copies the bytes: cloning a view of the arena would clone all of it). */
  addRowsOf(key: string, out: StateRowsBuilder): void {
    const names = this.index().get(key);
    if (names === undefined) return;
    for (const name of names) out.add(key, name, this.read(name, key)!, null, null);
  }

  /** Keys with a timer before `thresholdMs` (Spark fires a timer once its time < the threshold). */
  keysWithTimersBefore(thresholdMs: number): string[] {
    const timerCol = this.table.f64(TIMER);
    const keys: string[] = [];
    for (const slot of this.table.slotsAtOrBelow(TIMER, thresholdMs - 1)) {
      if (timerCol.values[slot]! < thresholdMs) keys.push(decodeRowKey(this.table.keyOf(slot))[1]);
    }
    return keys;
  }

  /** The (variable, key) rows holding a value whose TTL passed by `nowMs`. */
  rowsExpiredBy(nowMs: number): [name: string, key: string][] {
    return Array.from(this.table.slotsAtOrBelow(EXPIRES_AT, nowMs), (slot) => decodeRowKey(this.table.keyOf(slot)));
  }

  /** The earliest timer of any key, or null: when a processing-time query wants its next batch. */
  earliestTimerMs(): number | null {
    return this.earliest(TIMER);
  }

  /** The earliest TTL expiry of any value, or null. */
  earliestExpiryMs(): number | null {
    return this.earliest(EXPIRES_AT);
  }

  /** Removes every key's row of variable `name` (a variable a former version of the processor had). */
  deleteVariable(name: string): void {
    if (name === TIMERS) return;
    for (const slot of this.table.liveSlots()) {
      const [rowName, key] = decodeRowKey(this.table.keyOf(slot));
      if (rowName === name) this.write(name, key, null, null, null);
    }
  }

  private index(): Map<string, Set<string>> {
    if (this.names !== null) return this.names;
    const names = new Map<string, Set<string>>();
    for (const slot of this.table.liveSlots()) {
      const [name, key] = decodeRowKey(this.table.keyOf(slot));
      let set = names.get(key);
      if (set === undefined) names.set(key, (set = new Set()));
      set.add(name);
    }
    return (this.names = names);
  }

  private earliest(col: number): number | null {
    const c = this.table.f64(col);
    let min = Infinity;
    for (const slot of this.table.liveSlots()) if (c.valid[slot] === 1 && c.values[slot]! < min) min = c.values[slot]!;
    return min === Infinity ? null : min;
  }
}

function setOrClear(table: StateTable, col: number, slot: number, value: number | null): void {
  const c = table.f64(col);
  if (value === null) c.clear(slot);
  else c.set(slot, value);
}

/**
 * `[name, key]` (the key's canonical text) as table key words: the byte length, then the UTF-8
 * bytes of its JSON text, zero-padded to a whole word. Written into one scratch buffer, since the
 * table copies a key it stores and every lookup uses it at once: a row key costs no allocation.
 */
class RowKeyWords {
  words = new Int32Array(256);
  private bytes = new Uint8Array(this.words.buffer, 4);
  private readonly utf8 = new TextEncoder();

  /** Encodes the key into `words`; returns how many words it takes. */
  encode(name: string, key: string): number {
    const text = JSON.stringify([name, key]);
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.bytes.length < text.length * 3 + 4) {
      this.words = new Int32Array(Math.ceil((text.length * 3 + 8) / 4) * 2);
      this.bytes = new Uint8Array(this.words.buffer, 4);
    }
    const { written } = this.utf8.encodeInto(text, this.bytes);
    const n = 1 + Math.ceil(written / 4);
    this.bytes.fill(0, written, (n - 1) * 4);
    this.words[0] = written;
    return n;
  }
}

const rowKey = new RowKeyWords();

function decodeRowKey(words: Int32Array): [name: string, key: string] {
  const text = Buffer.from(words.buffer, words.byteOffset + 4, words[0]!).toString("utf8");
  return JSON.parse(text) as [string, string];
}
