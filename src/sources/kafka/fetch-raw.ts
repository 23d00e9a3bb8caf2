import { trackTopics, type KafkaCluster } from "./kafka-cluster.js";
import { loadedKafkajs } from "./kafkajs.js";

/**
 * A Fetch (v11) request whose response keeps each partition's record set as raw bytes, so the
 * worker decodes record batches straight into Arrow columns instead of into message objects.
 * The request encoding is kafkajs's; the response parsing is Sluice's.
 */


export interface RawPartitionFetch {
  readonly errorCode: number;
  readonly highWatermark: number;
  readonly lastStableOffset: number;
  readonly logStartOffset: number;
  readonly abortedTransactions: readonly { producerId: bigint; firstOffset: number }[];
  readonly records: Uint8Array;
}

export const KAFKA_ERRORS = {
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  NOT_LEADER_OR_FOLLOWER: 6,
  UNKNOWN_TOPIC_ID: 100,
} as const;

/** Reads Fetch v11 response bodies with a DataView: no per-field objects, records left as bytes. */
class ResponseReader {
  private pos = 0;
  private readonly view: DataView;
  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  int16(): number {
    const v = this.view.getInt16(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }
  int64(): number {
    const v = Number(this.view.getBigInt64(this.pos));
    this.pos += 8;
    return v;
  }
  bigint64(): bigint {
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }
  string(): string {
    const len = this.int16();
    const s = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, len).toString("utf8");
    this.pos += len;
    return s;
  }
  bytes(): Uint8Array {
    const len = this.int32();
    if (len < 0) return new Uint8Array(0);
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
}

function parseFetchV11(payload: Uint8Array): Map<string, RawPartitionFetch> {
  const r = new ResponseReader(payload);
  r.int32(); // throttle_time_ms
  const errorCode = r.int16();
  r.int32(); // session_id
  const out = new Map<string, RawPartitionFetch>();
  if (errorCode !== 0) throw new Error(`Kafka fetch failed with error code ${errorCode}`);
  for (let t = r.int32(); t > 0; t--) {
    const topic = r.string();
    for (let p = r.int32(); p > 0; p--) {
      const partition = r.int32();
      const partErr = r.int16();
      const highWatermark = r.int64();
      const lastStableOffset = r.int64();
      const logStartOffset = r.int64();
      const aborted: { producerId: bigint; firstOffset: number }[] = [];
      for (let a = r.int32(); a > 0; a--) aborted.push({ producerId: r.bigint64(), firstOffset: r.int64() });
      r.int32(); // preferred_read_replica
      const records = r.bytes();
      out.set(`${topic}:${partition}`, { errorCode: partErr, highWatermark, lastStableOffset, logStartOffset, abortedTransactions: aborted, records });
    }
  }
  return out;
}

export interface FetchRequest {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly maxBytes: number;
  readonly isolationLevel: number;
  /**
   * How long the broker may hold the request while the partition has nothing past `offset`
   * (a long poll: it answers as soon as one record arrives). 0 or absent: answer at once.
   */
  readonly maxWaitMs?: number;
}

/**
 * Fetches one partition from its leader, from `offset`, returning the raw record set. `onLeader`
 * hears the leader's host:port before the request goes out, so a caller can say which broker did
 * not answer.
 */
export async function fetchPartitionRaw(cluster: KafkaCluster, req: FetchRequest, onLeader?: (address: string) => void): Promise<RawPartitionFetch> {
  // Loads the topic's metadata once per connection (a no-op when the topic is already known).
  await trackTopics(cluster, [req.topic]);
  const meta = cluster.findTopicPartitionMetadata(req.topic).find((p) => p.partitionId === req.partition);
  if (!meta) return { errorCode: KAFKA_ERRORS.UNKNOWN_TOPIC_OR_PARTITION, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: [], records: new Uint8Array(0) };
  const broker = await cluster.findBroker({ nodeId: meta.leader });
  onLeader?.(`${broker.connectionPool.host}:${broker.connectionPool.port}`);
  const request = loadedKafkajs().fetchV11Request({
    replicaId: -1,
    maxWaitTime: req.maxWaitMs ?? 0,
    minBytes: (req.maxWaitMs ?? 0) > 0 ? 1 : 0,
    maxBytes: req.maxBytes,
    isolationLevel: req.isolationLevel,
    topics: [{ topic: req.topic, partitions: [{ partition: req.partition, fetchOffset: String(req.offset), maxBytes: req.maxBytes }] }],
  });
  const response = { decode: async (payload: Buffer) => parseFetchV11(payload), parse: async (data: unknown) => data };
  // The pool's fetch connection, as ConnectionPool.send would pick it, taking responses whole.
  const connection = await broker.connectionPool.getConnectionByRequest({ request });
  loadedKafkajs().deliverWholeFrames(connection);
  const byPartition = (await connection.send({ request, response })) as Map<string, RawPartitionFetch>;
  const got = byPartition.get(`${req.topic}:${req.partition}`);
  if (!got) throw new Error(`Kafka fetch response has no data for ${req.topic}-${req.partition}`);
  return got;
}
