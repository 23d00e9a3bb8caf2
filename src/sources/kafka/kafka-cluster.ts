import type { KafkaConfig } from "kafkajs";
import * as net from "node:net";
import * as tls from "node:tls";
import { SluiceError } from "../../errors/errors.js";
import { clientSecurity, describeSecurity, type KafkaSecurity } from "./kafka-security.js";
import { loadKafkajs } from "./kafkajs.js";
import { connectFramed } from "./framed-socket.js";
import { KafkaSecurityError, securityFailure } from "./security-hints.js";

/** kafkajs's logLevel.ERROR. */
const LOG_ERROR = 1;

/**
 * Connections to a Kafka cluster through kafkajs's cluster layer (metadata, leader lookup, broker
 * connections with negotiated API versions). Sluice uses kafkajs below its consumer: it plans
 * offset ranges itself and sends its own fetch requests, so no consumer group is ever joined.
 * One cluster object per connection settings and thread: a worker keeps its connections across
 * batches.
 */


export interface KafkaConnectionOptions {
  readonly bootstrapServers: string;
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  readonly connectionTimeoutMs: number;
  readonly isolationLevel: "read_uncommitted" | "read_committed";
  /** TLS and SASL (kafka.security.protocol and the kafka.ssl.* and kafka.sasl.* options). */
  readonly security: KafkaSecurity;
  /** Metadata requests ask the broker to create missing topics (it does so only if it allows it). Default false. */
  readonly allowAutoTopicCreation?: boolean;
  /** How long cached metadata counts as fresh for `refreshMetadataIfNecessary`. Default 0 (always refresh). */
  readonly metadataMaxAgeMs?: number;
}

/** The subset of kafkajs's Cluster that Sluice uses. */
export interface KafkaCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  refreshMetadata(): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  metadata(o?: { topics?: string[] }): Promise<{ topicMetadata: { topic: string; topicErrorCode: number; partitionMetadata: { partitionId: number; leader: number }[] }[] }>;
  findTopicPartitionMetadata(topic: string): { partitionId: number; leader: number }[];
  findBroker(o: { nodeId: number | string }): Promise<KafkaBroker>;
  findControllerBroker(): Promise<KafkaBroker>;
  /** The broker coordinating a consumer group (`coordinatorType` 0) or a transactional id (1). */
  findGroupCoordinator(o: { groupId: string; coordinatorType: 0 | 1 }): Promise<KafkaBroker>;
  fetchTopicsOffset(
    topics: { topic: string; partitions: { partition: number }[]; fromBeginning?: boolean; fromTimestamp?: number }[],
  ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}

/** A producer id and epoch as kafkajs's transaction requests take them (the id as a decimal string). */
interface ProducerFields {
  transactionalId: string;
  producerId: string;
  producerEpoch: number;
}

export interface KafkaBroker {
  /** host:port. */
  readonly brokerAddress: string;
  connectionPool: {
    readonly host: string;
    readonly port: number;
    send(protocol: { request: unknown; response: unknown; requestTimeout?: number }): Promise<any>;
    /** The connection `send` would use for `request` (kafkajs keeps one apart for fetches), connected. */
    getConnectionByRequest(protocol: { request: unknown }): Promise<{ send(protocol: { request: unknown; response: unknown; requestTimeout?: number }): Promise<any> }>;
  };
  /** InitProducerId; without a transactional id it gives an idempotent producer's id and epoch. */
  initProducerId(o: { transactionalId?: string; transactionTimeout: number }): Promise<{ producerId: string; producerEpoch: number }>;
  // Transactions: sent to the transaction coordinator, except txnOffsetCommit (the group coordinator).
  addPartitionsToTxn(o: ProducerFields & { topics: { topic: string; partitions: number[] }[] }): Promise<unknown>;
  addOffsetsToTxn(o: ProducerFields & { groupId: string }): Promise<unknown>;
  txnOffsetCommit(
    o: ProducerFields & { groupId: string; topics: { topic: string; partitions: { partition: number; offset: string; metadata: string | null }[] }[] },
  ): Promise<unknown>;
  endTxn(o: ProducerFields & { transactionResult: boolean }): Promise<unknown>;
  /** Committed offsets of a group; `topics: []` asks for every topic the group has offsets for. */
  offsetFetch(o: {
    groupId: string;
    topics: { topic: string; partitions: { partition: number }[] }[];
  }): Promise<{ responses: { topic: string; partitions: { partition: number; offset: string; metadata: string | null }[] }[] }>;
}

