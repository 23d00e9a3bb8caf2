import { serialize } from "node:v8";
import { describe, expect, it } from "vitest";
import { ProcessorState, type ProcessorRowStore } from "./processor-state.js";

/** Rows in a Map, as a task carries them. */
function rowStore(): ProcessorRowStore & { readonly rows: Map<string, Uint8Array> } {
  const rows = new Map<string, Uint8Array>();
  return {
    rows,
    read: (name, key) => rows.get(`${name}|${key}`),
    write: (name, key, bytes) => (bytes === null ? rows.delete(`${name}|${key}`) : rows.set(`${name}|${key}`, bytes)),
  };
}

const NOW = 1_000;

describe("ProcessorState rows", () => {
  it("state values come back as they were stored, JSON data and structured clones alike", () => {
    const store = rowStore();
    const values: unknown[] = [
      42,
      "text",
      { nested: [1, "two", null, { three: true }] },
      new Date(Date.UTC(2026, 0, 2)),
      12345678901234567890n,
      new Map([["a", 1]]),
      new Uint8Array([1, 2, 3]),
      -0,
      Number.NaN,
      [1, , 3],
    ];
    const write = new ProcessorState(store, NOW);
    write.withKey("k", ["k"], () => values.forEach((v, i) => write.valueState(`v${i}`, null).update(v)));
    const read = new ProcessorState(store, NOW);
    const back = read.withKey("k", ["k"], () => values.map((_, i) => read.valueState(`v${i}`, null).get()));
    expect(back).toEqual(values);
    expect(Object.is(back[7], -0)).toBe(true);
    // JSON data is stored as JSON text; the rest as V8's structured clone (its version tag first).
    expect(new TextDecoder().decode(store.rows.get("v0|k"))).toBe('{"k":"value","e":[42,null]}');
    expect(store.rows.get("v3|k")![0]).toBe(0xff);
  });

  it("rows stored as structured clones (by earlier versions) read back", () => {
    const store = rowStore();
    store.write("count", "k", serialize({ k: "value", e: [7, null] }), null, null);
    store.write("#timers", "k", serialize({ k: "timers", t: [5, 9] }), null, 5);
    const state = new ProcessorState(store, NOW);
    expect(state.withKey("k", ["k"], () => [state.valueState("count", null).get(), state.listTimers()])).toEqual([7, [5, 9]]);
  });

  it("a value's TTL is judged by the batch's time: expired values read as absent and are removed", () => {
    const store = rowStore();
    const first = new ProcessorState(store, NOW);
    first.withKey("k", ["k"], () => first.listState("seen", 100).appendList([1, 2]));
    const later = new ProcessorState(store, NOW + 100);
    expect(later.withKey("k", ["k"], () => later.listState("seen", 100).get())).toEqual([]);
    expect(later.withKey("k", ["k"], () => later.removeExpired("seen"))).toBe(2);
    expect(store.rows.has("seen|k")).toBe(false);
    expect(later.counters.numValuesRemovedDueToTTLExpiry).toBe(2);
  });
});
