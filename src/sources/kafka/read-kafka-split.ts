import { emptyBatch, type Batch } from "../../batch/batch.js";
import { SluiceError } from "../../errors/errors.js";
import type { TaskMetrics } from "../../batch/task-metrics.js";
import { decodeKafkaValues } from "./decode-values.js";
import { fetchPartitionRaw, KAFKA_ERRORS, type RawPartitionFetch } from "./fetch-raw.js";
import { giveBackResponse } from "./framed-socket.js";
import { scanNextOffset } from "./record-batch/scan-next-offset.js";
import { clusterFor, describeKafkaError, forgetCluster, isolationCode, type KafkaCluster } from "./kafka-cluster.js";
import { kafkaFields } from "./kafka-fields.js";
import type { KafkaColumnSink } from "./record-batch/columns.js";
import { decodeRecordBatchesInto, sinkForRange } from "./record-batch/decode.js";
import { giveBackValueBytes, takeValueBytes } from "./record-batch/value-bytes-pool.js";
import type { KafkaSplit } from "./kafka-split.js";
import { timeLimit } from "./time-limit.js";

/** Fetches that made no progress in a row before a task gives up (leader moves, empty responses). */
const MAX_STALLS = 8;

/**
 * Reads one partition's offset range in the worker: fetch responses from the partition leader,
 * their record batches decoded straight into one set of columns for the whole range (sized from
 * the first response), until the range end. Offsets that vanished
 * (retention, deleted topic) are data loss: an error naming topic, partition and offsets, or,
 * with failOnDataLoss=false, a warning and the rest of the range.
 *
 * Every exchange with the broker (connecting, each fetch, each metadata refresh) is bounded by
 * kafkaConsumer.pollTimeoutMs, as Spark bounds each poll of its consumer. A broker that does not
 * answer in time, or whose connection fails, fails the task with an error naming the broker; the
 * thread's connections to the cluster are dropped first, so the worker pool's retry of the task
 * (up to maxTaskAttempts, with backoff) connects afresh, to a broker that may be back.
 */
export async function readKafkaSplit(split: KafkaSplit, metrics: TaskMetrics): Promise<Batch> {
  const { topic, partition, endOffset, connection } = split;
  const exchange = <T>(what: string, work: (onLeader: (address: string) => void) => Promise<T>): Promise<T> => boundedExchange(split, what, work);
  const cluster = await exchange(`connection to read ${topic}-${partition}`, () => clusterFor(connection));
  const isolation = connection.isolationLevel;
  const decodeHeaders = decodesHeaders(split);
  let sink: KafkaColumnSink | null = null;
  let offset = split.startOffset;
  let maxBytes = split.maxPartitionFetchBytes;
  let stalls = 0;

  const lost = (what: string): boolean => {
    const message = `Some data may have been lost because they are not available in Kafka any more: ${topic}-${partition} offsets ${offset} to ${endOffset}: ${what}`;
    if (split.failOnDataLoss) throw new SluiceError(`${message}. If you want your streaming query to continue, set the source option "failOnDataLoss" to "false".`);
    console.warn(`${message}; continuing because failOnDataLoss is false`);
    return false;
  };

  const fetchAt = (at: number) =>
    exchange(`fetch of ${topic}-${partition} at offset ${at}`, (onLeader) =>
      fetchPartitionRaw(cluster, { topic, partition, offset: at, maxBytes, isolationLevel: isolationCode(isolation) }, onLeader),
    );
  const refresh = (c: KafkaCluster) => exchange(`metadata refresh for ${topic}-${partition}`, () => c.refreshMetadata());
  // The next fetch is sent before this one is decoded, so the broker and the network work
  // while the worker decodes.
  let ahead: { offset: number; response: Promise<RawPartitionFetch> } | null = null;

  while (offset < endOffset) {
    const raw = ahead && ahead.offset === offset ? await ahead.response : await fetchAt(offset);
    ahead = null;
    if (raw.errorCode === KAFKA_ERRORS.NONE) {
      const next = scanNextOffset(raw.records, offset);
      if (next > offset && next < endOffset) {
        ahead = { offset: next, response: fetchAt(next) };
        ahead.response.catch(() => undefined);
      }
    }
    if (raw.errorCode === KAFKA_ERRORS.OFFSET_OUT_OF_RANGE) {
      if (raw.logStartOffset > offset && raw.logStartOffset < endOffset) {
        lost(`the earliest offset available is ${raw.logStartOffset}`);
        offset = raw.logStartOffset;
        continue;
      }
      if (!lost("the offsets are out of range")) break;
    }
    if (raw.errorCode === KAFKA_ERRORS.UNKNOWN_TOPIC_OR_PARTITION || raw.errorCode === KAFKA_ERRORS.UNKNOWN_TOPIC_ID) {
      await refresh(cluster).catch(() => undefined);
      if (++stalls >= MAX_STALLS) {
        if (!lost("the topic or partition does not exist (deleted?)")) break;
      }
      continue;
    }
    if (raw.errorCode === KAFKA_ERRORS.NOT_LEADER_OR_FOLLOWER) {
      await refresh(cluster);
      if (++stalls >= MAX_STALLS) throw new SluiceError(`cannot find the leader of ${topic}-${partition}`);
      continue;
    }
    if (raw.errorCode !== KAFKA_ERRORS.NONE) throw new SluiceError(`Kafka fetch of ${topic}-${partition} at offset ${offset} failed with error code ${raw.errorCode}`);

    sink ??= sinkForRange(raw.records, decodeHeaders, endOffset - offset, valueBytesFor(split));
    const decoded = decodeRecordBatchesInto(sink, raw.records, {
      topic,
      partition,
      startOffset: offset,
      endOffset,
      isolation,
      abortedTransactions: raw.abortedTransactions,
      includeHeaders: decodeHeaders,
    });
    // The sink copied what it keeps (keys, values, headers): the response can serve the next fetch.
    giveBackResponse(raw.records);
    if (decoded.nextOffset > offset) {
      offset = decoded.nextOffset;
      stalls = 0;
      continue;
    }
    // No progress: a batch larger than the fetch size, or the range reaches past the log's end.
    if (decoded.truncatedBatchSize > maxBytes) {
      maxBytes = decoded.truncatedBatchSize;
      continue;
    }
    const available = isolation === "read_committed" ? raw.lastStableOffset : raw.highWatermark;
    if (available <= offset) {
      if (!lost(`the log ends at offset ${available}`)) break;
    }
    if (++stalls >= MAX_STALLS) throw new SluiceError(`fetching ${topic}-${partition} from offset ${offset} made no progress`);
  }
  return splitRows(split, sink, metrics);
}

