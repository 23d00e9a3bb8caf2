import { describe, expect, it } from "vitest";
import { column } from "../../../batch/batch.js";
import { SluiceError } from "../../../errors/errors.js";
import { crc32c } from "./crc32c.js";
import { encodeRecordBatch, type KafkaRecordInput } from "./encode.js";
import { BATCH } from "./layout.js";
import { concatBytes, decode } from "./test-support.js";

const T0 = 1714521600000;
const utf8 = new TextEncoder();

function batchOf(baseOffset: number, values: (string | null)[], extra: Partial<KafkaRecordInput> = {}): Uint8Array {
  return encodeRecordBatch(
    values.map((value, i) => ({ key: null, value, timestamp: T0 + baseOffset + i, ...extra })),
    { baseOffset },
  );
}

describe("decodeRecordBatches: columns", () => {
  it("decodes every column, telling null from empty keys and values", () => {
    const bytes = encodeRecordBatch(
      [
        { key: "user-1", value: '{"n":1}', timestamp: T0 },
        { key: null, value: "", timestamp: T0 + 5 },
        { key: "", value: null, timestamp: T0 - 2 },
        { key: "ключ", value: "värde ✓", timestamp: T0 + 86_400_000 * 40 },
      ],
      { baseOffset: 1000 },
    );
    const result = decode(bytes);
    expect(result.batch.fields.map((f) => `${f.name}:${f.type}:${f.nullable}`)).toEqual([
      "key:binary:true",
      "value:binary:true",
      "topic:string:false",
      "partition:int32:false",
      "offset:int64:false",
      "timestamp:timestamp:false",
      "timestampType:int32:false",
    ]);
    expect(result.rows).toEqual([
      { key: "user-1", value: '{"n":1}', topic: "events", partition: 2, offset: 1000, timestamp: T0, timestampType: 0 },
      { key: null, value: "", topic: "events", partition: 2, offset: 1001, timestamp: T0 + 5, timestampType: 0 },
      { key: "", value: null, topic: "events", partition: 2, offset: 1002, timestamp: T0 - 2, timestampType: 0 },
      { key: "ключ", value: "värde ✓", topic: "events", partition: 2, offset: 1003, timestamp: T0 + 3_456_000_000, timestampType: 0 },
    ]);
    // offset and timestamp are written as int64 word pairs straight into Int64 and Timestamp(ms) columns.
    expect(result.batch.columns.map((c) => String(c.type))).toEqual(["Binary", "Binary", "Utf8", "Int32", "Int64", "Timestamp<MILLISECOND>", "Int32"]);
    expect(column(result.batch, "key").nullCount).toBe(1);
    expect(column(result.batch, "value").nullCount).toBe(1);
    expect(result).toMatchObject({ nextOffset: 1004, reachedEndOffset: false, lastBatchTruncated: false, truncatedBatchSize: 0, batchesRead: 1 });
  });

  it("gives LogAppendTime records the broker's append time and timestampType 1", () => {
    const bytes = encodeRecordBatch(
      [
        { key: null, value: "a", timestamp: T0 },
        { key: null, value: "b", timestamp: T0 + 7 },
      ],
      { baseOffset: 5, timestampType: "LogAppendTime", logAppendTime: T0 + 999 },
    );
    expect(decode(bytes).rows.map((r) => [r.timestamp, r.timestampType])).toEqual([
      [T0 + 999, 1],
      [T0 + 999, 1],
    ]);
  });

  it("reads offsets and timestamps beyond 32 bits exactly", () => {
    const base = 2 ** 40 + 17;
    const bytes = encodeRecordBatch([{ key: null, value: "x", timestamp: 2 ** 45 + 3 }], { baseOffset: base });
    expect(decode(bytes).rows[0]).toMatchObject({ offset: base, timestamp: 2 ** 45 + 3 });
    expect(decode(bytes).nextOffset).toBe(base + 1);
  });

  it("returns an empty batch and the start offset for no bytes", () => {
    const result = decode(new Uint8Array(0), { startOffset: 42 });
    expect(result.rows).toEqual([]);
    expect(result).toMatchObject({ nextOffset: 42, lastBatchTruncated: false, batchesRead: 0 });
  });
});

