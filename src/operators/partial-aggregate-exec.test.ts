import { describe, expect, it } from "vitest";
import { partialFields } from "./aggregate-layout.js";
import { partialAggregate } from "./partial-aggregate-exec.js";
import { aggregateSpec, batchOf, field, plainRows } from "./test-support.js";

const valueFields = [field("k", "string"), field("v", "float64"), field("s", "string")];
const valueRows = [
  { k: "a", v: 1, s: "x" },
  { k: "b", v: null, s: null },
  { k: "a", v: 3, s: null },
  { k: "a", v: null, s: "w" },
  { k: null, v: 5, s: "z" },
  { k: "b", v: null, s: null },
];

describe("partialAggregate", () => {
  it("keeps each aggregate's accumulators per group, nulls ignored where Spark ignores them", () => {
    const spec = aggregateSpec({
      keys: [field("k", "string")],
      aggs: [
        { fn: "count", input: -1, name: "n" },
        { fn: "count", input: 1, name: "nv" },
        { fn: "sum", input: 1, name: "sum" },
        { fn: "avg", input: 1, name: "avg" },
        { fn: "min", input: 2, name: "min", type: "string" },
        { fn: "max", input: 1, name: "max" },
        { fn: "first", input: 1, name: "first" },
        { fn: "last", input: 2, name: "last", type: "string" },
      ],
    });
    const { batch, numRowsDroppedByWatermark } = partialAggregate(batchOf(valueFields, valueRows), spec, null);
    expect(numRowsDroppedByWatermark).toBe(0);
    expect(batch.fields).toEqual(partialFields(spec));
    expect(batch.fields.map((f) => f.name)).toEqual([
      "k",
      "#rows",
      "n#count",
      "nv#count",
      "sum#sum",
      "sum#count",
      "avg#sum",
      "avg#count",
      "min#value",
      "max#value",
      "first#value",
      "last#value",
    ]);
    // Groups in order of first appearance; null is a key of its own.
    expect(plainRows(batch)).toEqual([
      { k: "a", "#rows": 3, "n#count": 3, "nv#count": 2, "sum#sum": 4, "sum#count": 2, "avg#sum": 4, "avg#count": 2, "min#value": "w", "max#value": 3, "first#value": 1, "last#value": "w" },
      { k: "b", "#rows": 2, "n#count": 2, "nv#count": 0, "sum#sum": 0, "sum#count": 0, "avg#sum": 0, "avg#count": 0, "min#value": null, "max#value": null, "first#value": null, "last#value": null },
      { k: null, "#rows": 1, "n#count": 1, "nv#count": 1, "sum#sum": 5, "sum#count": 1, "avg#sum": 5, "avg#count": 1, "min#value": "z", "max#value": 5, "first#value": 5, "last#value": "z" },
    ]);
  });

  it("assigns tumbling windows, drops windows ending at or before the watermark and counts them", () => {
    const spec = aggregateSpec({
      keys: [field("k", "string")],
      window: { kind: "tumbling", sizeMs: 10 },
      aggs: [{ fn: "sum", input: 2, name: "total", type: "int32" }],
      eventTimeKey: "window",
    });
    const input = batchOf(
      [field("k", "string"), field("t", "timestamp"), field("x", "int32")],
      [
        { k: "a", t: 12, x: 1 },
        { k: "a", t: 5, x: 2 }, // window [0, 10): end 10 <= watermark 10, late
        { k: "a", t: 18, x: 3 },
        { k: "b", t: 21, x: 4 },
        { k: "b", t: null, x: 5 }, // no time, no window
      ],
    );
    const { batch, numRowsDroppedByWatermark } = partialAggregate(input, spec, 10);
    expect(numRowsDroppedByWatermark).toBe(1);
    expect(plainRows(batch)).toEqual([
      { window: [10, 20], k: "a", "#rows": 2, "total#sum": 4, "total#count": 2 },
      { window: [20, 30], k: "b", "#rows": 1, "total#sum": 4, "total#count": 1 },
    ]);
  });

  it("counts each late (row, window) pair of sliding windows, keeping the row's later windows", () => {
    const spec = aggregateSpec({
      keys: [],
      window: { kind: "sliding", sizeMs: 10, slideMs: 5 },
      aggs: [{ fn: "count", input: -1, name: "n" }],
      eventTimeKey: "window",
    });
    // t = 7 is in [0, 10) (late at watermark 10) and [5, 15); t = 12 in [5, 15) and [10, 20).
    const input = batchOf([field("t", "timestamp")], [{ t: 7 }, { t: 12 }]);
    const { batch, numRowsDroppedByWatermark } = partialAggregate(input, spec, 10);
    expect(numRowsDroppedByWatermark).toBe(1);
    expect(plainRows(batch)).toEqual([
      { window: [5, 15], "#rows": 2, "n#count": 2 },
      { window: [10, 20], "#rows": 1, "n#count": 1 },
    ]);
  });

  it("drops rows whose timestamp key is at or before the watermark, and nothing without an event-time key", () => {
    const input = batchOf(
      [field("t", "timestamp"), field("x", "float64")],
      [
        { t: 100, x: 1 },
        { t: 101, x: 2 },
        { t: null, x: 3 },
      ],
    );
    const keyed = { keys: [field("t", "timestamp")], aggs: [{ fn: "count" as const, input: -1, name: "n" }] };
    const late = partialAggregate(input, aggregateSpec({ ...keyed, eventTimeKey: "t" }), 100);
    expect(late.numRowsDroppedByWatermark).toBe(1);
    expect(plainRows(late.batch).map((r) => r.t)).toEqual([101, null]);
    const kept = partialAggregate(input, aggregateSpec(keyed), 100);
    expect(kept.numRowsDroppedByWatermark).toBe(0);
    expect(kept.batch.numRows).toBe(3);
  });

  it("merges a key's rows into sessions within the split, first / last in event-time order", () => {
    const spec = aggregateSpec({
      keys: [field("user", "string")],
      window: { kind: "session", gapMs: 10 },
      windowKeyIndex: 1,
      aggs: [
        { fn: "count", input: -1, name: "n" },
        { fn: "first", input: 2, name: "first", type: "string" },
        { fn: "last", input: 2, name: "last", type: "string" },
      ],
      eventTimeKey: "window",
    });
    const input = batchOf(
      [field("user", "string"), field("t", "timestamp"), field("page", "string")],
      [
        { user: "u1", t: 15, page: "c" },
        { user: "u1", t: 5, page: "b" },
        { user: "u2", t: 1, page: "x" },
        { user: "u1", t: 0, page: "a" },
        { user: "u1", t: 40, page: "d" }, // more than the gap after 25: a new session
        { user: "u1", t: -20, page: "late" }, // session end -10 <= watermark -5
      ],
    );
    const { batch, numRowsDroppedByWatermark } = partialAggregate(input, spec, -5);
    expect(numRowsDroppedByWatermark).toBe(1);
    expect(plainRows(batch)).toEqual([
      { user: "u1", window: [0, 25], "#rows": 3, "n#count": 3, "first#value": "a", "last#value": "c" },
      { user: "u1", window: [40, 50], "#rows": 1, "n#count": 1, "first#value": "d", "last#value": "d" },
      { user: "u2", window: [1, 11], "#rows": 1, "n#count": 1, "first#value": "x", "last#value": "x" },
    ]);
  });

  it("returns an empty partial batch with the partial layout when every row is dropped", () => {
    const spec = aggregateSpec({ keys: [], window: { kind: "tumbling", sizeMs: 10 }, aggs: [{ fn: "max", input: 1, name: "m", type: "int64" }], eventTimeKey: "window" });
    const input = batchOf([field("t", "timestamp"), field("x", "int64")], [{ t: 1, x: 1 }]);
    const { batch, numRowsDroppedByWatermark } = partialAggregate(input, spec, 50);
    expect([batch.numRows, numRowsDroppedByWatermark]).toEqual([0, 1]);
    expect(batch.fields).toEqual(partialFields(spec));
  });
});
