import { describe, expect, it } from "vitest";
import { field, int32Column, makeBatch, utf8FromStrings, validityFromBytes } from "../batch/batch.js";
import { rowsToBatch } from "../batch/rows.js";
import { partitionForKey } from "../sources/kafka/murmur2.js";
import { encodeRecordRows } from "../sources/kafka/record-batch/encode-rows.js";
import { planBatches, readSinkColumns, rowTopics, type StickyPartition, type TopicLayout } from "./kafka-sink-plan.js";

const utf8 = new TextEncoder();

function layout(name: string, numPartitions: number): TopicLayout {
  return { name, numPartitions, available: Array.from({ length: numPartitions }, (_, p) => p) };
}

function stickies(): (t: string) => StickyPartition {
  const m = new Map<string, StickyPartition>();
  return (t) => m.get(t) ?? m.set(t, { partition: -1, bytes: 0, count: 0, turn: 0 }).get(t)!;
}

function nullableInt32(values: (number | null)[]) {
  const { bitmap, nullCount } = validityFromBytes(Uint8Array.from(values, (v) => (v === null ? 0 : 1)), values.length);
  return int32Column(Int32Array.from(values, (v) => v ?? 0), bitmap, nullCount);
}

/** Rows per planned batch, as [topic, partition, row indices]. */
function shape(batches: ReturnType<typeof planBatches>) {
  return batches.map((b) => [b.topic, b.partition, Array.from(b.rows.subarray(b.from, b.to))]);
}

