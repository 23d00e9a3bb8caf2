import { deserialize, serialize } from "node:v8";
import { AnalysisError } from "../errors/errors.js";
import { decodeKey, encodeKey } from "./canonical-key.js";
import type { StateStore } from "../state/state-store.js";
import type { StateSchema, StateTable } from "../state/state-table.js";
import type { ListState, MapState, ValueState } from "./stateful-processor.js";

/**
 * The state of a `transformWithState` operator in one state table: one row per (state variable,
 * grouping key) holding the variable's whole value for that key, and one row per grouping key
 * holding its timers. A row's table key is the structured-clone bytes of `[name, keyValues]`
 * (length first, packed into words), so it can be found from a key's values and decoded back
 * to them (to fire a timer or expire a value of a key that has no input).
 *
 * Two f64 columns let a batch find what is due without decoding every row: `#expiresAt`, the
 * earliest TTL expiry among a row's values, and `#timer`, the earliest timer of a key.
 *
 * A batch works key by key (`withKey`): a variable's row is decoded at its first use for the key
 * and written back once, when the key is done (`flush`), so appending to a list row by row costs
 * one encoding per key and batch.
 */
export const PROCESSOR_STATE_SCHEMA: StateSchema = [
  { name: "value", kind: "bytes" },
  { name: "#expiresAt", kind: "f64" },
  { name: "#timer", kind: "f64" },
];
const VALUE = 0;
const EXPIRES_AT = 1;
const TIMER = 2;

/** The row name of a key's timers; user variables may not start with "#". */
const TIMERS = "#timers";

export type StateKind = "value" | "list" | "map";

/** One element of a variable: its value and when it expires (null: never). */
type Entry = readonly [value: unknown, expiresAt: number | null];

/** A variable's row, decoded: a value's single entry, a list's entries, a map's entries by encoded key. */
type Decoded =
  | { readonly kind: "value"; entry: Entry | null }
  | { readonly kind: "list"; entries: Entry[] }
  | { readonly kind: "map"; entries: Map<string, readonly [key: unknown, value: unknown, expiresAt: number | null]> }
  | { readonly kind: "timers"; timers: number[] };

type Stored =
  | { readonly k: "value"; readonly e: Entry }
  | { readonly k: "list"; readonly e: Entry[] }
  | { readonly k: "map"; readonly e: (readonly [unknown, unknown, number | null])[] }
  | { readonly k: "timers"; readonly t: number[] };

/** What a batch did, for the operator's custom metrics (Spark's names). */
export interface ProcessorCounters {
  numRegisteredTimers: number;
  numDeletedTimers: number;
  numExpiredTimers: number;
  numValuesRemovedDueToTTLExpiry: number;
}

export function emptyCounters(): ProcessorCounters {
  return { numRegisteredTimers: 0, numDeletedTimers: 0, numExpiredTimers: 0, numValuesRemovedDueToTTLExpiry: 0 };
}

/** A timer that is due: the key's values (decoded from state) and its time. */
export interface DueTimer {
  readonly keyValues: readonly unknown[];
  readonly expiryTimeMs: number;
  /** The encoded key, to order timers of one time deterministically. */
  readonly order: string;
}

export class ProcessorState {
  /** The current key's values and their encoding; null outside `withKey`. */
  private key: { readonly values: readonly unknown[]; readonly encoded: string } | null = null;
  /** Rows of the current key read or written so far, by name. */
  private readonly open = new Map<string, { decoded: Decoded; dirty: boolean }>();
  private nowMs = 0;
  counters = emptyCounters();

  constructor(private readonly store: StateStore) {}

  /** The store's working version (a commit or an abort may replace it). */
  private get table(): StateTable {
    return this.store.table;
  }

  /** Starts a batch: the processing time TTL is judged by. */
  startBatch(batchTimestampMs: number): void {
    this.nowMs = batchTimestampMs;
    this.counters = emptyCounters();
  }

  /** Runs `work` with `keyValues` as the current grouping key, then writes back what it changed. */
  withKey<T>(keyValues: readonly unknown[], work: () => T): T {
    this.key = { values: keyValues, encoded: encodeKey(keyValues, "a grouping key") };
    try {
      return work();
    } finally {
      this.flush();
      this.key = null;
    }
  }