const ISOLATION = { read_uncommitted: 0, read_committed: 1 } as const;

export function isolationCode(level: KafkaConnectionOptions["isolationLevel"]): number {
  return ISOLATION[level];
}

/**
 * kafkajs log lines go to stderr at error level only; Sluice reports the rest itself. Errors of
 * connections and of the broker pool (a broker's error answer, a refused connection, a request
 * that timed out) are not logged: the request's caller gets them as errors and retries them or
 * reports them, naming the broker and the option that bounds the wait.
 */
const logCreator = () => (entry: { namespace: string; level: number; log: { message: string } }) => {
  if (entry.level > LOG_ERROR || entry.namespace === "Connection" || entry.namespace === "BrokerPool" || entry.namespace.startsWith("SaslAuthenticator")) return;
  console.error(`[kafka ${entry.namespace}] ${entry.log.message}`);
};

/**
 * A kafkajs error in words a user can act on: the error kafkajs gave up on rather than its
 * "retries exceeded" wrapper, and for a request that timed out, the option that set the wait.
 */
export function describeKafkaError(error: unknown, connection: Pick<KafkaConnectionOptions, "requestTimeoutMs" | "security">): string {
  let e = error as { name?: string; message?: string; originalError?: unknown } | null;
  while (e?.name === "KafkaJSNumberOfRetriesExceeded" && e.originalError) e = e.originalError as typeof e;
  const message = tidyOpenSslMessage(e?.message ?? String(error));
  if (e?.name === "KafkaJSRequestTimeoutError") return `${message} after ${connection.requestTimeoutMs} ms (kafka.request.timeout.ms)`;
  const failure = securityFailure(error, connection.security);
  // An error from openCluster already carries its hint.
  return failure && !message.includes(failure.hint) ? `${message}: ${failure.hint}` : message;
}

/**
 * OpenSSL's error lines as Node passes them on ("80AC...:error:0A000412:SSL routines:
 * ssl3_read_bytes:sslv3 alert bad certificate:../deps/openssl/...:1601:SSL alert number 42"),
 * reduced to the reason and the alert.
 */
function tidyOpenSslMessage(message: string): string {
  return message.replace(/[0-9A-F]{8,}:error:[0-9A-F]+:SSL routines:[^:]*:([^:]+):[^\n]*?(?:SSL alert number (\d+))?\s*$/, (_, reason: string, alert?: string) =>
    alert ? `${reason} (TLS alert ${alert})` : reason,
  );
}

/**
 * Opens sockets for kafkajs: TLS when `ssl` is set, with SNI only for host names (RFC 6066
 * forbids an IP address there). Keep-alive probes find a broker that vanished without a FIN.
 * Plaintext connections without SASL read whole responses into buffers of their size
 * (./framed-socket.ts).
 */
