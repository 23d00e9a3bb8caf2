// Helpers for tests against the real Kafka broker. Such tests are named `*.kafka.test.ts`: the `kafka` vitest
// project starts the broker for them (src/testing/kafka-global-setup.ts) and provides its address.
import { randomBytes } from "node:crypto";
import { Kafka, logLevel, type Admin, type KafkaConfig } from "kafkajs";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** host:port of the broker the `kafka` project's global setup started or was pointed at. */
    kafkaBootstrap: string;
  }
}

/**
 * The broker's bootstrap address: `KAFKA_BOOTSTRAP_SERVERS` when set, else the one the `kafka` project's
 * global setup provides. Pass it on explicitly to child processes.
 */
export function kafkaBootstrap(): string {
  const fromEnv = process.env.KAFKA_BOOTSTRAP_SERVERS?.trim();
  if (fromEnv) return fromEnv;
  const provided = inject("kafkaBootstrap");
  if (!provided) {
    throw new Error(
      "no Kafka broker for this test: name the file *.kafka.test.ts (the kafka project starts one) " +
        "or set KAFKA_BOOTSTRAP_SERVERS",
    );
  }
  return provided;
}

/**
 * A kafkajs client for the test broker. It logs nothing by default: kafkajs logs every error response at error
 * level, including the ones it retries (a coordinator still loading, a transaction marker still being
 * written), and real failures reach the test as thrown errors anyway. `KAFKAJS_LOG_LEVEL=debug` (or info,
 * warn, error) shows its log.
 */
export function kafkaClient(clientId = "sluice-test", config: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    clientId,
    brokers: kafkaBootstrap().split(","),
    logLevel: logLevel.NOTHING,
    ...config,
  });
}

/** Runs `fn` with a connected admin client, disconnecting afterwards. */
export async function withAdmin<T>(fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafkaClient("sluice-test-admin").admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}

let topicCount = 0;

/**
 * A topic name no other test (in this run or an earlier one against the same broker) uses:
 * `sluice-<base>-<process>-<n>-<random>`.
 */
export function uniqueTopicName(base: string): string {
  topicCount += 1;
  const safe = base.replace(/[^a-zA-Z0-9._-]/g, "-").slice(0, 180);
  return `sluice-${safe}-${process.pid}-${topicCount}-${randomBytes(3).toString("hex")}`;
}

/** How long `createTopic` waits for every partition of a new topic to have a leader. */
const LEADERS_TIMEOUT_MS = 30_000;

/**
 * Creates a topic with a unique name derived from `base` (see `uniqueTopicName`), `partitions` partitions,
 * one replica and the given topic configs (e.g. `{ "retention.ms": "1000" }`), waits until every partition
 * has a leader, and returns its name.
 *
 * The wait is Sluice's own, not kafkajs's `waitForLeaders`, which gives up on the first answer other than
 * "leader not available" (a broker that has just restarted, or was fenced after a stall, can say for a
 * moment that it does not know a topic it has just created) and ends as soon as metadata names leaders.
 */
export async function createTopic(
  base: string,
  partitions: number,
  config: Record<string, string> = {},
): Promise<string> {
  const topic = uniqueTopicName(base);
  await withAdmin(async (admin) => {
    const created = await admin.createTopics({
      waitForLeaders: false,
      topics: [
        {
          topic,
          numPartitions: partitions,
          replicationFactor: 1,
          configEntries: Object.entries(config).map(([name, value]) => ({ name, value })),
        },
      ],
    });
    if (!created) throw new Error(`topic ${topic} already exists`);
    const deadline = Date.now() + LEADERS_TIMEOUT_MS;
    for (;;) {
      // Metadata can name a leader a moment before that broker serves the partition: it is ready once
      // ListOffsets, which only the leader answers, succeeds for every partition too.
      const led = await admin
        .fetchTopicMetadata({ topics: [topic] })
        .then(({ topics: [t] }) => t !== undefined && t.partitions.length === partitions && t.partitions.every((p) => p.leader >= 0))
        .then(async (ok) => ok && (await admin.fetchTopicOffsets(topic)).length === partitions)
        .catch(() => false);
      if (led) return;
      if (Date.now() > deadline) throw new Error(`topic ${topic}: not every partition had a leader within ${LEADERS_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  return topic;
}

/** Deletes topics (missing ones are an error, as in kafkajs). */
export async function deleteTopic(...topics: string[]): Promise<void> {
  await withAdmin((admin) => admin.deleteTopics({ topics }));
}
