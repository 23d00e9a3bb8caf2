/**
 * A load generator fast enough not to be the limit: record batches are encoded by Sluice's
 * columnar encoder and sent as raw Produce requests (`produceRaw`), one request per leader with
 * one batch per partition, instead of going through kafkajs's per-message encoder (~0.3 M records/s).
 */
import { clusterFor, trackTopics, type KafkaConnectionOptions } from "../sources/kafka/kafka-cluster.js";
import { produceRaw, type ProducePartition } from "../sources/kafka/produce-raw.js";
import { encodeRecordBatchColumns } from "../sources/kafka/record-batch/encode.js";

export function connection(bootstrapServers: string): KafkaConnectionOptions {
  return { bootstrapServers, clientId: "sluice-bench-load", requestTimeoutMs: 60_000, connectionTimeoutMs: 10_000, isolationLevel: "read_uncommitted" };
}

const encoder = new TextEncoder();

export interface ProduceJsonOptions {
  /** Records per record batch (keep batches under the broker's 1 MB message limit). Default 8,000. */
  readonly perBatch?: number;
  /** Record i's CreateTime, epoch ms. Default: the time its batch is encoded. */
  readonly timestamp?: (i: number) => number;
}

/** Appends `count` JSON values made by `value(i)`, round-robin over partitions, in record batches of `options.perBatch`. */
export async function produceJson(
  bootstrapServers: string,
  topic: string,
  partitions: number,
  count: number,
  value: (i: number) => string,
  options: ProduceJsonOptions = {},
): Promise<void> {
  const perBatch = options.perBatch ?? 8_000;
  const cluster = await clusterFor(connection(bootstrapServers));
  await trackTopics(cluster, [topic]);
  const meta = cluster.findTopicPartitionMetadata(topic);
  for (let from = 0; from < count; from += perBatch * partitions) {
    const byLeader = new Map<number, ProducePartition[]>();
    for (const p of meta) {
      const rows: string[] = [];
      const times: number[] = [];
      for (let i = from + p.partitionId; i < Math.min(count, from + perBatch * partitions); i += partitions) {
        rows.push(value(i));
        if (options.timestamp) times.push(options.timestamp(i));
      }
      if (rows.length === 0) continue;
      const bytes = encoder.encode(rows.join(""));
      const offsets = new Int32Array(rows.length + 1);
      for (let r = 0, at = 0; r < rows.length; r++) offsets[r + 1] = at += Buffer.byteLength(rows[r]!);
      const timestamps = options.timestamp ? Float64Array.from(times) : Date.now();
      const batch = encodeRecordBatchColumns({ count: rows.length, values: bytes, valueOffsets: offsets, timestamps });
      let list = byLeader.get(p.leader);
      if (!list) byLeader.set(p.leader, (list = []));
      list.push({ topic, partition: p.partitionId, batch });
    }
    await Promise.all([...byLeader].map(async ([leader, list]) => produceRaw(await cluster.findBroker({ nodeId: leader }), list)));
  }
}
