/**
 * Topic administration and output reading for the runner: create input and output topics with
 * the timestamp type each phase needs, watch an output topic's size, and read it back with each
 * record's append time.
 */
// Before kafkajs: the runner's feed then frames its Produce requests as Sluice does (one exact-size
// buffer each), so feeding a latency phase takes less of the CPU the system under test runs on.
import "../../src/sources/kafka/kafkajs-request-framing.js";
import { Kafka, logLevel, type Admin } from "kafkajs";
import { col, Session } from "../../src/index.js";

export const PARTITIONS = 4;

export class Topics {
  private readonly admin: Admin;
  private connected: Promise<void>;

  constructor(readonly bootstrap: string) {
    this.admin = new Kafka({ brokers: [bootstrap], clientId: "sluice-bench-runner", logLevel: logLevel.ERROR }).admin();
    this.connected = this.admin.connect();
  }

  /** Creates `topic` (4 partitions) unless it exists; `logAppendTime` makes the broker stamp every record. */
  async create(topic: string, logAppendTime: boolean): Promise<void> {
    await this.connected;
    const configEntries = [
      { name: "message.timestamp.type", value: logAppendTime ? "LogAppendTime" : "CreateTime" },
      { name: "max.message.bytes", value: String(8 * 1024 * 1024) },
      // Drain topics carry event times months away from the broker's clock.
      { name: "message.timestamp.before.max.ms", value: String(Number.MAX_SAFE_INTEGER) },
      { name: "message.timestamp.after.max.ms", value: String(Number.MAX_SAFE_INTEGER) },
      { name: "retention.ms", value: "-1" },
    ];
    await settled(async () => {
      // A retry after the broker created the topic but the answer said otherwise finds it there.
      if (!(await this.admin.listTopics()).includes(topic)) {
        await this.admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1, configEntries }] });
      }
    });
  }

  async exists(topic: string): Promise<boolean> {
    await this.connected;
    return (await this.admin.listTopics()).includes(topic);
  }

  async delete(prefix: string): Promise<void> {
    await this.connected;
    const topics = (await this.admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await this.admin.deleteTopics({ topics });
  }

  /** Records in `topic`: the sum of its partitions' end offsets (topics here are never compacted or trimmed). */
  async size(topic: string): Promise<number> {
    await this.connected;
    const offsets = await settled(() => this.admin.fetchTopicOffsets(topic));
    return offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  }

  async close(): Promise<void> {
    await this.connected;
    await this.admin.disconnect();
  }
}

/**
 * Runs an admin call, retrying while the broker's metadata has not caught up with a topic
 * created or deleted moments ago ("does not host this topic-partition"), on a broker busy with
 * the system under test.
 */
async function settled<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (attempt === 10 || !/does not host this topic-partition|leader/i.test((e as Error).message)) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export interface OutputRecord {
  readonly value: Record<string, unknown>;
  /** The broker's append time (the output topics use LogAppendTime). */
  readonly appendMs: number;
}

/** Every record of `topic` (`expected` of them), read with Sluice's own static Kafka reader. */
export async function readOutput(session: Session, bootstrap: string, topic: string, expected: number): Promise<OutputRecord[]> {
  for (let attempt = 1; ; attempt++) {
    const out = await readOnce(session, bootstrap, topic);
    if (out.length === expected) return out;
    // Metadata of a topic created moments ago can lag; the end offsets say how many records there are.
    if (attempt === 5) throw new Error(`read ${out.length} records of ${topic}, which holds ${expected}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function readOnce(session: Session, bootstrap: string, topic: string): Promise<OutputRecord[]> {
  const rows = await session.read
    .format("kafka")
    .option("kafka.bootstrap.servers", bootstrap)
    .option("subscribe", topic)
    .load()
    .select(col("value").cast("string").alias("value"), "timestamp")
    .collect();
  return rows.map((r) => ({ value: JSON.parse(r.value ?? "null") as Record<string, unknown>, appendMs: r.timestamp.getTime() }));
}
