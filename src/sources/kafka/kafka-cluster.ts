import { createRequire } from "node:module";
import { SluiceError } from "../../errors/errors.js";

/**
 * Connections to a Kafka cluster through kafkajs's cluster layer (metadata, leader lookup, broker
 * connections with negotiated API versions). Sluice uses kafkajs below its consumer: it plans
 * offset ranges itself and sends its own fetch requests, so no consumer group is ever joined.
 * One cluster object per connection settings and thread: a worker keeps its connections across
 * batches.
 */

const require = createRequire(import.meta.url);
// kafkajs is pinned to 2.2.4 (it is no longer released), so its internal modules are stable.
const Cluster = require("kafkajs/src/cluster/index.js") as new (options: Record<string, unknown>) => KafkaCluster;
const { createLogger, LEVELS } = require("kafkajs/src/loggers/index.js") as {
  createLogger(o: { level: number; logCreator: unknown }): unknown;
  LEVELS: Record<"NOTHING" | "ERROR" | "WARN" | "INFO" | "DEBUG", number>;
};
const defaultSocketFactory = require("kafkajs/src/network/socketFactory.js") as () => unknown;

export interface KafkaConnectionOptions {
  readonly bootstrapServers: string;
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  readonly connectionTimeoutMs: number;
  readonly isolationLevel: "read_uncommitted" | "read_committed";
}

/** The subset of kafkajs's Cluster that Sluice uses. */
export interface KafkaCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  refreshMetadata(): Promise<void>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  metadata(o?: { topics?: string[] }): Promise<{ topicMetadata: { topic: string; topicErrorCode: number; partitionMetadata: { partitionId: number; leader: number }[] }[] }>;
  findTopicPartitionMetadata(topic: string): { partitionId: number; leader: number }[];
  findBroker(o: { nodeId: number | string }): Promise<KafkaBroker>;
  fetchTopicsOffset(
    topics: { topic: string; partitions: { partition: number }[]; fromBeginning?: boolean; fromTimestamp?: number }[],
  ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}

export interface KafkaBroker {
  connectionPool: { send(protocol: { request: unknown; response: unknown; requestTimeout?: number }): Promise<any> };
}

const ISOLATION = { read_uncommitted: 0, read_committed: 1 } as const;

export function isolationCode(level: KafkaConnectionOptions["isolationLevel"]): number {
  return ISOLATION[level];
}

/** kafkajs log lines go to stderr at error level only; Sluice reports the rest itself. */
const logCreator = () => (entry: { namespace: string; level: number; log: { message: string } }) => {
  if (entry.level <= LEVELS.ERROR) console.error(`[kafka ${entry.namespace}] ${entry.log.message}`);
};

const clusters = new Map<string, Promise<KafkaCluster>>();

export function clusterFor(options: KafkaConnectionOptions): Promise<KafkaCluster> {
  const key = JSON.stringify(options);
  let cluster = clusters.get(key);
  if (!cluster) {
    cluster = connect(options);
    clusters.set(key, cluster);
    // A failed connection is not cached: the next task tries again.
    cluster.catch(() => clusters.delete(key));
  }
  return cluster;
}

async function connect(o: KafkaConnectionOptions): Promise<KafkaCluster> {
  const cluster = new Cluster({
    logger: createLogger({ level: LEVELS.ERROR, logCreator }),
    socketFactory: defaultSocketFactory(),
    brokers: o.bootstrapServers.split(",").map((b) => b.trim()),
    clientId: o.clientId,
    connectionTimeout: o.connectionTimeoutMs,
    requestTimeout: o.requestTimeoutMs,
    enforceRequestTimeout: true,
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 2000 },
    allowAutoTopicCreation: false,
    isolationLevel: isolationCode(o.isolationLevel),
    offsets: new Map(),
  });
  try {
    await cluster.connect();
  } catch (e) {
    throw new SluiceError(`cannot connect to Kafka at ${o.bootstrapServers}: ${(e as Error).message}`, { cause: e });
  }
  return cluster;
}

/** Closes every cluster this thread opened (query stop, worker exit). */
export async function closeClusters(): Promise<void> {
  const all = [...clusters.values()];
  clusters.clear();
  await Promise.all(all.map((c) => c.then((x) => x.disconnect()).catch(() => undefined)));
}
