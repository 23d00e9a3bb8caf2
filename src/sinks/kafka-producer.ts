import { SluiceError } from "../errors/errors.js";
import type { KafkaCluster } from "../sources/kafka/kafka-cluster.js";
import { kafkaError, ProduceError, produceRaw, type ProducePartition, type ProducePartitionResult } from "../sources/kafka/produce-raw.js";
import { restampProducer } from "../sources/kafka/record-batch/encode-rows.js";

/**
 * Sends encoded record batches as an idempotent Kafka producer: every batch carries the producer
 * id, epoch and the partition's next sequence number, so a batch sent again after a lost response
 * or a leader change is recognised by the broker and written once. One batch per partition is in
 * flight at a time (which keeps each partition's order and sequence), several partitions share a
 * Produce request to their leader, and at most `maxInFlightRequests` requests are outstanding.
 * Retriable errors refresh metadata and retry with backoff, a bounded number of times; batches are
 * encoded only when about to be sent, so encoding overlaps with the broker's work.
 *
 * The producer id comes from a `ProducerIdentitySource`: by default one InitProducerId without a
 * transactional id, taken again whenever the broker lost or rejected the current one. The Kafka
 * sink's exactly-once mode passes its transaction's id instead, which may not be replaced: there
 * a rejected id fails the write (another producer took the transactional id over).
 */

export interface ProducerStamp {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
}

export interface OutgoingBatch {
  readonly topic: string;
  readonly partition: number;
  readonly count: number;
  /** Encoded size in bytes, for sizing requests. */
  readonly size: number;
  readonly encode: (stamp: ProducerStamp) => Uint8Array;
}