  valueState<T>(name: string, ttlMs: number | null): ValueState<T> {
    const row = () => this.row(name, "value") as Extract<Decoded, { kind: "value" }>;
    const live = () => {
      const e = row().entry;
      return e !== null && !this.expired(e[1]) ? e : null;
    };
    return {
      exists: () => live() !== null,
      get: () => live()?.[0] as T | undefined,
      update: (value) => {
        checkValue(name, value);
        row().entry = [value, this.expiry(ttlMs)];
        this.touch(name);
      },
      clear: () => {
        row().entry = null;
        this.touch(name);
      },
    };
  }

  listState<T>(name: string, ttlMs: number | null): ListState<T> {
    const row = () => this.row(name, "list") as Extract<Decoded, { kind: "list" }>;
    const live = () => row().entries.filter((e) => !this.expired(e[1]));
    const append = (values: readonly T[]) => {
      const expiresAt = this.expiry(ttlMs);
      for (const v of values) checkValue(name, v);
      row().entries.push(...values.map((v): Entry => [v, expiresAt]));
      this.touch(name);
    };
    return {
      exists: () => live().length > 0,
      get: () => live().map((e) => e[0] as T),
      put: (values) => {
        row().entries = [];
        append(values);
      },
      appendValue: (value) => append([value]),
      appendList: (values) => append(values),
      clear: () => {
        row().entries = [];
        this.touch(name);
      },
    };
  }

  mapState<K, V>(name: string, ttlMs: number | null): MapState<K, V> {
    const row = () => this.row(name, "map") as Extract<Decoded, { kind: "map" }>;
    const liveEntries = () => [...row().entries.values()].filter((e) => !this.expired(e[2]));
    const find = (key: K) => {
      const e = row().entries.get(encodeUserKey(name, key));
      return e !== undefined && !this.expired(e[2]) ? e : undefined;
    };
    return {
      exists: () => liveEntries().length > 0,
      getValue: (key) => find(key)?.[1] as V | undefined,
      containsKey: (key) => find(key) !== undefined,
      updateValue: (key, value) => {
        checkValue(name, value);
        row().entries.set(encodeUserKey(name, key), [key, value, this.expiry(ttlMs)]);
        this.touch(name);
      },
      removeKey: (key) => {
        if (row().entries.delete(encodeUserKey(name, key))) this.touch(name);
      },
      entries: () => liveEntries().map((e) => [e[0] as K, e[1] as V]),
      keys: () => liveEntries().map((e) => e[0] as K),
      values: () => liveEntries().map((e) => e[1] as V),
      clear: () => {
        row().entries.clear();
        this.touch(name);
      },
    };
  }

  registerTimer(expiryTimeMs: number): void {
    const row = this.timersRow();
    if (!row.timers.includes(expiryTimeMs)) {
      row.timers.push(expiryTimeMs);
      row.timers.sort((a, b) => a - b);
    }
    this.counters.numRegisteredTimers++;
    this.touch(TIMERS);
  }

  deleteTimer(expiryTimeMs: number): void {
    const row = this.timersRow();
    const at = row.timers.indexOf(expiryTimeMs);
    if (at >= 0) row.timers.splice(at, 1);
    this.counters.numDeletedTimers++;
    this.touch(TIMERS);
  }

  listTimers(): number[] {
    return [...this.timersRow().timers];
  }

