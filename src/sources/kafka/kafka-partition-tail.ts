import type { Batch } from "../../batch/batch.js";
import type { TaskMetrics } from "../../batch/task-metrics.js";
import { SluiceError } from "../../errors/errors.js";
import { fetchPartitionRaw, KAFKA_ERRORS } from "./fetch-raw.js";
import { keepIdleClient, takeIdleClient } from "./idle-clients.js";
import { isolationCode, openCluster, type KafkaCluster, type KafkaConnectionOptions } from "./kafka-cluster.js";
import { OPEN_END, type KafkaSplit } from "./kafka-split.js";
import { giveBackResponse } from "./framed-socket.js";
import { boundedExchange, decodesHeaders, splitRows, valueBytesFor } from "./read-kafka-split.js";
import { decodeRecordBatchesInto, sinkForRange } from "./record-batch/decode.js";

/** Fetches in a row that found no leader or no partition before a tail gives up. */
const MAX_STALLS = 8;


/**
 * Reads one Kafka partition as records arrive, for real-time mode: each `next` is one long-poll
 * fetch from the partition leader (the broker answers as soon as a record is there, or after
 * `waitMs`), decoded straight into columns and, with a record schema, into the record's fields,
 * as a micro-batch task reads its range (read-kafka-split.ts: the same fetch, decoders and broker
 * timeouts). `offset` is the next offset to read: every record before it has been returned.
 */
export class KafkaPartitionTail {
  private cluster: KafkaCluster | null = null;
  private stalls = 0;
  /** Set when a fetch failed: the connection is closed at the end rather than kept for the next batch. */
  private failed = false;
  /** The next offset to read. */
  offset: number;
  private readonly decodeHeaders: boolean;

  constructor(
    private readonly split: KafkaSplit,
    private readonly metrics: TaskMetrics,
  ) {
    this.offset = split.startOffset;
    this.decodeHeaders = decodesHeaders(split);
  }

  /** The records that arrived after `offset`; null when `waitMs` passed without any. */
  async next(waitMs: number): Promise<Batch | null> {
    try {
      return await this.fetchNext(waitMs);
    } catch (e) {
      this.failed = true;
      throw e;
    }
  }

  private async fetchNext(waitMs: number): Promise<Batch | null> {
    const { topic, partition, connection } = this.split;
    const exchange = <T>(what: string, work: (onLeader: (address: string) => void) => Promise<T>) => boundedExchange(this.split, what, work);
    // Its own connection: a broker answers the requests of one connection in order, so a long
    // poll would hold back the fetches of the other partitions sharing it. The previous batch's
    // tails leave theirs idle for this one (idle-clients.ts).
    const cluster = (this.cluster ??= takeIdleClient<KafkaCluster>(idleKey(connection)) ?? (await exchange(`connection to read ${topic}-${partition}`, () => openCluster(connection))));
    const at = this.offset;
    const raw = await exchange(`fetch of ${topic}-${partition} at offset ${at}`, (onLeader) =>
      fetchPartitionRaw(cluster, { topic, partition, offset: at, maxBytes: this.split.maxPartitionFetchBytes, isolationLevel: isolationCode(connection.isolationLevel), maxWaitMs: waitMs }, onLeader),
    );
    switch (raw.errorCode) {
      case KAFKA_ERRORS.NONE:
        break;
      case KAFKA_ERRORS.OFFSET_OUT_OF_RANGE:
        // Retention removed records before they were read: data loss, as in a micro-batch.
        if (raw.logStartOffset > at) {
          this.lost(`offsets ${at} to ${raw.logStartOffset - 1} were removed (the earliest offset available is ${raw.logStartOffset})`);
          this.offset = raw.logStartOffset;
          return null;
        }
        throw new SluiceError(
          `Some data may have been lost because they are not available in Kafka any more: ${topic}-${partition} has no offset ${at} (its log ends before it: topic recreated or truncated?)`,
        );
      case KAFKA_ERRORS.UNKNOWN_TOPIC_OR_PARTITION:
      case KAFKA_ERRORS.UNKNOWN_TOPIC_ID:
      case KAFKA_ERRORS.NOT_LEADER_OR_FOLLOWER:
        await exchange(`metadata refresh for ${topic}-${partition}`, () => cluster.refreshMetadata());
        if (++this.stalls >= MAX_STALLS) throw new SluiceError(`cannot read ${topic}-${partition}: no leader found for it after ${MAX_STALLS} attempts (Kafka error code ${raw.errorCode})`);
        return null;
      default:
        throw new SluiceError(`Kafka fetch of ${topic}-${partition} at offset ${at} failed with error code ${raw.errorCode}`);
    }
    this.stalls = 0;
    if (raw.records.length === 0) return null;
    // Every fetch of a tail is small and fresh: its response and value buffers come from the
    // thread's pools and go back once decoded, or a worker's tails would start a full collection
    // every few hundred milliseconds (external memory, ../../kernels/bytes-pool.ts).
    const sink = sinkForRange(raw.records, this.decodeHeaders, 0, valueBytesFor(this.split));
    let decoded = decodeRecordBatchesInto(sink, raw.records, {
      topic,
      partition,
      startOffset: at,
      endOffset: OPEN_END,
      isolation: connection.isolationLevel,
      abortedTransactions: raw.abortedTransactions,
      includeHeaders: this.decodeHeaders,
    });
    giveBackResponse(raw.records);
    // A record batch larger than the fetch size comes back cut short: ask for all of it.
    if (decoded.nextOffset === at && decoded.truncatedBatchSize > this.split.maxPartitionFetchBytes) {
      const whole = await exchange(`fetch of ${topic}-${partition} at offset ${at}`, (onLeader) =>
        fetchPartitionRaw(cluster, { topic, partition, offset: at, maxBytes: decoded.truncatedBatchSize, isolationLevel: isolationCode(connection.isolationLevel) }, onLeader),
      );
      decoded = decodeRecordBatchesInto(sink, whole.records, { topic, partition, startOffset: at, endOffset: OPEN_END, isolation: connection.isolationLevel, abortedTransactions: whole.abortedTransactions, includeHeaders: this.decodeHeaders });
      giveBackResponse(whole.records);
    }
    this.offset = Math.max(at, decoded.nextOffset);
    return splitRows(this.split, sink, this.metrics);
  }

  /** Ends the tail: its connection is kept idle for the next batch's tail, or closed if a fetch failed on it. */
  async close(): Promise<void> {
    const cluster = this.cluster;
    this.cluster = null;
    if (cluster === null) return;
    if (this.failed) await cluster.disconnect().catch(() => undefined);
    else await keepIdleClient(idleKey(this.split.connection), cluster, (c) => c.disconnect());
  }

  private lost(what: string): void {
    const message = `Some data may have been lost because they are not available in Kafka any more: ${this.split.topic}-${this.split.partition}: ${what}`;
    if (this.split.failOnDataLoss) throw new SluiceError(`${message}. If you want your streaming query to continue, set the source option "failOnDataLoss" to "false".`);
    console.warn(`${message}; continuing because failOnDataLoss is false`);
  }
}

function idleKey(connection: KafkaConnectionOptions): string {
  return `partition tail ${JSON.stringify(connection)}`;
}
