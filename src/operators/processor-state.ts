import { deserialize, serialize } from "node:v8";
import { AnalysisError } from "../errors/errors.js";
import { encodeKey } from "./canonical-key.js";
import type { ListState, MapState, ValueState } from "./stateful-processor.js";

/**
 * The state of a `transformWithState` operator, as one grouping key sees it: one row per (state
 * variable, grouping key) holding the variable's whole value for that key, and one row per key
 * holding its timers. A row's value is the structured clone of what it holds (see `Stored`); where
 * the rows live is a `ProcessorRowStore`: the operator's state table on the driver
 * (processor-state-table.ts), or the rows of its keys a task carries to a worker
 * (processor-run.ts), so the same code reads and writes state in both places.
 *
 * A key's work runs inside `withKey`: a variable's row is decoded at its first use for the key
 * and written back once, when the key is done (`flush`), so appending to a list row by row costs
 * one encoding per key and batch.
 */

/** The row name of a key's timers; user variables may not start with "#". */
export const TIMERS = "#timers";

export type StateKind = "value" | "list" | "map";

/** Where a ProcessorState's rows live. Keys are a grouping key's canonical text (canonical-key.ts). */
export interface ProcessorRowStore {
  /** The stored row of variable `name` of grouping key `key`, or undefined. */
  read(name: string, key: string): Uint8Array | undefined;
  /**
   * Writes that row back (null removes it), with the two figures a batch finds due rows by without
   * decoding them: the earliest TTL expiry among its values and, for a timers row, its earliest timer.
   */
  write(name: string, key: string, bytes: Uint8Array | null, expiresAt: number | null, timer: number | null): void;
}

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

/** Adds `more` into `into`. */
export function addCounters(into: ProcessorCounters, more: ProcessorCounters): void {
  into.numRegisteredTimers += more.numRegisteredTimers;
  into.numDeletedTimers += more.numDeletedTimers;
  into.numExpiredTimers += more.numExpiredTimers;
  into.numValuesRemovedDueToTTLExpiry += more.numValuesRemovedDueToTTLExpiry;
}

export class ProcessorState {
  /** The current key's values and canonical text; null outside `withKey`. */
  private key: { readonly values: readonly unknown[]; readonly encoded: string } | null = null;
  /** Rows of the current key read or written so far, by name. */
  private readonly open = new Map<string, { decoded: Decoded; dirty: boolean }>();
  readonly counters = emptyCounters();

  /** `nowMs`: the batch's timestamp, the processing time TTL is judged by. */
  constructor(
    private readonly rows: ProcessorRowStore,
    private readonly nowMs: number,
  ) {}

  /** Runs `work` with the key `encoded` (whose values are `keyValues`) as the current grouping key, then writes back what it changed. */
  withKey<T>(encoded: string, keyValues: readonly unknown[], work: () => T): T {
    this.key = { values: keyValues, encoded };
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

  /** The timers of key `encoded` (outside `withKey`: as stored), earliest first. */
  timersOf(encoded: string): number[] {
    const bytes = this.rows.read(TIMERS, encoded);
    return bytes === undefined ? [] : [...(fromStored(decodeStored(bytes), "timers", TIMERS) as Extract<Decoded, { kind: "timers" }>).timers];
  }

  /**
   * Inside `withKey`: drops the values of variable `name` whose TTL passed by the batch's time
   * (Spark's doTtlCleanup); returns how many.
   */
  removeExpired(name: string): number {
    const bytes = this.rows.read(name, this.currentKey().encoded);
    if (bytes === undefined) return 0;
    const stored = decodeStored(bytes);
    if (stored.k === "timers") return 0;
    const row = this.row(name, stored.k);
    const before = entryCount(row);
    dropExpired(row, (e) => this.expired(e));
    const removed = before - entryCount(row);
    this.touch(name);
    this.counters.numValuesRemovedDueToTTLExpiry += removed;
    return removed;
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
    const bytes = this.rows.read(name, this.currentKey().encoded);
    const decoded = bytes === undefined ? emptyRow(kind) : fromStored(decodeStored(bytes), kind, name);
    this.open.set(name, { decoded, dirty: false });
    return decoded;
  }

  private touch(name: string): void {
    this.open.get(name)!.dirty = true;
  }

  /** Writes back the current key's changed rows; a row left empty is removed. */
  private flush(): void {
    const key = this.currentKey().encoded;
    for (const [name, { decoded, dirty }] of this.open) {
      if (!dirty) continue;
      const stored = toStored(decoded);
      if (stored === null) this.rows.write(name, key, null, null, null);
      else this.rows.write(name, key, encodeStored(stored), earliestExpiry(stored), stored.k === "timers" ? stored.t[0]! : null);
    }
    this.open.clear();
  }
}

/**
 * A row's bytes. Most state holds JSON data (numbers, strings, arrays and plain objects of them),
 * which is stored as JSON text: encoding and decoding it is several times cheaper than V8's
 * serializer for the small values state rows hold (measured by bench/transform-with-state.ts).
 * Anything else (Dates, bigints, Maps, byte arrays, -0, NaN) is stored as V8's structured clone,
 * whose bytes start with its version tag 0xFF, which JSON text never does: rows written either
 * way, or by a version of Sluice that stored only structured clones, read back alike.
 */
function encodeStored(stored: Stored): Uint8Array {
  return isJsonData(stored, 0) ? utf8.encode(JSON.stringify(stored)) : serialize(stored);
}

function decodeStored(bytes: Uint8Array): Stored {
  return (bytes[0] === V8_VERSION_TAG ? deserialize(bytes) : JSON.parse(utf8Text.decode(bytes))) as Stored;
}

const V8_VERSION_TAG = 0xff;
const utf8 = new TextEncoder();
const utf8Text = new TextDecoder();

/** Whether JSON text gives `v` back exactly: finite numbers (not -0), strings, booleans, null, dense arrays and plain objects of these. */
function isJsonData(v: unknown, depth: number): boolean {
  if (depth > 64) return false;
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(v) && !Object.is(v, -0);
    case "object": {
      if (v === null) return true;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!(i in v) || !isJsonData(v[i], depth + 1)) return false;
        return true;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return false;
      for (const key in v) if (key === "__proto__" || !isJsonData((v as Record<string, unknown>)[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
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

/** The earliest TTL expiry of a row's values (null: none expires). A plain loop: it runs for every row written. */
function earliestExpiry(s: Stored): number | null {
  switch (s.k) {
    case "value":
      return s.e[1];
    case "list":
      return minOf(s.e, 1);
    case "map":
      return minOf(s.e, 2);
    case "timers":
      return null;
  }
}

function minOf(entries: readonly (readonly unknown[])[], at: number): number | null {
  let min = Infinity;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]![at] as number | null;
    if (e !== null && e < min) min = e;
  }
  return min === Infinity ? null : min;
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
