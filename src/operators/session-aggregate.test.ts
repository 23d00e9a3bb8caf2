import { describe, expect, it } from "vitest";
import { InMemoryStateStoreProvider } from "../state/in-memory-provider.js";
import { aggregateRunner, aggregateSpec, batchOf, field } from "./test-support.js";

/** count, sum and first / last page per user session, gap 10 ms; the window key after the user. */
const spec = aggregateSpec({
  keys: [field("user", "string")],
  window: { kind: "session", gapMs: 10 },
  windowKeyIndex: 1,
  aggs: [
    { fn: "count", input: -1, name: "n" },
    { fn: "first", input: 2, name: "entry", type: "string" },
    { fn: "last", input: 2, name: "exit", type: "string" },
  ],
  eventTimeKey: "window",
});
const clicks = (rows: [string, number, string][]) =>
  batchOf(
    [field("user", "string"), field("t", "timestamp"), field("page", "string")],
    rows.map(([user, t, page]) => ({ user, t, page })),
  );
const session = (user: string, start: number, end: number, n: number, entry: string, exit: string) => ({ user, window: [start, end], n, entry, exit });

describe("session window aggregation", () => {
  it("merges two sessions of a key into one when a bridging row arrives", () => {
    const run = aggregateRunner(spec, "update");
    const b0 = run.batch([clicks([["u", 0, "home"], ["u", 15, "cart"], ["v", 3, "home"]])], null);
    expect(b0.rows).toEqual([session("u", 0, 10, 1, "home", "home"), session("u", 15, 25, 1, "cart", "cart"), session("v", 3, 13, 1, "home", "home")]);
    expect(b0.metrics.operatorName).toBe("sessionWindowStateStoreSave");
    // t = 8: [8, 18) overlaps [0, 10) and [15, 25): one session [0, 25), first / last in time order.
    const b1 = run.batch([clicks([["u", 8, "search"]])], null);
    expect(b1.rows).toEqual([session("u", 0, 25, 3, "home", "cart")]);
    expect([b1.metrics.numRowsTotal, b1.metrics.numRowsUpdated]).toEqual([2, 1]);
  });

  it("merges sessions that only touch, and partials of one batch that bridge each other", () => {
    const run = aggregateRunner(spec, "complete");
    run.batch([clicks([["u", 0, "a"]])], null);
    // [10, 20) touches [0, 10); the second split's [20, 30) touches [10, 20).
    const out = run.batch([clicks([["u", 10, "b"]]), clicks([["u", 20, "c"]])], null);
    expect(out.rows).toEqual([session("u", 0, 30, 3, "a", "c")]);
  });

  it("leaves a session apart when the new row is more than the gap away", () => {
    const run = aggregateRunner(spec, "complete");
    run.batch([clicks([["u", 0, "a"]])], null);
    expect(run.batch([clicks([["u", 11, "b"]])], null).rows).toEqual([session("u", 0, 10, 1, "a", "a"), session("u", 11, 21, 1, "b", "b")]);
  });

  it("emits a session in append mode once, when its end reaches the watermark", () => {
    const run = aggregateRunner(spec, "append");
    expect(run.batch([clicks([["u", 0, "a"], ["u", 5, "b"], ["v", 20, "x"]])], null).rows).toEqual([]);
    // The watermark 14 does not close [0, 15) yet; the new row extends it to [0, 22).
    expect(run.batch([clicks([["u", 12, "c"]])], 14).rows).toEqual([]);
    const closing = run.batch([], 25);
    expect(closing.rows).toEqual([session("u", 0, 22, 3, "a", "c")]);
    expect([closing.metrics.numRowsRemoved, closing.metrics.numRowsTotal]).toEqual([1, 1]);
    // A row whose own session would already be closed is late; u's later activity starts afresh.
    const late = run.batch([clicks([["u", 14, "late"], ["u", 40, "d"]])], 25);
    expect([late.workerDropped, late.rows.length]).toEqual([1, 0]);
    expect(run.batch([], 60).rows).toEqual([session("u", 40, 50, 1, "d", "d"), session("v", 20, 30, 1, "x", "x")]);
  });

  it("finds a key's sessions again after a restart from the committed state", () => {
    const provider = new InMemoryStateStoreProvider();
    const first = aggregateRunner(spec, "update", provider.load(3, -1));
    first.batch([clicks([["u", 0, "a"], ["u", 30, "c"]])], null);
    const restarted = aggregateRunner(spec, "update", provider.load(3, 0));
    expect(restarted.batch([clicks([["u", 10, "b"], ["u", 20, "b2"]])], null).rows).toEqual([session("u", 0, 40, 4, "a", "c")]);
  });
});
