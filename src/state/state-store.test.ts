import { describe, expect, it } from "vitest";
import { readString, utf8FromStrings } from "../batch/batch.js";
import { CheckpointError } from "../errors/errors.js";
import { viewOf, viewToArrow } from "../kernels/hash-table-columns.js";
import { decodeKeys } from "../kernels/hash-table-key-decode.js";
import { KeyEncoder } from "../kernels/hash-table-keys.js";
import { InMemoryStateStoreProvider } from "./in-memory-provider.js";
import type { StateSchema, StateTable } from "./state-table.js";

const schema: StateSchema = [
  { name: "count", kind: "f64" },
  { name: "label", kind: "bytes" },
];
const utf8 = new TextEncoder();
const encoder = new KeyEncoder();

/** The encoded key of a one-string-column key. */
function key(s: string): Int32Array {
  const keys = encoder.encode([{ view: viewOf(utf8FromStrings([s]), "string"), rows: null }], 1);
  return keys.words.slice(0, keys.offsets[1]);
}

function keyName(table: StateTable, slot: number): string {
  const [view] = decodeKeys(table.keyTable.keyArena, table.keyTable.keyStarts, Int32Array.of(slot), ["string"]);
  return readString(viewToArrow(view!, "string"), 0)!;
}

/** Adds 1 to a key's count and sets its label. */
function bump(table: StateTable, k: string, label = k): void {
  const slot = table.put(key(k));
  table.f64(0).set(slot, table.f64(0).values[slot]! + 1);
  const bytes = utf8.encode(label);
  table.bytes(1).set(slot, bytes, 0, bytes.length);
}

/** key -> [count, label] of every live row. */
function contents(table: StateTable): Record<string, [number, string]> {
  const out: Record<string, [number, string]> = {};
  const decoder = new TextDecoder();
  const labels = table.bytes(1);
  for (const slot of table.liveSlots()) {
    out[keyName(table, slot)] = [table.f64(0).values[slot]!, decoder.decode(labels.arena.subarray(labels.starts[slot], labels.ends[slot]))];
  }
  return out;
}

describe("StateTable", () => {
  it("gets, puts, removes and iterates rows by key, tracking rows updated since the last commit", () => {
    const store = new InMemoryStateStoreProvider().load(0, -1);
    const table = store.open(schema);
    bump(table, "a");
    bump(table, "b");
    bump(table, "a", "a-longer-label");
    expect(table.get(key("a"))).toBe(0);
    expect(table.get(key("zzz"))).toBe(-1);
    table.remove(table.get(key("b")));
    expect(contents(table)).toEqual({ a: [2, "a-longer-label"] });
    expect(table.size).toBe(1);
    store.commit(0);
    expect(table.updatedSlots().length).toBe(0);
    bump(table, "c");
    expect(Array.from(table.updatedSlots(), (s) => keyName(table, s))).toEqual(["c"]);
  });
});

describe("InMemoryStateStoreProvider", () => {
  it("loads committed versions; re-running batch N from N - 1 does not see N's work", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(1, -1);
    const t = store.open(schema);
    bump(t, "a");
    store.commit(0);
    bump(store.table, "a");
    bump(store.table, "b");
    store.commit(1);
    expect(provider.latestVersion(1)).toBe(1);
    expect(contents(provider.load(1, 0).open(schema))).toEqual({ a: [1, "a"] });
    expect(contents(provider.load(1, 1).open(schema))).toEqual({ a: [2, "a"], b: [1, "b"] });
    // Re-run batch 1: load 0, redo the work, commit 1 again (replacing the old version 1).
    const rerun = provider.load(1, 0);
    bump(rerun.open(schema), "c");
    rerun.commit(1);
    expect(contents(provider.load(1, 1).open(schema))).toEqual({ a: [1, "a"], c: [1, "c"] });
  });

  it("keeps committed versions independent of the working copy and of each other", () => {
    const provider = new InMemoryStateStoreProvider({ minBatchesToRetain: 3 });
    const store = provider.load(0, -1);
    bump(store.open(schema), "a");
    store.commit(0);
    bump(store.table, "a", "changed");
    expect(contents(provider.load(0, 0).open(schema))).toEqual({ a: [1, "a"] });
  });

  it("abort() throws the uncommitted work away", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, -1);
    bump(store.open(schema), "a");
    store.commit(0);
    bump(store.table, "b");
    const generation = store.generation;
    store.abort();
    expect(contents(store.table)).toEqual({ a: [1, "a"] });
    expect(store.generation).not.toBe(generation);
  });

  it("keeps the last minBatchesToRetain versions and names what is missing", () => {
    const provider = new InMemoryStateStoreProvider({ minBatchesToRetain: 2 });
    const store = provider.load(5, -1, 2);
    store.open(schema);
    for (let v = 0; v < 4; v++) {
      bump(store.table, `k${v}`);
      store.commit(v);
    }
    expect(() => provider.load(5, 1, 2)).toThrow(CheckpointError);
    expect(() => provider.load(5, 1, 2)).toThrow(/partition 2 has no version 1 in memory \(shard 5\/2\) \(versions kept: 2, 3\)/);
    expect(Object.keys(contents(provider.load(5, 2, 2).open(schema)))).toEqual(["k0", "k1", "k2"]);
    expect(() => provider.load(5, 9, 2)).toThrow(CheckpointError);
    expect(() => new InMemoryStateStoreProvider({ minBatchesToRetain: 1 })).toThrow(/minBatchesToRetain/);
  });

  it("treats version 0 as the empty initial state until it is committed (Spark's numbering)", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, 0);
    bump(store.open(schema), "a");
    store.commit(1);
    expect(contents(provider.load(0, 0).open(schema))).toEqual({});
    expect(contents(provider.load(0, 1).open(schema))).toEqual({ a: [1, "a"] });
  });

  it("refuses a commit that does not move forward", () => {
    const store = new InMemoryStateStoreProvider().load(0, -1);
    store.open(schema);
    store.commit(3);
    expect(() => store.commit(3)).toThrow(/cannot commit version 3 on top of version 3/);
  });

  it("rejects state written with another schema, as a checkpoint of a different query", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, -1);
    store.open(schema);
    store.commit(0);
    expect(() => provider.load(0, 0).open([{ name: "other", kind: "f64" }])).toThrow(CheckpointError);
  });

  it("shares one provider per checkpoint location, so a restarted query finds its state", () => {
    const location = `/tmp/sluice-state-test-${process.pid}`;
    const a = InMemoryStateStoreProvider.forCheckpoint(location);
    const store = a.load(0, -1);
    bump(store.open(schema), "a");
    store.commit(0);
    expect(InMemoryStateStoreProvider.forCheckpoint(location).latestVersion(0)).toBe(0);
    InMemoryStateStoreProvider.forget(location);
    expect(InMemoryStateStoreProvider.forCheckpoint(location).latestVersion(0)).toBe(-1);
  });

  it("compacts removed rows at commit, renumbering slots and bumping the generation", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, -1);
    const table = store.open(schema);
    for (const k of ["a", "b", "c"]) bump(table, k);
    table.remove(table.get(key("a")));
    const generation = store.generation;
    store.commit(0);
    expect(store.generation).toBe(generation + 1);
    expect(table.slotCount).toBe(2);
    expect([table.get(key("b")), table.get(key("c"))]).toEqual([0, 1]);
    expect(contents(table)).toEqual({ b: [1, "b"], c: [1, "c"] });
  });
});