describe("decodeRecordBatches: offset ranges", () => {
  const bytes = concatBytes(batchOf(100, ["a", "b", "c", "d", "e"]), batchOf(105, ["f", "g", "h", "i", "j"]));

  it("drops records before startOffset and at or after endOffset", () => {
    const result = decode(bytes, { startOffset: 103, endOffset: 107 });
    expect(result.rows.map((r) => [r.offset, r.value])).toEqual([
      [103, "d"],
      [104, "e"],
      [105, "f"],
      [106, "g"],
    ]);
    expect(result).toMatchObject({ nextOffset: 107, reachedEndOffset: true });
  });

  it("stops at a batch that starts at endOffset without reading it", () => {
    const result = decode(bytes, { startOffset: 100, endOffset: 105 });
    expect(result.rows.map((r) => r.value)).toEqual(["a", "b", "c", "d", "e"]);
    expect(result).toMatchObject({ nextOffset: 105, reachedEndOffset: true, batchesRead: 1 });
  });

  it("skips a whole batch before startOffset but moves past it", () => {
    const result = decode(bytes, { startOffset: 106 });
    expect(result.rows.map((r) => r.offset)).toEqual([106, 107, 108, 109]);
    expect(result).toMatchObject({ nextOffset: 110, reachedEndOffset: false, batchesRead: 2 });
  });

  it("follows offset gaps left by compaction: offsets are base + delta, never a count", () => {
    const compacted = encodeRecordBatch(
      [
        { key: "k1", value: "v50", timestamp: T0, offsetDelta: 0 },
        { key: "k2", value: "v53", timestamp: T0, offsetDelta: 3 },
        { key: "k3", value: "v54", timestamp: T0, offsetDelta: 4 },
        { key: "k4", value: "v59", timestamp: T0, offsetDelta: 9 },
      ],
      // The batch's last record (delta 12) was compacted away; lastOffsetDelta keeps it.
      { baseOffset: 50, lastOffsetDelta: 12 },
    );
    const next = batchOf(70, ["v70"]);
    const result = decode(concatBytes(compacted, next), { startOffset: 51 });
    expect(result.rows.map((r) => [r.offset, r.value])).toEqual([
      [53, "v53"],
      [54, "v54"],
      [59, "v59"],
      [70, "v70"],
    ]);
    expect(result.nextOffset).toBe(71);
    expect(decode(compacted, { startOffset: 51 }).nextOffset).toBe(63);
    expect(decode(compacted, { startOffset: 51, endOffset: 59 }).rows.map((r) => r.offset)).toEqual([53, 54]);
  });
});

describe("decodeRecordBatches: control batches and truncation", () => {
  it("never returns transaction markers as records, under either isolation level", () => {
    const producer = { producerId: 7n, producerEpoch: 0 };
    const bytes = concatBytes(
      encodeRecordBatch([{ key: null, value: "t1", timestamp: T0 }], { baseOffset: 0, transactional: producer }),
      encodeRecordBatch([], { baseOffset: 1, transactional: producer, control: "commit", controlTimestamp: T0 }),
      batchOf(2, ["plain"]),
    );
    for (const isolation of ["read_committed", "read_uncommitted"] as const) {
      const result = decode(bytes, { isolation });
      expect(result.rows.map((r) => [r.offset, r.value])).toEqual([
        [0, "t1"],
        [2, "plain"],
      ]);
      expect(result).toMatchObject({ controlBatchesSkipped: 1, batchesRead: 3, nextOffset: 3 });
    }
  });

  it("stops cleanly at a batch cut off mid-way and says where to fetch next", () => {
    const first = batchOf(10, ["a", "b"]);
    const second = batchOf(12, ["c", "d", "e"]);
    const cut = concatBytes(first, second.subarray(0, second.length - 4));
    const result = decode(cut);
    expect(result.rows.map((r) => r.value)).toEqual(["a", "b"]);
    expect(result).toMatchObject({ nextOffset: 12, lastBatchTruncated: true, truncatedBatchSize: second.length, reachedEndOffset: false });
  });

  it("reports a cut inside the length field with no size, and a lone partial batch with no progress", () => {
    const first = batchOf(10, ["a"]);
    const second = batchOf(11, ["b"]);
    expect(decode(concatBytes(first, second.subarray(0, 9)))).toMatchObject({ nextOffset: 11, lastBatchTruncated: true, truncatedBatchSize: 0 });
    const lone = decode(second.subarray(0, 30), { startOffset: 11 });
    expect(lone.rows).toEqual([]);
    expect(lone).toMatchObject({ nextOffset: 11, lastBatchTruncated: true, truncatedBatchSize: second.length });
  });
});