/** Whether a split's records are read with their headers: a dead letter carries its record's own headers, so they are decoded for it even unasked. */
export const decodesHeaders = (split: KafkaSplit): boolean => split.includeHeaders || (split.values?.deadLetterTopic ?? null) !== null;

/**
 * Where a split's raw value bytes are allocated. JSON values decode into columns of their own
 * (strings copied), so the raw value buffer is garbage once they are decoded: it comes from, and
 * goes back to (`splitRows`), the thread's pool. Avro and Protobuf are left out (their decoders
 * are not held to copying), and so are raw values, which the task returns.
 */
export const valueBytesFor = (split: KafkaSplit): ((bytes: number) => Uint8Array) | undefined => (split.values?.format.kind === "json" ? takeValueBytes : undefined);

/**
 * The rows read into `sink` (none: an empty batch): Spark's Kafka columns, or, when the split has
 * a value format, its decoded values beside the other Kafka columns. A pooled value buffer goes
 * back to the pool once decoded: the batch returned never holds the raw values.
 */
export async function splitRows(split: KafkaSplit, sink: KafkaColumnSink | null, metrics: TaskMetrics): Promise<Batch> {
  const { topic, partition } = split;
  const raw = sink ? sink.toBatch(topic, partition) : emptyBatch(kafkaFields(decodesHeaders(split)));
  if (!split.values) return raw;
  const decoded = await decodeKafkaValues(raw, split.values, split.connection, { topic, partition }, split.includeHeaders);
  if (sink && valueBytesFor(split)) giveBackValueBytes(sink.value.bytes);
  metrics.numMalformedRecords += decoded.numMalformed;
  return decoded.batch;
}

/**
 * One exchange with the broker within kafkaConsumer.pollTimeoutMs. On failure the thread forgets
 * its cluster (see readKafkaSplit) and the error names the broker: the partition's leader once the
 * work has found it, else the bootstrap servers.
 */
export async function boundedExchange<T>(split: KafkaSplit, what: string, work: (onLeader: (address: string) => void) => Promise<T>): Promise<T> {
  let broker = split.connection.bootstrapServers;
  // Made only when the time runs out: an error's stack costs more than a fetch of a few records.
  const expiry: { error: SluiceError | null } = { error: null };
  try {
    return await timeLimit(
      work((address) => {
        broker = address;
      }),
      split.pollTimeoutMs,
      () => (expiry.error = new SluiceError(`no answer within ${split.pollTimeoutMs} ms (kafkaConsumer.pollTimeoutMs)`)),
    );
  } catch (e) {
    forgetCluster(split.connection);
    const why = expiry.error !== null && e === expiry.error ? expiry.error.message : describeKafkaError(e, split.connection);
    throw new SluiceError(`Kafka ${what} from broker ${broker} failed: ${why}`, { cause: e });
  }
}