describe("Kafka sink batch planning", () => {
  it("explicit partition first, then the key's murmur2 partition; rows keep their order within a partition", () => {
    const keys = ["a", "21", "foobar", null, "a", "21"];
    const batch = makeBatch(
      [field("value", "string"), field("key", "string"), field("partition", "int32")],
      [utf8FromStrings(keys.map((_, i) => `v${i}`)), utf8FromStrings(keys), nullableInt32([null, null, null, 2, 0, null])],
    );
    const c = readSinkColumns(batch);
    const { names, rowTopic } = rowTopics(c, "t");
    const got = shape(planBatches(c, rowTopic, [layout("t", 3)], stickies(), 1_000_000));
    const hash = (k: string) => partitionForKey(utf8.encode(k), 0, utf8.encode(k).length, 3);
    const expected = new Map<number, number[]>();
    [hash("a"), hash("21"), hash("foobar"), 2, 0, hash("21")].forEach((p, row) => expected.set(p, [...(expected.get(p) ?? []), row]));
    expect(names).toEqual(["t"]);
    expect(got).toEqual([...expected].sort((x, y) => x[0] - y[0]).map(([p, rows]) => ["t", p, rows]));
  });

  it("keyless rows stick to one partition for a full record batch, then move to the next", () => {
    const n = 30;
    const batch = makeBatch([field("value", "string")], [utf8FromStrings(Array.from({ length: n }, () => "x".repeat(90)))]);
    const c = readSinkColumns(batch);
    const sticky = stickies();
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
    // Records take 96 bytes and a batch header 61: 9 records fill a 1000-byte batch, one batch per run.
    expect(shape(planBatches(c, null, [layout("t", 4)], sticky, 1000))).toEqual([
      ["t", 0, range(0, 9)],
      ["t", 1, range(9, 18)],
      ["t", 2, range(18, 27)],
      ["t", 3, range(27, 30)],
    ]);
    // The next batch goes on filling partition 3's run, then round the partitions again.
    expect(shape(planBatches(c, null, [layout("t", 4)], sticky, 1000))).toEqual([
      ["t", 0, range(6, 15)],
      ["t", 1, range(15, 24)],
      ["t", 2, range(24, 30)],
      ["t", 3, range(0, 6)],
    ]);
  });

  it("cuts a partition's rows into batches no larger than maxBatchBytes, which is each batch's encoded size", () => {
    const values = Array.from({ length: 500 }, (_, i) => `value-${i}-${"y".repeat(i % 50)}`);
    const c = readSinkColumns(makeBatch([field("value", "string")], [utf8FromStrings(values)]));
    const batches = planBatches(c, null, [layout("t", 1)], stickies(), 2000);
    expect(batches.length).toBeGreaterThan(10);
    expect(batches.flatMap((b) => Array.from(b.rows.subarray(b.from, b.to)))).toEqual(values.map((_, i) => i));
    for (const b of batches) {
      const bytes = encodeRecordRows({ rows: b.rows, from: b.from, to: b.to, values: c.value, keys: null, headers: null, timestamp: 0 });
      expect(bytes.length).toBe(b.size);
      expect(b.size).toBeLessThanOrEqual(2000);
    }
  });

  it("per-row topics, a null topic falling back to the topic option", () => {
    const batch = makeBatch(
      [field("value", "string"), field("topic", "string"), field("partition", "int32")],
      [utf8FromStrings(["1", "2", "3", "4", "5"]), utf8FromStrings(["b", "a", "b", null, "a"]), int32Column(Int32Array.of(0, 1, 1, 0, 1))],
    );
    const c = readSinkColumns(batch);
    const { names, rowTopic } = rowTopics(c, "fallback");
    expect(names).toEqual(["b", "a", "fallback"]);
    expect(shape(planBatches(c, rowTopic, [layout("b", 2), layout("a", 2), layout("fallback", 1)], stickies(), 1_000_000))).toEqual([
      ["b", 0, [0]],
      ["b", 1, [2]],
      ["a", 1, [1, 4]],
      ["fallback", 0, [3]],
    ]);
    expect(() => rowTopics(c, null)).toThrow("row 3 of the batch has a null topic and the sink has no topic option");
  });

  it("a partition the topic does not have is an error naming row, partition and topic", () => {
    const batch = makeBatch([field("value", "string"), field("partition", "int32")], [utf8FromStrings(["a", "b"]), int32Column(Int32Array.of(0, 3))]);
    const c = readSinkColumns(batch);
    expect(() => planBatches(c, null, [layout("t", 3)], stickies(), 1_000_000)).toThrow('row 1: partition 3 is not a partition of topic "t", which has partitions 0 to 2');
  });

  it("headers: a headers column becomes each row's header section byte for byte, and JSON text the same section", () => {
    const fields = [field("value", "string"), field("headers", "headers")];
    const rows = [
      { value: "a", headers: [{ key: "trace", value: Uint8Array.of(0xff, 0x00) }, { key: "trace", value: null }] },
      { value: "b", headers: [] },
      { value: "c", headers: null },
    ];
    const sections = readSinkColumns(rowsToBatch(rows, fields)).headers!;
    // count 2 (zigzag 4); key "trace" (length 5: 10); value ff 00 (length 2: 4); key "trace"; no value (-1: 1).
    const trace = [0x74, 0x72, 0x61, 0x63, 0x65];
    expect(sections).toEqual([Uint8Array.of(4, 10, ...trace, 4, 0xff, 0x00, 10, ...trace, 1), null, null]);
    const json = makeBatch([field("value", "string"), field("headers", "string")], [utf8FromStrings(["a"]), utf8FromStrings(['[{"key":"trace","value":"v"},{"key":"trace","value":null}]'])]);
    expect(readSinkColumns(json).headers).toEqual([Uint8Array.of(4, 10, ...trace, 2, 0x76, 10, ...trace, 1)]);
  });

  it("headers: bad JSON and keyless headers are errors naming the row", () => {
    const batch = (h: string) => makeBatch([field("value", "string"), field("headers", "string")], [utf8FromStrings(["a", "b"]), utf8FromStrings([null, h])]);
    expect(() => readSinkColumns(batch("nope"))).toThrow('row 1: headers must be JSON such as [{"key":"k","value":"v"}], got nope');
    expect(() => readSinkColumns(batch('[{"value":"v"}]'))).toThrow('row 1: every header needs a string "key", got {"value":"v"}');
  });
});