  /** Timers of every key whose time is before `thresholdMs` (Spark fires a timer once its time < the threshold), earliest first. */
  dueTimers(thresholdMs: number): DueTimer[] {
    const due: DueTimer[] = [];
    const timerCol = this.table.f64(TIMER);
    for (const slot of this.table.slotsAtOrBelow(TIMER, thresholdMs - 1)) {
      if (!(timerCol.values[slot]! < thresholdMs)) continue;
      const [, keyValues] = decodeRowKey(this.table.keyOf(slot));
      const stored = this.readSlot(slot) as Extract<Stored, { k: "timers" }>;
      const order = encodeKey(keyValues, "a grouping key");
      for (const t of stored.t) if (t < thresholdMs) due.push({ keyValues, expiryTimeMs: t, order });
    }
    return due.sort((a, b) => a.expiryTimeMs - b.expiryTimeMs || (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  }

  /** The earliest timer of any key, or null: when a processing-time query wants its next batch. */
  earliestTimerMs(): number | null {
    return this.earliest(TIMER);
  }

  /** The earliest TTL expiry of any value, or null. */
  earliestExpiryMs(): number | null {
    return this.earliest(EXPIRES_AT);
  }

  /** Removes every value whose TTL expired by the batch's time (Spark's doTtlCleanup); returns how many. */
  removeExpired(): number {
    let removed = 0;
    for (const slot of this.table.slotsAtOrBelow(EXPIRES_AT, this.nowMs)) {
      const [name, keyValues] = decodeRowKey(this.table.keyOf(slot));
      const stored = this.readSlot(slot);
      const kind = stored.k === "timers" ? null : stored.k;
      if (kind === null) continue;
      this.withKey(keyValues, () => {
        const row = this.row(name, kind);
        const before = entryCount(row);
        dropExpired(row, (e) => this.expired(e));
        removed += before - entryCount(row);
        this.touch(name);
      });
    }
    this.counters.numValuesRemovedDueToTTLExpiry += removed;
    return removed;
  }

  /** Removes every key's row of variable `name` (a variable a former version of the processor had). */
  deleteVariable(name: string): void {
    for (const slot of this.table.liveSlots()) if (decodeRowKey(this.table.keyOf(slot))[0] === name) this.table.remove(slot);
  }

  private earliest(col: number): number | null {
    const c = this.table.f64(col);
    let min = Infinity;
    for (const slot of this.table.liveSlots()) if (c.valid[slot] === 1 && c.values[slot]! < min) min = c.values[slot]!;
    return min === Infinity ? null : min;
  }

  private expiry(ttlMs: number | null): number | null {
    return ttlMs === null ? null : this.nowMs + ttlMs;
  }

  /** Spark's StateTTL: a value whose expiry is at or before the batch's time is gone. */
  private expired(expiresAt: number | null): boolean {
    return expiresAt !== null && expiresAt <= this.nowMs;
  }

  private timersRow(): Extract<Decoded, { kind: "timers" }> {
    return this.row(TIMERS, "timers") as Extract<Decoded, { kind: "timers" }>;
  }

  private currentKey(): { readonly values: readonly unknown[]; readonly encoded: string } {
    if (this.key === null) {
      throw new AnalysisError("state and timers are per grouping key: use them in handleInputRows, handleExpiredTimer or handleInitialState, not in init or close");
    }
    return this.key;
  }

  private row(name: string, kind: StateKind | "timers"): Decoded {
    const open = this.open.get(name);
    if (open) return open.decoded;
    const slot = this.table.get(this.rowKey(name));
    const decoded = slot < 0 ? emptyRow(kind) : fromStored(this.readSlot(slot), kind, name);
    this.open.set(name, { decoded, dirty: false });
    return decoded;
  }

  private touch(name: string): void {
    this.open.get(name)!.dirty = true;
  }

  private rowKey(name: string): Int32Array {
    return encodeRowKey(name, this.currentKey().encoded);
  }

  private readSlot(slot: number): Stored {
    const col = this.table.bytes(VALUE);
    return deserialize(col.arena.subarray(col.starts[slot]!, col.ends[slot]!)) as Stored;
  }

  /** Writes back the current key's changed rows; a row left empty is removed. */
  private flush(): void {
    for (const [name, { decoded, dirty }] of this.open) {
      if (!dirty) continue;
      const key = this.rowKey(name);
      const stored = toStored(decoded);
      if (stored === null) {
        const slot = this.table.get(key);
        if (slot >= 0) this.table.remove(slot);
        continue;
      }
      const slot = this.table.put(key);
      const bytes = serialize(stored);
      this.table.bytes(VALUE).set(slot, bytes, 0, bytes.length);
      setOrClear(this.table, EXPIRES_AT, slot, earliestExpiry(stored));
      setOrClear(this.table, TIMER, slot, stored.k === "timers" ? stored.t[0]! : null);
    }
    this.open.clear();
  }
}

function setOrClear(table: StateTable, col: number, slot: number, value: number | null): void {
  const c = table.f64(col);
  if (value === null) c.clear(slot);
  else c.set(slot, value);
}

function emptyRow(kind: StateKind | "timers"): Decoded {
  switch (kind) {
    case "value":
      return { kind, entry: null };
    case "list":
      return { kind, entries: [] };
    case "map":
      return { kind, entries: new Map() };
    case "timers":
      return { kind, timers: [] };
  }
}

function fromStored(stored: Stored, kind: StateKind | "timers", name: string): Decoded {
  if (stored.k !== kind) {
    throw new AnalysisError(
      `state variable "${name}" holds a ${stored.k} state in the checkpoint and is declared as a ${kind} state now; ` +
        `give the new variable another name, or drop the old one first with handle.deleteIfExists("${name}")`,
    );
  }
  switch (stored.k) {
    case "value":
      return { kind: "value", entry: stored.e };
    case "list":
      return { kind: "list", entries: [...stored.e] };
    case "map":
      return { kind: "map", entries: new Map(stored.e.map((e) => [encodeKey(e[0], `map state "${name}"`), e])) };
    case "timers":
      return { kind: "timers", timers: [...stored.t] };
  }
}

/** The row to store, null when the variable holds nothing (its row is removed). */
function toStored(d: Decoded): Stored | null {
  switch (d.kind) {
    case "value":
      return d.entry === null ? null : { k: "value", e: d.entry };
    case "list":
      return d.entries.length === 0 ? null : { k: "list", e: d.entries };
    case "map":
      return d.entries.size === 0 ? null : { k: "map", e: [...d.entries.values()] };
    case "timers":
      return d.timers.length === 0 ? null : { k: "timers", t: d.timers };
  }
}

function earliestExpiry(s: Stored): number | null {
  let min: number | null = null;
  const see = (e: number | null) => {
    if (e !== null && (min === null || e < min)) min = e;
  };
  switch (s.k) {
    case "value":
      see(s.e[1]);
      break;
    case "list":
      for (const e of s.e) see(e[1]);
      break;
    case "map":
      for (const e of s.e) see(e[2]);
      break;
    case "timers":
      break;
  }
  return min;
}

function entryCount(d: Decoded): number {
  return d.kind === "value" ? (d.entry === null ? 0 : 1) : d.kind === "list" ? d.entries.length : d.kind === "map" ? d.entries.size : 0;
}

function dropExpired(d: Decoded, expired: (expiresAt: number | null) => boolean): void {
  if (d.kind === "value" && d.entry !== null && expired(d.entry[1])) d.entry = null;
  else if (d.kind === "list") d.entries = d.entries.filter((e) => !expired(e[1]));
  else if (d.kind === "map") for (const [k, e] of d.entries) if (expired(e[2])) d.entries.delete(k);
}

function encodeUserKey(name: string, key: unknown): string {
  return encodeKey(key, `map state "${name}"`);
}

function checkValue(name: string, value: unknown): void {
  if (value === undefined) throw new AnalysisError(`state "${name}": undefined cannot be stored; clear() the state or store null`);
  if (typeof value === "function" || typeof value === "symbol") {
    throw new AnalysisError(`state "${name}": a ${typeof value} cannot be stored; state holds data (numbers, strings, Dates, arrays, maps, plain objects)`);
  }
}

/** `[name, key]` (the key's canonical text) as table key words: the byte length, then the UTF-8 bytes. */
function encodeRowKey(name: string, encodedKey: string): Int32Array {
  const text = Buffer.from(JSON.stringify([name, encodedKey]), "utf8");
  const words = new Int32Array(1 + Math.ceil(text.length / 4));
  words[0] = text.length;
  new Uint8Array(words.buffer, 4).set(text);
  return words;
}

function decodeRowKey(words: Int32Array): [name: string, keyValues: readonly unknown[]] {
  const text = Buffer.from(words.buffer, words.byteOffset + 4, words[0]!).toString("utf8");
  const [name, key] = JSON.parse(text) as [string, string];
  return [name, decodeKey(key) as unknown[]];
}
