import { readdirSync } from "node:fs";
import { readString, utf8FromStrings } from "../batch/batch.js";
import { viewOf, viewToArrow } from "../kernels/hash-table-columns.js";
import { decodeKeys } from "../kernels/hash-table-key-decode.js";
import { KeyEncoder } from "../kernels/hash-table-keys.js";
import type { StateSchema, StateTable } from "./state-table.js";

/**
 * Builders for state store specs: string-keyed rows of a [count, label] schema read as plain
 * objects, a deterministic workload (the same in every process, so a child process that crashed
 * and the test that checks it agree on what each version holds), and any table's rows keyed by
 * their encoded key words.
 */

export const KIND = "stateStoreSave";
export const SCHEMA: StateSchema = [
  { name: "count", kind: "f64" },
  { name: "label", kind: "bytes" },
];

const utf8 = new TextEncoder();
const text = new TextDecoder();
const encoder = new KeyEncoder();

/** The encoded key of a one-string-column key. */
export function key(s: string): Int32Array {
  const keys = encoder.encode([{ view: viewOf(utf8FromStrings([s]), "string"), rows: null }], 1);
  return keys.words.slice(0, keys.offsets[1]);
}

export function keyName(table: StateTable, slot: number): string {
  const [view] = decodeKeys(table.keyTable.keyArena, table.keyTable.keyStarts, Int32Array.of(slot), ["string"]);
  return readString(viewToArrow(view!, "string"), 0)!;
}

/** Sets a string-keyed row of SCHEMA (inserting it); null clears a value. */
export function setRow(table: StateTable, k: string, count: number | null, label: string | null): void {
  const slot = table.put(key(k));
  if (count === null) table.f64(0).clear(slot);
  else table.f64(0).set(slot, count);
  if (label === null) table.bytes(1).clear(slot);
  else {
    const bytes = utf8.encode(label);
    table.bytes(1).set(slot, bytes, 0, bytes.length);
  }
}

export function removeRow(table: StateTable, k: string): void {
  const slot = table.get(key(k));
  if (slot >= 0) table.remove(slot);
}

/** key -> [count, label] of every live row of a SCHEMA table. */
export function rowsOf(table: StateTable): Record<string, [number | null, string | null]> {
  const out: Record<string, [number | null, string | null]> = {};
  for (const slot of table.liveSlots()) out[keyName(table, slot)] = [f64At(table, 0, slot), bytesAt(table, 1, slot)];
  return sorted(out);
}

/** Every live row of any table: encoded key words (hex) -> values (numbers, strings, nulls). */
export function tableRows(table: StateTable): Record<string, (number | string | null)[]> {
  const out: Record<string, (number | string | null)[]> = {};
  for (const slot of table.liveSlots()) {
    const words = Array.from(table.keyOf(slot), (w) => (w >>> 0).toString(16).padStart(8, "0")).join("");
    out[words] = table.schema.map((c, i) => (c.kind === "f64" ? f64At(table, i, slot) : bytesAt(table, i, slot)));
  }
  return sorted(out);
}

function f64At(table: StateTable, col: number, slot: number): number | null {
  const c = table.f64(col);
  return c.valid[slot] === 1 ? c.values[slot]! : null;
}

function bytesAt(table: StateTable, col: number, slot: number): string | null {
  const c = table.bytes(col);
  return c.valid[slot] === 1 ? text.decode(c.arena.subarray(c.starts[slot], c.ends[slot])) : null;
}

function sorted<T>(rows: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(rows).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Version v's changes to a SCHEMA table: six keys of twenty counted up, with labels of varying
 * length (null for some), one key removed, and, like eviction by watermark, every row whose
 * count reached 3.
 */
export function applyVersion(table: StateTable, v: number): void {
  for (let i = 0; i < 6; i++) {
    const k = `k${(v * 5 + i * 3) % 20}`;
    const slot = table.get(key(k));
    const count = slot >= 0 && table.f64(0).valid[slot] === 1 ? table.f64(0).values[slot]! : 0;
    setRow(table, k, count + 1, (v + i) % 4 === 0 ? null : `v${v}-${"x".repeat(i)}`);
  }
  removeRow(table, `k${(v * 7) % 20}`);
  for (const slot of table.slotsAtOrBelow(0, Infinity)) if (table.f64(0).values[slot]! >= 3) table.remove(slot);
}

/** The state files of a folder, by version, deltas before snapshots (temp files and others left out). */
export function stateFiles(dir: string): string[] {
  const names = readdirSync(dir).filter((n) => /^\d+\.(delta|snapshot)$/.test(n));
  const rank = (n: string) => Number(n.split(".")[0]) * 2 + (n.endsWith(".snapshot") ? 1 : 0);
  return names.sort((a, b) => rank(a) - rank(b));
}

/** Temp files in a folder (a write in progress, or one a crash cut short). */
export function tempFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith(".") && n.endsWith(".tmp"));
}