export interface ProducerIdentity {
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

/** Where a producer's id and epoch come from. */
export interface ProducerIdentitySource {
  /** Sent with every Produce request: null for an idempotent producer, the id for a transactional one. */
  readonly transactionalId: string | null;
  /** The id and epoch to write under: asked before the first batch and after each `refused` that returned null. */
  acquire(): Promise<ProducerIdentity>;
  /**
   * The broker refused a batch with `code` (OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH,
   * UNKNOWN_PRODUCER_ID, PRODUCER_FENCED): null to acquire a new id and send again, or the error
   * that fails the write.
   */
  refused(code: number, partition: string): Error | null;
}

export interface ProducerSettings {
  /** Named in errors. */
  readonly bootstrapServers: string;
  readonly maxInFlightRequests: number;
  readonly maxRequestBytes: number;
  /** Attempts after the first, per batch. */
  readonly retries: number;
  readonly retryBackoffMs: number;
  readonly maxRetryBackoffMs: number;
  readonly timeoutMs: number;
}

interface Lane {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  readonly batches: OutgoingBatch[];
  next: number;
  busy: boolean;
  attempts: number;
  notBefore: number;
  encoded: Uint8Array | null;
  /** The producer generation `encoded` is stamped for. */
  stampedFor: number;
}

interface Identity {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly generation: number;
}

const DUPLICATE_SEQUENCE_NUMBER = 46;
/** The broker lost or rejected this producer's state: the identity source decides what follows. */
const NEW_PRODUCER_ID = new Set([45 /* OUT_OF_ORDER_SEQUENCE_NUMBER */, 47 /* INVALID_PRODUCER_EPOCH */, 59 /* UNKNOWN_PRODUCER_ID */, 90 /* PRODUCER_FENCED */]);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class IdempotentBatchProducer {
  private identity: Identity | null = null;
  private generation = 0;
  private needNewIdentity = true;
  private staleMetadata = false;
  /** Next sequence number per topic-partition under the current identity. */
  private readonly sequences = new Map<string, number>();
  private readonly source: ProducerIdentitySource;

  constructor(
    private readonly cluster: KafkaCluster,
    private readonly settings: ProducerSettings,
    source?: ProducerIdentitySource,
  ) {
    this.source = source ?? idempotentIdentity(cluster, settings);
  }

  /** Sends every batch (in order within each partition); resolves once all are acknowledged by all in-sync replicas. */
  async send(batches: readonly OutgoingBatch[]): Promise<void> {
    try {
      await this.run(batches);
    } catch (e) {
      // A batch that failed for good leaves a gap in its partition's sequence: start afresh next time.
      this.needNewIdentity = true;
      throw e;
    }
  }

  private async run(batches: readonly OutgoingBatch[]): Promise<void> {
    const lanes = lanesOf(batches);
    const inflight = new Set<Promise<void>>();
    let failure: unknown = null;
    while (failure === null) {
      const now = Date.now();
      let request: { leader: number; lanes: Lane[] } | null = null;
      try {
        if (this.needNewIdentity) await this.newIdentity();
        if (this.staleMetadata) await this.refreshMetadata();
        if (inflight.size < this.settings.maxInFlightRequests) request = this.pick(lanes, now);
      } catch (e) {
        failure = e;
        break;
      }
      if (request) {
        const sent: Promise<void> = this.dispatch(request.leader, request.lanes)
          .catch((e: unknown) => {
            failure ??= e;
          })
          .finally(() => inflight.delete(sent));
        inflight.add(sent);
        continue;
      }
      if (inflight.size === 0 && lanes.every((l) => l.next === l.batches.length)) break;
      const waits: Promise<void>[] = [...inflight];
      let wake = Infinity;
      for (const l of lanes) if (!l.busy && l.next < l.batches.length && l.notBefore < wake) wake = l.notBefore;
      if (wake !== Infinity) waits.push(sleep(Math.max(1, wake - now)));
      await Promise.race(waits);
    }
    await Promise.allSettled([...inflight]);
    if (failure !== null) throw failure;
  }

  /** Ready lanes sharing the first ready lane's leader, up to maxRequestBytes; their head batches are stamped. */
  private pick(lanes: Lane[], now: number): { leader: number; lanes: Lane[] } | null {
    let leader = -1;
    let bytes = 0;
    const picked: Lane[] = [];
    for (const lane of lanes) {
      if (lane.busy || lane.next === lane.batches.length || lane.notBefore > now) continue;
      const laneLeader = this.leaderOf(lane);
      if (laneLeader < 0) {
        this.staleMetadata = true;
        this.retryLater(lane, "LEADER_NOT_AVAILABLE (the partition has no leader)", now);
        continue;
      }
      if (leader >= 0 && laneLeader !== leader) continue;
      const size = lane.batches[lane.next]!.size;
      if (picked.length > 0 && bytes + size > this.settings.maxRequestBytes) break;
      leader = laneLeader;
      bytes += size;
      picked.push(lane);
    }
    if (picked.length === 0) return null;
    for (const lane of picked) {
      lane.busy = true;
      this.stamp(lane);
    }
    return { leader, lanes: picked };
  }

  private leaderOf(lane: Lane): number {
    try {
      return this.cluster.findTopicPartitionMetadata(lane.topic).find((p) => p.partitionId === lane.partition)?.leader ?? -1;
    } catch {
      return -1;
    }
  }

  /** Encodes the head batch for the current producer id, or re-stamps it after a new one. */
  private stamp(lane: Lane): void {
    const identity = this.identity!;
    if (lane.encoded !== null && lane.stampedFor === identity.generation) return; // a retry: same sequence
    const batch = lane.batches[lane.next]!;
    const baseSequence = this.sequences.get(lane.key) ?? 0;
    this.sequences.set(lane.key, incrementSequence(baseSequence, batch.count));
    const stamp = { producerId: identity.producerId, producerEpoch: identity.producerEpoch, baseSequence };
    lane.encoded = lane.encoded === null ? batch.encode(stamp) : restampProducer(lane.encoded, stamp);
    lane.stampedFor = identity.generation;
  }

  private async dispatch(leader: number, lanes: Lane[]): Promise<void> {
    let results: readonly ProducePartitionResult[];
    try {
      const broker = await this.cluster.findBroker({ nodeId: leader });
      const parts: ProducePartition[] = lanes.map((l) => ({ topic: l.topic, partition: l.partition, batch: l.encoded! }));
      results = await produceRaw(broker, parts, { timeoutMs: this.settings.timeoutMs, transactionalId: this.source.transactionalId });
    } catch (e) {
      if (!(e instanceof ProduceError)) {
        // No answer (connection lost, timeout): the batches may or may not be written; sending them
        // again under the same sequence numbers lets the broker drop what it already has.
        this.staleMetadata = true;
        for (const lane of lanes) this.retryLater(lane, (e as Error).message, Date.now(), e);
        return;
      }
      results = e.results;
    } finally {
      for (const lane of lanes) lane.busy = false;
    }
    const now = Date.now();
    for (const lane of lanes) {
      const result = results.find((r) => r.topic === lane.topic && r.partition === lane.partition);
      const code = result ? result.errorCode : -1;
      if (code === 0 || code === DUPLICATE_SEQUENCE_NUMBER) {
        lane.next++;
        lane.attempts = 0;
        lane.encoded = null;
        continue;
      }
      const error = kafkaError(code);
      const text = `${error.name} (${error.message})`;
      if (NEW_PRODUCER_ID.has(code)) {
        const fatal = this.source.refused(code, `${lane.topic}-${lane.partition}`);
        if (fatal) throw fatal;
        this.needNewIdentity = true;
        this.retryLater(lane, text, now);
      } else if (error.retriable || code === -1) {
        this.staleMetadata = true;
        this.retryLater(lane, code === -1 ? "no result for the partition in the Produce response" : text, now);
      } else {
        const batch = lane.batches[lane.next]!;
        const hint =
          error.name === "MESSAGE_TOO_LARGE" ? `: the ${lane.encoded?.length ?? batch.size}-byte record batch (${batch.count} records) is larger than the topic's max.message.bytes` : "";
        throw new SluiceError(`writing to ${lane.topic}-${lane.partition} on Kafka at ${this.settings.bootstrapServers} failed: ${text}${hint}`);
      }
    }
  }

  private retryLater(lane: Lane, reason: string, now: number, cause?: unknown): void {
    lane.attempts++;
    if (lane.attempts > this.settings.retries) {
      throw new SluiceError(
        `cannot write to Kafka at ${this.settings.bootstrapServers}: ${lane.topic}-${lane.partition} still failing after ${lane.attempts} attempts: ${reason}`,
        { cause },
      );
    }
    lane.notBefore = now + backoff(this.settings, lane.attempts - 1);
  }

  private async refreshMetadata(): Promise<void> {
    this.staleMetadata = false;
    try {
      await this.cluster.refreshMetadata();
    } catch {
      // The failed lanes wait out their backoff and try again; their retry bound ends it.
      this.staleMetadata = true;
    }
  }

  private async newIdentity(): Promise<void> {
    const { producerId, producerEpoch } = await this.source.acquire();
    this.identity = { producerId, producerEpoch, generation: ++this.generation };
    this.sequences.clear();
    this.needNewIdentity = false;
  }
}

/** An idempotent producer's identity: InitProducerId without a transactional id, from any broker, with bounded retries. */
function idempotentIdentity(cluster: KafkaCluster, settings: ProducerSettings): ProducerIdentitySource {
  return {
    transactionalId: null,
    refused: () => null,
    async acquire() {
      for (let attempt = 0; ; attempt++) {
        try {
          const broker = await cluster.findControllerBroker();
          const r = await broker.initProducerId({ transactionTimeout: 60_000 });
          return { producerId: BigInt(r.producerId), producerEpoch: r.producerEpoch };
        } catch (e) {
          const retriable = (e as { retriable?: boolean }).retriable !== false;
          if (!retriable || attempt >= settings.retries) {
            throw new SluiceError(`cannot get a producer id from Kafka at ${settings.bootstrapServers}: ${(e as Error).message}`, { cause: e });
          }
          await sleep(backoff(settings, attempt));
          await cluster.refreshMetadata().catch(() => undefined);
        }
      }
    },
  };
}

/** Exponential backoff: retryBackoffMs doubled per attempt, capped at maxRetryBackoffMs. */
export function backoff(settings: Pick<ProducerSettings, "retryBackoffMs" | "maxRetryBackoffMs">, attempt: number): number {
  return Math.min(settings.maxRetryBackoffMs, settings.retryBackoffMs * 2 ** attempt);
}

function lanesOf(batches: readonly OutgoingBatch[]): Lane[] {
  const lanes = new Map<string, Lane>();
  for (const b of batches) {
    const key = `${b.topic}\u0000${b.partition}`;
    let lane = lanes.get(key);
    if (!lane) {
      lane = { topic: b.topic, partition: b.partition, key, batches: [], next: 0, busy: false, attempts: 0, notBefore: 0, encoded: null, stampedFor: -1 };
      lanes.set(key, lane);
    }
    lane.batches.push(b);
  }
  return [...lanes.values()];
}

/** Kafka's sequence arithmetic: sequence numbers wrap to 0 after 2^31 - 1. */
export function incrementSequence(sequence: number, increment: number): number {
  const max = 2147483647;
  return sequence > max - increment ? increment - (max - sequence) - 1 : sequence + increment;
}
