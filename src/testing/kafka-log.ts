// Reads back exactly what the test broker stored: every record batch of a partition, parsed byte by byte
// (independently of Sluice's decoder), with the header fields producers set and the transaction markers.
import { clusterFor } from "../sources/kafka/kafka-cluster.js";
import { fetchPartitionRaw } from "../sources/kafka/fetch-raw.js";
import { ATTR, BATCH, CONTROL_TYPE } from "../sources/kafka/record-batch/layout.js";
import { readVarint, readVarlong, varintCursor } from "../sources/kafka/record-batch/varint.js";
import { kafkaBootstrap } from "./kafka.js";
import { connection } from "./kafka-load.js";

export interface RawRecord {
  readonly offset: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: [string, Uint8Array | null][];
}

export interface RawBatch {
  readonly size: number;
  readonly baseOffset: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly count: number;
  readonly transactional: boolean;
  /** A transaction marker: "commit" or "abort"; null for a data batch. */
  readonly marker: "commit" | "abort" | null;
  readonly records: RawRecord[];
}

const text = new TextDecoder();

function bytesAt(src: Uint8Array, pos: number): Uint8Array | null {
  const length = readVarint(src, pos);
  const start = varintCursor.next;
  varintCursor.next = start + Math.max(length, 0);
  return length < 0 ? null : Uint8Array.from(src.subarray(start, start + length));
}

function parseBatches(bytes: Uint8Array): RawBatch[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: RawBatch[] = [];
  for (let at = 0; at + BATCH.RECORDS <= bytes.length; ) {
    const size = view.getInt32(at + BATCH.LENGTH) + 12;
    if (at + size > bytes.length) break; // a truncated last batch
    const baseOffset = Number(view.getBigInt64(at + BATCH.BASE_OFFSET));
    const count = view.getInt32(at + BATCH.RECORDS_COUNT);
    const attributes = view.getInt16(at + BATCH.ATTRIBUTES);
    if ((attributes & 7) !== 0) throw new Error(`the batch at offset ${baseOffset} is compressed; this reader expects uncompressed batches`);
    const records: RawRecord[] = [];
    let pos = at + BATCH.RECORDS;
    for (let r = 0; r < count; r++) {
      readVarint(bytes, pos); // length
      pos = varintCursor.next + 1; // attributes
      readVarlong(bytes, pos);
      const offsetDelta = readVarint(bytes, varintCursor.next);
      const key = bytesAt(bytes, varintCursor.next);
      const value = bytesAt(bytes, varintCursor.next);
      const headers: [string, Uint8Array | null][] = [];
      for (let h = readVarint(bytes, varintCursor.next); h > 0; h--) {
        const name = text.decode(bytesAt(bytes, varintCursor.next)!);
        headers.push([name, bytesAt(bytes, varintCursor.next)]);
      }
      pos = varintCursor.next;
      records.push({ offset: baseOffset + offsetDelta, key, value, headers });
    }
    const control = (attributes & ATTR.CONTROL) !== 0;
    // A marker's key is version int16, then type int16.
    const type = control ? new DataView(records[0]!.key!.buffer).getInt16(2) : null;
    out.push({
      size,
      baseOffset,
      producerId: view.getBigInt64(at + BATCH.PRODUCER_ID),
      producerEpoch: view.getInt16(at + BATCH.PRODUCER_EPOCH),
      baseSequence: view.getInt32(at + BATCH.BASE_SEQUENCE),
      count,
      transactional: (attributes & ATTR.TRANSACTIONAL) !== 0,
      marker: type === null ? null : type === CONTROL_TYPE.COMMIT ? "commit" : "abort",
      records,
    });
    at += size;
  }
  return out;
}

/** Every record batch of a partition as stored, transaction markers and aborted batches included. */
export async function readPartition(topic: string, partition: number): Promise<RawBatch[]> {
  const cluster = await clusterFor(connection(kafkaBootstrap()));
  const out: RawBatch[] = [];
  for (let offset = 0; ; ) {
    const got = await fetchPartitionRaw(cluster, { topic, partition, offset, maxBytes: 16 << 20, isolationLevel: 0 });
    if (got.errorCode !== 0) throw new Error(`fetching ${topic}-${partition} at ${offset}: error code ${got.errorCode}`);
    const batches = parseBatches(got.records);
    out.push(...batches);
    const last = batches.at(-1)?.records.at(-1);
    if (!last) throw new Error(`fetching ${topic}-${partition} at ${offset} returned no whole record batch below the high watermark ${got.highWatermark}`);
    offset = last.offset + 1;
    if (offset >= got.highWatermark) return out;
  }
}

/** The data records of each partition of a topic (markers left out; aborted records kept). */
export async function readTopic(topic: string, partitions: number): Promise<RawRecord[][]> {
  return Promise.all(Array.from({ length: partitions }, async (_, p) => (await readPartition(topic, p)).filter((b) => b.marker === null).flatMap((b) => b.records)));
}

export const asText = (b: Uint8Array | null) => (b === null ? null : text.decode(b));
