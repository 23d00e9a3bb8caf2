import { Kafka, logLevel } from "kafkajs";
import type { KafkaConnectionOptions } from "./kafka-cluster.js";
import type { PartitionOffsets } from "./partition-offsets.js";

/**
 * Publishes each committed batch's end offsets to a consumer group (`commitOffsetsToGroup`), so
 * standard lag tools (kafka-consumer-groups, Burrow, exporters) see the query's progress. The
 * checkpoint stays the source of truth; a failed publish is logged, never fatal.
 */
export class GroupCommitter {
  private readonly admin;
  private connected: Promise<void> | null = null;
  private last: Promise<void> = Promise.resolve();

  constructor(
    connection: KafkaConnectionOptions,
    private readonly groupId: string,
  ) {
    const kafka = new Kafka({
      brokers: connection.bootstrapServers.split(","),
      clientId: connection.clientId,
      connectionTimeout: connection.connectionTimeoutMs,
      requestTimeout: connection.requestTimeoutMs,
      logLevel: logLevel.ERROR,
    });
    this.admin = kafka.admin();
  }

  commit(offsets: PartitionOffsets): void {
    this.last = this.last.then(async () => {
      try {
        this.connected ??= this.admin.connect();
        await this.connected;
        for (const [topic, parts] of Object.entries(offsets)) {
          await this.admin.setOffsets({
            groupId: this.groupId,
            topic,
            partitions: Object.entries(parts).map(([partition, offset]) => ({ partition: Number(partition), offset: String(offset) })),
          });
        }
      } catch (e) {
        console.warn(`could not publish offsets to consumer group ${this.groupId}: ${(e as Error).message}`);
      }
    });
  }

  /** Waits for the last publish, then disconnects. */
  async close(): Promise<void> {
    await this.last;
    if (this.connected) await this.admin.disconnect().catch(() => undefined);
  }
}
