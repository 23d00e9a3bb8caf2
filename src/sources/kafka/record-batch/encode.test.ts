import { describe, expect, it } from "vitest";
import { crc32c } from "./crc32c.js";
import { encodeRecordBatch, encodeRecordBatchColumns } from "./encode.js";
import { ATTR, BATCH } from "./layout.js";
import { decode } from "./test-support.js";

const T0 = 1714521600000;
const utf8 = new TextEncoder();

function header(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    baseOffset: Number(view.getBigInt64(BATCH.BASE_OFFSET)),
    batchLength: view.getInt32(BATCH.LENGTH),
    leaderEpoch: view.getInt32(BATCH.LEADER_EPOCH),
    magic: view.getInt8(BATCH.MAGIC),
    crcOk: view.getUint32(BATCH.CRC) === crc32c(bytes, BATCH.ATTRIBUTES),
    attributes: view.getInt16(BATCH.ATTRIBUTES),
    lastOffsetDelta: view.getInt32(BATCH.LAST_OFFSET_DELTA),
    baseTimestamp: Number(view.getBigInt64(BATCH.BASE_TIMESTAMP)),
    maxTimestamp: Number(view.getBigInt64(BATCH.MAX_TIMESTAMP)),
    producerId: view.getBigInt64(BATCH.PRODUCER_ID),
    producerEpoch: view.getInt16(BATCH.PRODUCER_EPOCH),
    baseSequence: view.getInt32(BATCH.BASE_SEQUENCE),
    count: view.getInt32(BATCH.RECORDS_COUNT),
  };
}

describe("encodeRecordBatch", () => {
  it("stamps a plain producer's header: no producer id, first record's timestamp as base", () => {
    const bytes = encodeRecordBatch(
      [
        { key: null, value: "a", timestamp: T0 + 5 },
        { key: null, value: "b", timestamp: T0 + 9 },
        { key: null, value: "c", timestamp: T0 },
      ],
      { baseOffset: 12 },
    );
    expect(header(bytes)).toEqual({
      baseOffset: 12,
      batchLength: bytes.length - 12,
      leaderEpoch: -1,
      magic: 2,
      crcOk: true,
      attributes: 0,
      lastOffsetDelta: 2,
      baseTimestamp: T0 + 5,
      maxTimestamp: T0 + 9,
      producerId: -1n,
      producerEpoch: -1,
      baseSequence: -1,
      count: 3,
    });
  });

  it("stamps transactional, idempotent and LogAppendTime batches", () => {
    const record = [{ key: null, value: "x", timestamp: T0 }];
    expect(header(encodeRecordBatch(record, { transactional: { producerId: 77n, producerEpoch: 4 }, compression: "gzip" }))).toMatchObject({
      attributes: ATTR.TRANSACTIONAL | 1,
      producerId: 77n,
      producerEpoch: 4,
      baseSequence: 0,
      crcOk: true,
    });
    expect(header(encodeRecordBatch(record, { producer: { producerId: 78, producerEpoch: 1 }, baseSequence: 40 }))).toMatchObject({
      attributes: 0,
      producerId: 78n,
      producerEpoch: 1,
      baseSequence: 40,
    });
    expect(header(encodeRecordBatch(record, { timestampType: "LogAppendTime", logAppendTime: T0 + 50 }))).toMatchObject({
      attributes: ATTR.LOG_APPEND_TIME,
      baseTimestamp: T0,
      maxTimestamp: T0 + 50,
    });
  });

  it("writes transaction markers as Kafka's control batches: one record, key (version, type), value (version, coordinator epoch)", () => {
    const abort = encodeRecordBatch([], { baseOffset: 30, transactional: { producerId: 5n, producerEpoch: 2 }, control: "abort", coordinatorEpoch: 9, controlTimestamp: T0 });
    expect(header(abort)).toMatchObject({
      attributes: ATTR.TRANSACTIONAL | ATTR.CONTROL,
      lastOffsetDelta: 0,
      baseTimestamp: T0,
      maxTimestamp: T0,
      producerId: 5n,
      producerEpoch: 2,
      baseSequence: -1,
      count: 1,
      crcOk: true,
    });
    // length 16 (zigzag 0x20), attributes 0, timestamp delta 0, offset delta 0, key length 4, key, value length 6, value, no headers
    expect(Array.from(abort.subarray(BATCH.RECORDS))).toEqual([0x20, 0, 0, 0, 0x08, 0, 0, 0, 0, 0x0c, 0, 0, 0, 0, 0, 9, 0]);
    const commit = encodeRecordBatch([], { transactional: { producerId: 5n, producerEpoch: 2 }, control: "commit", controlTimestamp: T0 });
    expect(Array.from(commit.subarray(BATCH.RECORDS + 5, BATCH.RECORDS + 9))).toEqual([0, 0, 0, 1]);
  });

  it("refuses batches it cannot write correctly", () => {
    expect(() => encodeRecordBatch([])).toThrow("a Kafka record batch needs at least one record");
    expect(() => encodeRecordBatch([{ key: null, value: "x", timestamp: T0 }], { control: "commit", transactional: { producerId: 1n, producerEpoch: 0 } })).toThrow(
      "a transaction marker batch carries no data records: pass [] with `control`",
    );
    expect(() => encodeRecordBatch([], { control: "abort" })).toThrow("a transaction marker needs `transactional: { producerId, producerEpoch }`");
    expect(() =>
      encodeRecordBatch([{ key: null, value: "x", timestamp: T0 }], { transactional: { producerId: 1n, producerEpoch: 0 }, producer: { producerId: 1n, producerEpoch: 0 } }),
    ).toThrow("a record batch takes `transactional` or `producer`, not both");
  });
});

describe("encodeRecordBatchColumns", () => {
  const values = utf8.encode('{"a":1}{"b":22}' + "z".repeat(700));
  const valueOffsets = Int32Array.of(0, 7, 15, 715);

  it("writes the same bytes as the record encoder, with keys and per-record timestamps", () => {
    const keys = { bytes: utf8.encode("k1k22"), offsets: Int32Array.of(0, 2, 2, 5) };
    const timestamps = Float64Array.of(T0, T0 - 3, T0 + 2 ** 31);
    const columnar = encodeRecordBatchColumns({ count: 3, values, valueOffsets, keys, timestamps }, { baseOffset: 9, compression: "gzip" });
    const rows = encodeRecordBatch(
      [
        { key: "k1", value: '{"a":1}', timestamp: T0 },
        { key: "", value: '{"b":22}', timestamp: T0 - 3 },
        { key: "k22", value: "z".repeat(700), timestamp: T0 + 2 ** 31 },
      ],
      { baseOffset: 9, compression: "gzip" },
    );
    expect(columnar).toEqual(rows);
  });

  it("writes null keys and one shared timestamp", () => {
    const columnar = encodeRecordBatchColumns({ count: 3, values, valueOffsets, timestamps: T0 }, { baseOffset: 0 });
    expect(decode(columnar).rows.map((r) => [r.key, r.value?.length, r.timestamp])).toEqual([
      [null, 7, T0],
      [null, 8, T0],
      [null, 700, T0],
    ]);
  });

  it("checks offsets against the bytes they index", () => {
    expect(() => encodeRecordBatchColumns({ count: 3, values: values.subarray(0, 100), valueOffsets, timestamps: T0 })).toThrow(
      "encodeRecordBatchColumns: valueOffsets needs 4 entries ending within the 100 value bytes",
    );
  });
});