export function socketFactory(security: KafkaSecurity) {
  const framed = security.protocol === "PLAINTEXT";
  return ({ host, port, ssl, onConnect }: { host: string; port: number; ssl: tls.ConnectionOptions | null; onConnect: () => void }) => {
    const socket = ssl
      ? tls.connect({ host, port, ...(net.isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
      : framed
        ? connectFramed(host, port, onConnect)
        : net.connect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    socket.setNoDelay(true);
    return socket;
  };
}

/**
 * Adds `topics` to the metadata the cluster keeps. kafkajs refreshes the metadata of every topic
 * it was ever asked about, so once one of them is deleted every later refresh fails with
 * UNKNOWN_TOPIC_OR_PARTITION, whatever topic the caller wants: the deleted ones are found one by
 * one, forgotten, and the add is tried again. After that an error means one of `topics` itself
 * does not exist.
 */
export async function trackTopics(cluster: KafkaCluster, topics: readonly string[]): Promise<void> {
  try {
    await cluster.addMultipleTargetTopics([...topics]);
    return;
  } catch (e) {
    if ((e as { type?: string }).type !== "UNKNOWN_TOPIC_OR_PARTITION") throw e;
  }
  const tracked = (cluster as unknown as { targetTopics: Set<string> }).targetTopics;
  for (const topic of [...tracked]) {
    try {
      await cluster.metadata({ topics: [topic] });
    } catch (e) {
      if ((e as { type?: string }).type !== "UNKNOWN_TOPIC_OR_PARTITION") throw e;
      tracked.delete(topic);
    }
  }
  await cluster.addMultipleTargetTopics([...topics]);
  // The probes above left metadata for single topics behind: load every tracked topic's again.
  await cluster.refreshMetadata();
}

const clusters = new Map<string, Promise<KafkaCluster>>();

export function clusterFor(options: KafkaConnectionOptions): Promise<KafkaCluster> {
  const key = JSON.stringify(options);
  let cluster = clusters.get(key);
  if (!cluster) {
    cluster = openCluster(options);
    clusters.set(key, cluster);
    // A failed connection is not cached: the next task tries again.
    cluster.catch(() => clusters.delete(key));
  }
  return cluster;
}

/**
 * Settings for a kafkajs client (producer or admin) with these connection options: the same
 * sockets, TLS and SASL as Sluice's own cluster connections, and only error-level logs.
 */
export async function kafkaClientConfig(o: KafkaConnectionOptions, clientId = o.clientId): Promise<KafkaConfig> {
  return {
    brokers: o.bootstrapServers.split(",").map((b) => b.trim()),
    clientId,
    connectionTimeout: o.connectionTimeoutMs,
    requestTimeout: o.requestTimeoutMs,
    logLevel: LOG_ERROR as KafkaConfig["logLevel"],
    logCreator,
    socketFactory: socketFactory(o.security) as unknown as KafkaConfig["socketFactory"],
    ...(await clientSecurity(o.security)),
  } as KafkaConfig;
}

/** A connected cluster that the caller owns and disconnects (not shared through `clusterFor`). */
export async function openCluster(o: KafkaConnectionOptions): Promise<KafkaCluster> {
  const security = await clientSecurity(o.security);
  const { Cluster, createLogger } = await loadKafkajs();
  const cluster = new Cluster({
    logger: createLogger({ level: LOG_ERROR, logCreator }),
    socketFactory: socketFactory(o.security),
    ...security,
    brokers: o.bootstrapServers.split(",").map((b) => b.trim()),
    clientId: o.clientId,
    connectionTimeout: o.connectionTimeoutMs,
    requestTimeout: o.requestTimeoutMs,
    enforceRequestTimeout: true,
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 2000 },
    allowAutoTopicCreation: o.allowAutoTopicCreation ?? false,
    metadataMaxAge: o.metadataMaxAgeMs ?? 0,
    isolationLevel: isolationCode(o.isolationLevel),
    offsets: new Map(),
  });
  try {
    await cluster.connect();
  } catch (e) {
    const message = `cannot connect to Kafka at ${o.bootstrapServers}${o.security.protocol === "PLAINTEXT" ? "" : ` over ${describeSecurity(o.security)}`}: ${describeKafkaError(e, o)}`;
    throw securityFailure(e, o.security)?.definitive ? new KafkaSecurityError(message, { cause: e }) : new SluiceError(message, { cause: e });
  }
  return cluster;
}

/**
 * Drops this thread's cluster for `options` after a failure that may have left its connections
 * broken or stuck (a broker killed, frozen or restarted): the next `clusterFor` connects afresh.
 * The old one is disconnected in the background, as kafkajs waits for requests in flight (each
 * bounded by kafka.request.timeout.ms) before it closes a connection.
 */
export function forgetCluster(options: KafkaConnectionOptions): void {
  const key = JSON.stringify(options);
  const cluster = clusters.get(key);
  if (!cluster) return;
  clusters.delete(key);
  disconnectLater(cluster);
}

/** Disconnects a cluster without waiting for it; its failures are of no interest any more. */
export function disconnectLater(cluster: Promise<KafkaCluster>): void {
  cluster.then((c) => c.disconnect()).catch(() => undefined);
}

/** Closes every cluster this thread opened (query stop, worker exit). */
export async function closeClusters(): Promise<void> {
  const all = [...clusters.values()];
  clusters.clear();
  await Promise.all(all.map((c) => c.then((x) => x.disconnect()).catch(() => undefined)));
}
