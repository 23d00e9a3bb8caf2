/**
 * A load generator fast enough not to be the limit: record batches are encoded by Sluice's
 * columnar encoder and sent as raw Produce requests (`produceRaw`), one request per leader with
 * one batch per partition, instead of going through kafkajs's per-message encoder (~0.3 M records/s).
 */
import { clusterFor, trackTopics, type KafkaConnectionOptions } from "../sources/kafka/kafka-cluster.js";
import { PLAINTEXT_SECURITY } from "../sources/kafka/kafka-security.js";
import { produceRaw, type ProducePartition } from "../sources/kafka/produce-raw.js";
import { grow } from "../sources/kafka/record-batch/columns.js";
import { encodeRecordBatchColumns } from "../sources/kafka/record-batch/encode.js";

export function connection(bootstrapServers: string): KafkaConnectionOptions {
  return { bootstrapServers, clientId: "sluice-bench-load", requestTimeoutMs: 60_000, connectionTimeoutMs: 10_000, isolationLevel: "read_uncommitted", security: PLAINTEXT_SECURITY };
}

export interface ProduceJsonOptions {
  /** Records per record batch (keep batches under the broker's 1 MB message limit). Default 8,000. */
  readonly perBatch?: number;
  /** Record i's CreateTime, epoch ms. Default: the time its batch is encoded. */
  readonly timestamp?: (i: number) => number;
}

/**
 * Values of one record batch written straight into UTF-8 bytes: each string is flattened and
 * encoded once (`Buffer.write`), with no joined copy and no separate byte-length pass.
 */
class ValueWriter {
  private bytes = Buffer.allocUnsafe(1 << 20);
  private at = 0;
  private offsets = new Int32Array(1);
  private rows = 0;

  add(value: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    if (this.bytes.length - this.at < value.length * 3) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.at + value.length * 3));
      this.bytes.copy(grown, 0, 0, this.at);
      this.bytes = grown;
    }
    this.at += this.bytes.write(value, this.at, "utf8");
    this.offsets = grow(this.offsets, this.rows + 2);
    this.offsets[++this.rows] = this.at;
  }

  get count(): number {
    return this.rows;
  }

  /** The batch's values and offsets (views into this writer: encode them before the next `reset`). */
  columns(): { values: Uint8Array; valueOffsets: Int32Array } {
    return { values: this.bytes.subarray(0, this.at), valueOffsets: this.offsets.subarray(0, this.rows + 1) };
  }

  reset(): void {
    this.at = 0;
    this.rows = 0;
  }
}

const writer = new ValueWriter();
let times = new Float64Array(1024);

/**
 * One record batch of the JSON values `value(i)` for i = from, from + stride, ... below `end`
 * (null when there are none), each stamped `timestamp(i)` or, without it, the current time.
 */
export function jsonRecordBatch(from: number, end: number, stride: number, value: (i: number) => string, timestamp?: (i: number) => number): Uint8Array | null {
  writer.reset();
  for (let i = from; i < end; i += stride) {
    if (timestamp) {
      times = grow(times, writer.count + 1);
      times[writer.count] = timestamp(i);
    }
    writer.add(value(i));
  }
  if (writer.count === 0) return null;
  return encodeRecordBatchColumns({ count: writer.count, ...writer.columns(), timestamps: timestamp ? times.subarray(0, writer.count) : Date.now() });
}

/** Sends record batches, at most one per partition, as one Produce request per partition leader. */
export async function sendBatches(bootstrapServers: string, topic: string, batches: readonly { readonly partition: number; readonly batch: Uint8Array }[]): Promise<void> {
  const cluster = await clusterFor(connection(bootstrapServers));
  await trackTopics(cluster, [topic]);
  const leaderOf = new Map(cluster.findTopicPartitionMetadata(topic).map((p) => [p.partitionId, p.leader]));
  const byLeader = new Map<number, ProducePartition[]>();
  for (const { partition, batch } of batches) {
    const leader = leaderOf.get(partition);
    if (leader === undefined) throw new Error(`${topic} has no partition ${partition}`);
    let list = byLeader.get(leader);
    if (!list) byLeader.set(leader, (list = []));
    list.push({ topic, partition, batch });
  }
  await Promise.all([...byLeader].map(async ([leader, list]) => produceRaw(await cluster.findBroker({ nodeId: leader }), list)));
}

/**
 * Appends `count` JSON values made by `value(i)`, round-robin over partitions, in record batches
 * of `options.perBatch`. One round's Produce requests are in flight while the next round is
 * encoded, so the broker and the generator work at the same time.
 */
export async function produceJson(
  bootstrapServers: string,
  topic: string,
  partitions: number,
  count: number,
  value: (i: number) => string,
  options: ProduceJsonOptions = {},
): Promise<void> {
  const perRound = (options.perBatch ?? 8_000) * partitions;
  let inFlight: Promise<unknown> = Promise.resolve();
  for (let from = 0; from < count; from += perRound) {
    const batches = [];
    for (let partition = 0; partition < partitions; partition++) {
      const batch = jsonRecordBatch(from + partition, Math.min(count, from + perRound), partitions, value, options.timestamp);
      if (batch) batches.push({ partition, batch });
    }
    await inFlight;
    inFlight = sendBatches(bootstrapServers, topic, batches);
  }
  await inFlight;
}