describe("decodeRecordBatches: corrupt input", () => {
  it("names topic, partition and offset when a CRC-32C check fails", () => {
    const bytes = batchOf(4242, ["hello"]);
    bytes[bytes.length - 3] ^= 0x20; // upper-cases the second "l" of "hello" (the record ends with a 0 header count)
    const stored = new DataView(bytes.buffer).getUint32(BATCH.CRC).toString(16).padStart(8, "0");
    const computed = crc32c(bytes, BATCH.ATTRIBUTES).toString(16).padStart(8, "0");
    expect(() => decode(bytes)).toThrow(SluiceError);
    expect(() => decode(bytes)).toThrow(
      `Kafka topic "events" partition 2: the record batch at offset 4242 failed its CRC-32C check (stored 0x${stored}, computed 0x${computed}): ` +
        "the fetched bytes are corrupt. Sluice stops rather than read them; a retried fetch clears a transport fault, " +
        "a repeated mismatch means a damaged log segment on the broker.",
    );
    expect(decode(bytes, { verifyCrc: false }).rows[0]!.value).toBe("helLo");
  });

  it("rejects message formats other than v2", () => {
    const bytes = batchOf(9, ["x"]);
    bytes[BATCH.MAGIC] = 1;
    expect(() => decode(bytes)).toThrow(
      'Kafka topic "events" partition 2: the record batch at offset 9 uses message format v1; Sluice reads only format v2 (magic 2), what Kafka has written since 0.11 and the only format Kafka 4 serves',
    );
  });

  it("rejects a record that claims more bytes than its batch holds", () => {
    const bytes = batchOf(3, ["abc"]);
    bytes[BATCH.RECORDS] = 0x7e; // record length 63, far past the batch
    expect(() => decode(bytes, { verifyCrc: false })).toThrow('Kafka topic "events" partition 2: the record batch at offset 3 is malformed: record 0 claims 63 bytes');
  });

  it("does not trust a corrupt record count to size its buffers", () => {
    const bytes = batchOf(3, ["abc"]);
    new DataView(bytes.buffer).setInt32(BATCH.RECORDS_COUNT, 2 ** 31 - 1);
    expect(() => decode(bytes, { verifyCrc: false })).toThrow("the record batch at offset 3 is malformed: record 1 claims 0 bytes");
    expect(() => decode(bytes)).toThrow("failed its CRC-32C check");
  });

  it("rejects a batch length shorter than a batch header", () => {
    const bytes = batchOf(3, ["abc"]);
    new DataView(bytes.buffer).setInt32(BATCH.LENGTH, 20);
    expect(() => decode(bytes)).toThrow("the record batch at offset 3 is malformed: its length field says 20 bytes, less than a batch header");
  });
});

describe("decodeRecordBatches: headers", () => {
  it("writes each record's headers, in order and byte for byte, as a list of { key, value }; null when a record has none", () => {
    const bytes = encodeRecordBatch(
      [
        { key: null, value: "a", timestamp: T0, headers: [{ key: "trace", value: "abc" }, { key: "trace", value: "def" }] },
        { key: null, value: "b", timestamp: T0 },
        { key: null, value: "c", timestamp: T0, headers: [{ key: 'q"uo\\te', value: "line\nbreak\u0001" }, { key: "gone", value: null }] },
        { key: null, value: "d", timestamp: T0, headers: [{ key: "ü", value: new Uint8Array([0xe2, 0x9c, 0x93]) }] },
      ],
      { baseOffset: 0 },
    );
    const decoded = decode(bytes, { includeHeaders: true });
    expect(decoded.batch.fields.at(-1)).toEqual({ name: "headers", type: "headers", nullable: true });
    expect(decoded.rows.map((r) => r.headers)).toEqual([
      [
        { key: "trace", value: utf8.encode("abc") },
        { key: "trace", value: utf8.encode("def") },
      ],
      null,
      [
        { key: 'q"uo\\te', value: utf8.encode("line\nbreak\u0001") },
        { key: "gone", value: null },
      ],
      [{ key: "ü", value: Uint8Array.of(0xe2, 0x9c, 0x93) }],
    ]);
    expect(decode(bytes).batch.fields.map((f) => f.name)).not.toContain("headers");
  });

  it("grows the headers buffers within a batch", () => {
    const records = Array.from({ length: 300 }, (_, i) => ({
      key: null,
      value: String(i),
      timestamp: T0,
      headers: Array.from({ length: 1 + (i % 4) }, (_, h) => ({ key: `h${h}`, value: new Uint8Array(i % 50).fill(h) })),
    }));
    const rows = decode(encodeRecordBatch(records), { includeHeaders: true }).rows;
    expect(rows.map((r) => r.headers)).toEqual(records.map((r) => r.headers));
  });
});

describe("decodeRecordBatches: buffer growth", () => {
  it("grows key and value buffers past their first estimate", () => {
    const big = "k".repeat(3000);
    const parts = [0, 1, 2].map((b) =>
      encodeRecordBatch(
        Array.from({ length: 20 }, (_, i) => ({ key: `${big}-${b}-${i}`, value: "v".repeat(i * 50), timestamp: T0 + i })),
        { baseOffset: b * 20, compression: "gzip" },
      ),
    );
    const rows = decode(concatBytes(...parts)).rows;
    expect(rows).toHaveLength(60);
    expect(rows[59]).toMatchObject({ key: `${big}-2-19`, value: "v".repeat(950), offset: 59 });
    expect(rows.every((r, i) => r.key === `${big}-${Math.floor(i / 20)}-${i % 20}` && r.value === "v".repeat((i % 20) * 50))).toBe(true);
  });
});
