import { describe, expect, it } from "vitest";
import { CheckpointError, OptionError } from "../errors/errors.js";
import { InMemoryStateStoreProvider } from "./in-memory-provider.js";
import type { StateTable } from "./state-table.js";
import { KIND, SCHEMA as schema, key, keyName, rowsOf } from "./test-support.js";

const utf8 = new TextEncoder();

/** Adds 1 to a key's count and sets its label. */
function bump(table: StateTable, k: string, label = k): void {
  const slot = table.put(key(k));
  table.f64(0).set(slot, table.f64(0).values[slot]! + 1);
  const bytes = utf8.encode(label);
  table.bytes(1).set(slot, bytes, 0, bytes.length);
}

const contents = rowsOf;

describe("StateTable", () => {
  it("gets, puts, removes and iterates rows by key, tracking rows updated since the last commit", () => {
    const store = new InMemoryStateStoreProvider().load(0, -1);
    const table = store.open(schema, KIND);
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

  it("lists the committed rows removed since the last commit, whose keys stay readable until it", () => {
    const store = new InMemoryStateStoreProvider().load(0, -1);
    const table = store.open(schema, KIND);
    for (const k of ["a", "b", "c"]) bump(table, k);
    store.commit(0);
    table.remove(table.get(key("a")));
    table.remove(table.get(key("c")));
    // Removed and inserted again: a removal of the committed row, and an updated new row.
    bump(table, "c", "again");
    // Inserted and removed before the commit: neither.
    bump(table, "d");
    table.remove(table.get(key("d")));
    expect(Array.from(table.removedSlots(), (s) => keyName(table, s))).toEqual(["a", "c"]);
    expect(Array.from(table.updatedSlots(), (s) => keyName(table, s))).toEqual(["c"]);
    store.commit(1);
    expect([table.removedSlots().length, table.updatedSlots().length]).toEqual([0, 0]);
    expect(contents(table)).toEqual({ b: [1, "b"], c: [1, "again"] });
  });
});

describe("StateTable: updated rows and eviction by value", () => {
  /** Puts `k` with `value` in column 0 (put marks the row updated). */
  function put(table: StateTable, k: string, value: number): void {
    table.f64(0).set(table.put(key(k)), value);
  }
  const names = (table: StateTable, slots: Int32Array) => Array.from(slots, (s) => keyName(table, s));

  it("lists each updated row once, in slot order, whatever order they were marked in", () => {
    const store = new InMemoryStateStoreProvider().load(0, -1);
    const table = store.open(schema, KIND);
    for (const k of ["c", "a", "b"]) put(table, k, 1);
    store.commit(0);
    for (const k of ["b", "c", "b"]) put(table, k, 2);
    expect(names(table, table.updatedSlots())).toEqual(["c", "b"]);
  });

  it("removes the rows at or below a value, and finds rows updated below what the last removal left", () => {
    const store = new InMemoryStateStoreProvider().load(0, -1);
    const table = store.open(schema, KIND);
    put(table, "a", 10);
    put(table, "b", 20);
    put(table, "c", 30);
    expect(table.removeAtOrBelow(0, 15)).toBe(1);
    store.commit(0);
    expect([table.slotsAtOrBelow(0, 19).length, table.removeAtOrBelow(0, 19)]).toEqual([0, 0]);
    // Below the 20 the removal left: a late row, found all the same, before and after its commit.
    put(table, "d", 5);
    expect(names(table, table.slotsAtOrBelow(0, 19))).toEqual(["d"]);
    store.commit(1);
    expect(names(table, table.slotsAtOrBelow(0, 19))).toEqual(["d"]);
    expect(table.removeAtOrBelow(0, 25)).toBe(2);
    expect(Object.keys(contents(table))).toEqual(["c"]);
  });
});

describe("StateTable.applyChangesOf", () => {
  function committed(keys: string[]): StateTable {
    const store = new InMemoryStateStoreProvider().load(0, -1);
    const table = store.open(schema, KIND);
    for (const k of keys) bump(table, k);
    store.commit(0);
    return table;
  }
  const changesOf = (t: StateTable) => ({ removed: t.removedSlots(), upserted: t.updatedSlots() });

  it("brings a copy of the last commit to the table's rows, by slot where the slots agree and by key where not", () => {
    for (const copyOrder of [["a", "b", "c"], ["c", "b", "a"]]) {
      const source = committed(["a", "b", "c"]);
      const copy = committed(copyOrder);
      bump(source, "b", "a longer label for b");
      source.remove(source.get(key("a")));
      bump(source, "d");
      source.remove(source.get(key("c")));
      bump(source, "c", "again");
      copy.applyChangesOf(source, changesOf(source));
      expect(contents(copy)).toEqual(contents(source));
      expect(contents(copy)).toEqual({ b: [2, "a longer label for b"], c: [1, "again"], d: [1, "d"] });
      expect([copy.updatedSlots().length, copy.removedSlots().length]).toEqual([0, 0]);
    }
  });
});

describe("InMemoryStateStoreProvider", () => {
  it("loads committed versions; re-running batch N from N - 1 does not see N's work", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(1, -1);
    const t = store.open(schema, KIND);
    bump(t, "a");
    store.commit(0);
    bump(store.table, "a");
    bump(store.table, "b");
    store.commit(1);
    expect(provider.latestVersion(1)).toBe(1);
    expect(contents(provider.load(1, 0).open(schema, KIND))).toEqual({ a: [1, "a"] });
    expect(contents(provider.load(1, 1).open(schema, KIND))).toEqual({ a: [2, "a"], b: [1, "b"] });
    // Re-run batch 1: load 0, redo the work, commit 1 again (replacing the old version 1).
    const rerun = provider.load(1, 0);
    bump(rerun.open(schema, KIND), "c");
    rerun.commit(1);
    expect(contents(provider.load(1, 1).open(schema, KIND))).toEqual({ a: [1, "a"], c: [1, "c"] });
  });

  it("keeps committed versions independent of the working copy and of each other", () => {
    const provider = new InMemoryStateStoreProvider({ minBatchesToRetain: 3 });
    const store = provider.load(0, -1);
    bump(store.open(schema, KIND), "a");
    store.commit(0);
    bump(store.table, "a", "changed");
    expect(contents(provider.load(0, 0).open(schema, KIND))).toEqual({ a: [1, "a"] });
  });

  it("abort() throws the uncommitted work away", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, -1);
    bump(store.open(schema, KIND), "a");
    store.commit(0);
    bump(store.table, "b");
    const generation = store.generation;
    store.abort();
    expect(contents(store.table)).toEqual({ a: [1, "a"] });
    expect(store.generation).not.toBe(generation);
  });

  it("keeps the latest version and the minBatchesToRetain before it, and names what is missing", () => {
    const provider = new InMemoryStateStoreProvider({ minBatchesToRetain: 1 });
    const store = provider.load(5, -1, 2);
    store.open(schema, KIND);
    for (let v = 0; v < 4; v++) {
      bump(store.table, `k${v}`);
      store.commit(v);
    }
    expect(() => provider.load(5, 1, 2)).toThrow(CheckpointError);
    expect(() => provider.load(5, 1, 2)).toThrow(/partition 2 has no version 1 in memory \(shard 5\/2\) \(versions kept: 2, 3\)/);
    expect(Object.keys(contents(provider.load(5, 2, 2).open(schema, KIND)))).toEqual(["k0", "k1", "k2"]);
    expect(() => provider.load(5, 9, 2)).toThrow(CheckpointError);
    expect(() => new InMemoryStateStoreProvider({ minBatchesToRetain: 0 })).toThrow(OptionError);
    expect(() => new InMemoryStateStoreProvider({ minBatchesToRetain: 0 })).toThrow(
      'InMemoryStateStoreProvider: option "minBatchesToRetain": minBatchesToRetain must be at least 1 (a batch re-runs from the version before it) (got 0)',
    );
  });

  it("treats version 0 as the empty initial state until it is committed (Spark's numbering)", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, 0);
    bump(store.open(schema, KIND), "a");
    store.commit(1);
    expect(contents(provider.load(0, 0).open(schema, KIND))).toEqual({});
    expect(contents(provider.load(0, 1).open(schema, KIND))).toEqual({ a: [1, "a"] });
  });

  it("refuses a commit that does not move forward", () => {
    const store = new InMemoryStateStoreProvider().load(0, -1);
    store.open(schema, KIND);
    store.commit(3);
    expect(() => store.commit(3)).toThrow(/cannot commit version 3 on top of version 3/);
  });

  it("rejects state written with another schema, as a checkpoint of a different query", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, -1);
    store.open(schema, KIND);
    store.commit(0);
    expect(() => provider.load(0, 0).open([{ name: "other", kind: "f64" }], KIND)).toThrow(CheckpointError);
    expect(() => provider.load(0, 0).open([{ name: "other", kind: "f64" }], KIND)).toThrow(
      'version 0 in memory (shard 0/0) holds state of operator "stateStoreSave" with value columns [count: f64, label: bytes], ' +
        'but this query needs state of operator "stateStoreSave" with value columns [other: f64]: the checkpoint belongs to a different query; use a new checkpointLocation',
    );
  });

  it("rejects state written by another kind of operator", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, -1);
    store.open(schema, "dedupe");
    store.commit(0);
    expect(() => provider.load(0, 0).open(schema, KIND)).toThrow(/holds state of operator "dedupe" .* needs state of operator "stateStoreSave"/);
  });

  it("shares one provider per checkpoint location, so a restarted query finds its state", () => {
    const location = `/tmp/sluice-state-test-${process.pid}`;
    const a = InMemoryStateStoreProvider.forCheckpoint(location);
    const store = a.load(0, -1);
    bump(store.open(schema, KIND), "a");
    store.commit(0);
    expect(InMemoryStateStoreProvider.forCheckpoint(location).latestVersion(0)).toBe(0);
    InMemoryStateStoreProvider.forget(location);
    expect(InMemoryStateStoreProvider.forCheckpoint(location).latestVersion(0)).toBe(-1);
  });

  it("compacts removed rows at commit, renumbering slots and bumping the generation", () => {
    const provider = new InMemoryStateStoreProvider();
    const store = provider.load(0, -1);
    const table = store.open(schema, KIND);
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
