import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { encodeRecordBatch, encodeRecordBatchColumns, type KafkaRecordInput } from "./encode.js";
import { concatBytes, decode, type KafkaRow } from "./test-support.js";

/**
 * Checks against kafkajs, an independent implementation of the same format: its encoder makes
 * the reference bytes for Sluice's encoder, and its decoder reads the same bytes as Sluice's.
 */
const require = createRequire(import.meta.url);
type KafkajsLong = unknown;
const Long = require("kafkajs/src/utils/long.js") as { fromValue(v: number | string): KafkajsLong };
const { RecordBatch } = require("kafkajs/src/protocol/recordBatch/v0/index.js") as {
  RecordBatch(options: Record<string, unknown>): Promise<{ buffer: Buffer }>;
};
const KafkajsRecord = require("kafkajs/src/protocol/recordBatch/record/v0/index.js") as (options: Record<string, unknown>) => unknown;
const KafkajsDecoder = require("kafkajs/src/protocol/decoder.js") as new (buffer: Buffer) => { offset: number };
const decodeKafkajsBatch = require("kafkajs/src/protocol/recordBatch/v0/decoder.js") as (decoder: unknown) => Promise<{
  timestampType: number;
  records: { offset: string; timestamp: string; key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer | Buffer[]> }[];
}>;
const { Types: KafkajsCompression } = require("kafkajs/src/protocol/message/compression/index.js") as { Types: { None: number; GZIP: number } };

const T0 = 1714521600000;
interface TextRecord extends KafkaRecordInput {
  readonly key: string | null;
  readonly value: string;
  readonly headers: readonly { key: string; value: string }[];
}
const RECORDS: TextRecord[] = [
  { key: "user-1", value: '{"page":"/home","ms":12}', timestamp: T0, headers: [] },
  { key: null, value: '{"page":"/cart","ms":340}', timestamp: T0 + 1500, headers: [{ key: "trace", value: "t-1" }] },
  { key: "user-ü", value: "", timestamp: T0 - 20, headers: [{ key: "a", value: "1" }, { key: "b", value: "2" }] },
  { key: "k", value: "v".repeat(300), timestamp: T0 + 86_400_000, headers: [] },
];

async function kafkajsBatch(compression: number, options: Record<string, unknown> = {}): Promise<Uint8Array> {
  const records = RECORDS.map((r, i) =>
    KafkajsRecord({
      offsetDelta: i,
      timestampDelta: r.timestamp - T0,
      key: r.key === null ? null : Buffer.from(r.key),
      value: Buffer.from(r.value),
      headers: Object.fromEntries(r.headers.map((h) => [h.key, Buffer.from(h.value)])),
    }),
  );
  const encoded = await RecordBatch({
    compression,
    firstOffset: Long.fromValue(77),
    firstTimestamp: T0,
    maxTimestamp: T0 + 86_400_000,
    partitionLeaderEpoch: 0,
    lastOffsetDelta: RECORDS.length - 1,
    records,
    ...options,
  });
  return new Uint8Array(encoded.buffer);
}

/** kafkajs's decoding of every batch in `bytes`, as Sluice rows. */
async function kafkajsRows(bytes: Uint8Array): Promise<KafkaRow[]> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new KafkajsDecoder(buffer);
  const rows: KafkaRow[] = [];
  while (decoder.offset < buffer.length) {
    const batch = await decodeKafkajsBatch(decoder);
    for (const r of batch.records) {
      const headers = Object.entries(r.headers).flatMap(([key, v]) => (Array.isArray(v) ? v : [v]).map((value) => ({ key, value: new Uint8Array(value) })));
      rows.push({
        key: r.key === null ? null : r.key.toString(),
        value: r.value === null ? null : r.value.toString(),
        topic: "events",
        partition: 2,
        offset: Number(r.offset),
        timestamp: Number(r.timestamp),
        timestampType: batch.timestampType,
        headers: headers.length ? headers : null,
      });
    }
  }
  return rows;
}

describe("agreement with kafkajs", () => {
  it("encodes byte for byte what kafkajs encodes, uncompressed and gzip", async () => {
    const same = { baseOffset: 77, partitionLeaderEpoch: 0, producer: { producerId: -1, producerEpoch: 0 }, baseSequence: 0 };
    expect(encodeRecordBatch(RECORDS, same)).toEqual(await kafkajsBatch(KafkajsCompression.None));
    expect(encodeRecordBatch(RECORDS, { ...same, compression: "gzip" })).toEqual(await kafkajsBatch(KafkajsCompression.GZIP));
  });

  it("encodes a transactional producer's batch byte for byte as kafkajs does", async () => {
    const reference = await kafkajsBatch(KafkajsCompression.None, { transactional: true, producerId: Long.fromValue(4321), producerEpoch: 2, firstSequence: 9 });
    const ours = encodeRecordBatch(RECORDS, { baseOffset: 77, partitionLeaderEpoch: 0, transactional: { producerId: 4321n, producerEpoch: 2 }, baseSequence: 9 });
    expect(ours).toEqual(reference);
  });

  it("decodes kafkajs's batches exactly as kafkajs's decoder does", async () => {
    const bytes = concatBytes(await kafkajsBatch(KafkajsCompression.None), await kafkajsBatch(KafkajsCompression.GZIP, { firstOffset: Long.fromValue(81) }));
    const ours = decode(bytes, { includeHeaders: true }).rows;
    expect(ours).toHaveLength(8);
    expect(ours).toEqual(await kafkajsRows(bytes));
  });

  it("writes batches kafkajs's decoder reads back, from both encoders", async () => {
    const fromRows = encodeRecordBatch(RECORDS, { baseOffset: 0, compression: "gzip" });
    const values = new TextEncoder().encode("alphabetagamma");
    const fromColumns = encodeRecordBatchColumns(
      { count: 3, values, valueOffsets: Int32Array.of(0, 5, 9, 14), timestamps: Float64Array.of(T0, T0 + 1, T0 - 1) },
      { baseOffset: 4 },
    );
    const bytes = concatBytes(fromRows, fromColumns);
    const theirs = await kafkajsRows(bytes);
    expect(theirs.map((r) => [r.offset, r.value])).toEqual([
      [0, RECORDS[0]!.value],
      [1, RECORDS[1]!.value],
      [2, RECORDS[2]!.value],
      [3, RECORDS[3]!.value],
      [4, "alpha"],
      [5, "beta"],
      [6, "gamma"],
    ]);
    expect(decode(bytes, { includeHeaders: true }).rows).toEqual(theirs);
  });
});
