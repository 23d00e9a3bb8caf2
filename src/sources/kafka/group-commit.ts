import type { Admin } from "kafkajs";
import { kafkaClientConfig, type KafkaConnectionOptions } from "./kafka-cluster.js";
import { loadKafkajs } from "./kafkajs.js";
import type { PartitionOffsets } from "./partition-offsets.js";
import { timeLimit } from "./time-limit.js";

/**
 * Publishes each committed batch's end offsets to a consumer group (`commitOffsetsToGroup`), so
 * standard lag tools (kafka-consumer-groups, Burrow, exporters) see the query's progress. The
 * checkpoint stays the source of truth; a failed publish is logged, never fatal, and a broker that
 * does not answer holds up the query's stop for kafka.default.api.timeout.ms at most.
 */
export class GroupCommitter {
  private admin: Promise<Admin> | null = null;
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: KafkaConnectionOptions,
    private readonly groupId: string,
    /** Longest wait, at close, for the last publish (kafka.default.api.timeout.ms). */
    private readonly closeTimeoutMs: number,
  ) {}

  private connectedAdmin(): Promise<Admin> {
    if (this.admin === null) {
      const admin = kafkaClientConfig(this.connection).then(async (config) => {
        const { Kafka } = await loadKafkajs();
        const client = new Kafka(config).admin();
        await client.connect();
        return client;
      });
      // A failed connect is tried again at the next publish.
      admin.catch(() => {
        if (this.admin === admin) this.admin = null;
      });
      this.admin = admin;
    }
    return this.admin;
  }

  commit(offsets: PartitionOffsets): void {
    this.last = this.last.then(async () => {
      try {
        const admin = await this.connectedAdmin();
        for (const [topic, parts] of Object.entries(offsets)) {
          await admin.setOffsets({
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

  /** Waits for the last publish (within the close timeout), then disconnects. */
  async close(): Promise<void> {
    const published = await timeLimit(this.last, this.closeTimeoutMs, () => new Error("timed out")).then(
      () => true,
      () => false,
    );
    if (!published) console.warn(`consumer group ${this.groupId}: the last offsets were not published within ${this.closeTimeoutMs} ms (kafka.default.api.timeout.ms)`);
    // A disconnect waits for requests in flight; a broker that did not answer would hold it too.
    const admin = this.admin;
    if (admin) await timeLimit(admin.then((a) => a.disconnect()), this.closeTimeoutMs, () => new Error("timed out")).catch(() => undefined);
  }
}
