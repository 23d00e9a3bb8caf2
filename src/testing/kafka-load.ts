/**
 * A load generator fast enough not to be the limit: record batches are encoded by Sluice's
 * columnar encoder and sent as raw Produce (v7) requests, one batch per partition per request,
 * instead of going through kafkajs's per-message encoder (~0.3 M records/s).
 */
import { createRequire } from "node:module";
import { clusterFor, type KafkaConnectionOptions } from "../sources/kafka/kafka-cluster.js";
import { encodeRecordBatchColumns } from "../sources/kafka/record-batch/encode.js";

const require = createRequire(import.meta.url);
const Encoder = require("kafkajs/src/protocol/encoder.js") as new () => {
  writeString(s: string | null): any;
  writeInt16(n: number): any;
  writeInt32(n: number): any;
  writeBytes(b: Buffer): any;
  writeArray(a: unknown[]): any;
};

export function connection(bootstrapServers: string): KafkaConnectionOptions {
  return { bootstrapServers, clientId: "sluice-bench-load", requestTimeoutMs: 60_000, connectionTimeoutMs: 10_000, isolationLevel: "read_uncommitted" };
}

const encoder = new TextEncoder();

/** Appends `count` JSON values made by `value(i)`, round-robin over partitions, in record batches of `perBatch` (under the broker's 1 MB message limit). */
export async function produceJson(
  bootstrapServers: string,
  topic: string,
  partitions: number,
  count: number,
  value: (i: number) => string,
  perBatch = 8_000,
): Promise<void> {
  const cluster = await clusterFor(connection(bootstrapServers));
  await cluster.addMultipleTargetTopics([topic]);
  const meta = cluster.findTopicPartitionMetadata(topic);
  for (let from = 0; from < count; from += perBatch * partitions) {
    const requests = meta.map(async (p) => {
      const rows: string[] = [];
      for (let i = from + p.partitionId; i < Math.min(count, from + perBatch * partitions); i += partitions) rows.push(value(i));
      if (rows.length === 0) return;
      const bytes = encoder.encode(rows.join(""));
      const offsets = new Int32Array(rows.length + 1);
      for (let r = 0, at = 0; r < rows.length; r++) offsets[r + 1] = at += Buffer.byteLength(rows[r]!);
      const batch = encodeRecordBatchColumns({ count: rows.length, values: bytes, valueOffsets: offsets, timestamps: Date.now() });
      const broker = await cluster.findBroker({ nodeId: p.leader });
      const request = {
        apiKey: 0,
        apiVersion: 7,
        apiName: "Produce",
        encode: async () =>
          new Encoder()
            .writeString(null)
            .writeInt16(-1)
            .writeInt32(30_000)
            .writeArray([new Encoder().writeString(topic).writeArray([new Encoder().writeInt32(p.partitionId).writeBytes(Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength))])]),
      };
      const response = {
        decode: async (payload: Buffer) => payload,
        parse: async (payload: Buffer) => {
          // topics[0].partitions[0].error_code sits after: count(4) topic(2+len) count(4) partition(4).
          const errorAt = 4 + 2 + Buffer.byteLength(topic) + 4 + 4;
          const code = payload.readInt16BE(errorAt);
          if (code !== 0) throw new Error(`produce to ${topic}-${p.partitionId} failed with error code ${code}`);
          return payload;
        },
      };
      await broker.connectionPool.send({ request, response });
    });
    await Promise.all(requests);
  }
}
