import { OptionError, SluiceError } from "../errors/errors.js";
import type { KafkaBroker, KafkaCluster } from "../sources/kafka/kafka-cluster.js";
import { kafkaError } from "../sources/kafka/produce-raw.js";
import { backoff, type ProducerIdentity } from "./kafka-producer.js";

/**
 * The coordinator side of one Kafka transactional id: InitProducerId, AddPartitionsToTxn,
 * AddOffsetsToTxn and EndTxn go to the transaction coordinator, TxnOffsetCommit and OffsetFetch
 * to the group coordinator, each found with FindCoordinator and found again when it moves. Every
 * call has a budget: at most `retries` attempts after the first and `maxBlockMs` in all (Kafka's
 * max.block.ms), each request bounded by the connection's request timeout. Errors name the
 * request, the broker that answered it and the transactional id.
 */

export interface TransactionSettings {
  /** Named in errors when no coordinator answered. */
  readonly bootstrapServers: string;
  readonly transactionalId: string;
  readonly transactionTimeoutMs: number;
  /** Attempts after the first, per request. */
  readonly retries: number;
  readonly retryBackoffMs: number;
  readonly maxRetryBackoffMs: number;
  /** How long one request may take in all, retries included (Kafka's max.block.ms). */
  readonly maxBlockMs: number;
}

/** A newer producer holds the transactional id: this one may write no more. */
export class ProducerFencedError extends SluiceError {
  override name = "ProducerFencedError";
}

const COORDINATOR = { GROUP: 0, TRANSACTION: 1 } as const;
type CoordinatorType = (typeof COORDINATOR)[keyof typeof COORDINATOR];

/** Kafka error codes the calls below act on. */
const CODE = {
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_PRODUCER_ID_MAPPING: 49,
  INVALID_TRANSACTION_TIMEOUT: 50,
  CONCURRENT_TRANSACTIONS: 51,
  PRODUCER_FENCED: 90,
} as const;

/** The coordinator moved or is still loading its state: find it again and retry. */
const COORDINATOR_MOVED = new Set<number>([CODE.COORDINATOR_LOAD_IN_PROGRESS, CODE.COORDINATOR_NOT_AVAILABLE, CODE.NOT_COORDINATOR]);

/** A newer producer took the transactional id (Kafka answers older request versions with INVALID_PRODUCER_EPOCH). */
export const FENCED_CODES: ReadonlySet<number> = new Set<number>([CODE.INVALID_PRODUCER_EPOCH, CODE.PRODUCER_FENCED]);

/**
 * CONCURRENT_TRANSACTIONS: the previous transaction's markers are still being written. The next
 * batch's first request meets it whenever batches follow each other closely, and it clears
 * within milliseconds (one broker on a busy 2-core machine, back-to-back 10-row batches: 25 ms
 * each when retried after 20 ms as Kafka's producer does, 10 ms with this), so it is retried
 * after 2 ms, doubling up to retryBackoffMs, bounded by maxBlockMs rather than by the attempt count.
 */
const CONCURRENT_TRANSACTIONS_FIRST_BACKOFF_MS = 2;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A kafkajs error's Kafka error code; codes newer than kafkajs's table come as "Unknown error code N". */
function kafkaCodeOf(e: unknown): number | null {
  const code = (e as { code?: unknown }).code;
  if (typeof code !== "number") return null;
  if (code !== -99) return code;
  const m = /^Unknown error code (\d+)$/.exec((e as Error).message);
  return m ? Number(m[1]) : null;
}

function describeError(e: unknown): string {
  const code = kafkaCodeOf(e);
  if (code !== null) {
    const k = kafkaError(code);
    return `${k.name} (${k.message})`;
  }
  return (e as Error).message;
}

function retriable(e: unknown): boolean {
  const code = kafkaCodeOf(e);
  if (code === CODE.CONCURRENT_TRANSACTIONS || (code !== null && COORDINATOR_MOVED.has(code))) return true;
  // kafkajs gives up a coordinator lookup after its own few retries; Sluice's budget decides.
  if ((e as Error).name === "KafkaJSNumberOfRetriesExceeded") return true;
  return (e as { retriable?: boolean }).retriable !== false;
}

export class KafkaTransactions {
  private identity: ProducerIdentity | null = null;
  private readonly coordinators = new Map<string, Promise<KafkaBroker>>();

  constructor(
    private readonly cluster: KafkaCluster,
    private readonly settings: TransactionSettings,
  ) {}

  /** The producer id and epoch `init` got. */
  get producer(): ProducerIdentity {
    if (!this.identity) throw new SluiceError(`transactional id "${this.settings.transactionalId}": InitProducerId has not run`);
    return this.identity;
  }

  /**
   * InitProducerId for the transactional id: the coordinator bumps the epoch, which fences every
   * older producer of the id, and first finishes whatever transaction a predecessor left: one
   * that asked to commit is committed, one still open is aborted (meanwhile it answers
   * CONCURRENT_TRANSACTIONS, retried here).
   */
  async init(): Promise<ProducerIdentity> {
    const { transactionalId, transactionTimeoutMs } = this.settings;
    const r = await this.call("InitProducerId", COORDINATOR.TRANSACTION, transactionalId, (b) =>
      b.initProducerId({ transactionalId, transactionTimeout: transactionTimeoutMs }),
    );
    this.identity = { producerId: BigInt(r.producerId), producerEpoch: r.producerEpoch };
    return this.identity;
  }

  /** AddPartitionsToTxn: the partitions the transaction writes to, before anything is produced to them. */
  async addPartitions(topics: { topic: string; partitions: number[] }[]): Promise<void> {
    await this.call("AddPartitionsToTxn", COORDINATOR.TRANSACTION, this.settings.transactionalId, (b) => b.addPartitionsToTxn({ ...this.fields(), topics }));
  }

  /** AddOffsetsToTxn: the group whose offsets the transaction commits. */
  async addOffsets(groupId: string): Promise<void> {
    await this.call("AddOffsetsToTxn", COORDINATOR.TRANSACTION, this.settings.transactionalId, (b) => b.addOffsetsToTxn({ ...this.fields(), groupId }));
  }

  /** TxnOffsetCommit: offsets that become the group's committed offsets when, and only if, the transaction commits. */
  async commitOffsets(groupId: string, topics: { topic: string; partitions: { partition: number; offset: string; metadata: string | null }[] }[]): Promise<void> {
    await this.call("TxnOffsetCommit", COORDINATOR.GROUP, groupId, (b) => b.txnOffsetCommit({ ...this.fields(), groupId, topics }));
  }

  /** EndTxn: commits or aborts. Sent again after a lost answer, it is answered as the first was. */
  async end(commit: boolean): Promise<void> {
    await this.call(commit ? "EndTxn(commit)" : "EndTxn(abort)", COORDINATOR.TRANSACTION, this.settings.transactionalId, (b) =>
      b.endTxn({ ...this.fields(), transactionResult: commit }),
    );
  }

  /** OffsetFetch of every committed offset of a group (none when the group has none). */
  async fetchOffsets(groupId: string): Promise<{ topic: string; partitions: { partition: number; offset: string; metadata: string | null }[] }[]> {
    const r = await this.call("OffsetFetch", COORDINATOR.GROUP, groupId, (b) => b.offsetFetch({ groupId, topics: [] }));
    return r.responses;
  }

  private fields() {
    const { producerId, producerEpoch } = this.producer;
    return { transactionalId: this.settings.transactionalId, producerId: String(producerId), producerEpoch };
  }

  private coordinator(type: CoordinatorType, key: string): Promise<KafkaBroker> {
    const id = `${type}:${key}`;
    let broker = this.coordinators.get(id);
    if (!broker) {
      broker = this.cluster.findGroupCoordinator({ groupId: key, coordinatorType: type });
      this.coordinators.set(id, broker);
      broker.catch(() => this.coordinators.delete(id));
    }
    return broker;
  }

  private async call<T>(what: string, type: CoordinatorType, key: string, send: (broker: KafkaBroker) => Promise<T>): Promise<T> {
    const { retries, maxBlockMs, transactionalId } = this.settings;
    const deadline = Date.now() + maxBlockMs;
    let attempt = 0;
    let busy = 0;
    for (;;) {
      let address = this.settings.bootstrapServers;
      try {
        const broker = await this.coordinator(type, key);
        address = broker.brokerAddress;
        return await send(broker);
      } catch (e) {
        const code = kafkaCodeOf(e);
        if (code !== null && FENCED_CODES.has(code)) throw fencedError(transactionalId, `${what} was answered ${kafkaError(code).name} by ${address}`, e);
        if (code === CODE.INVALID_TRANSACTION_TIMEOUT) {
          throw new OptionError(
            `kafka.transaction.timeout.ms=${this.settings.transactionTimeoutMs} is refused by Kafka at ${address} (transactional id "${transactionalId}"): ` +
              "it must not exceed the broker's transaction.max.timeout.ms (900000 ms unless the broker sets it); lower the option or raise transaction.max.timeout.ms on the brokers",
            { cause: e },
          );
        }
        if (code === CODE.INVALID_PRODUCER_ID_MAPPING) {
          // Not retried, and not taken for a fencing: opening again here could fence a run that took over.
          throw new SluiceError(
            `Kafka sink: ${what} for transactional id "${transactionalId}" failed at ${address}: INVALID_PRODUCER_ID_MAPPING: Kafka no longer knows this producer under the id, ` +
              "because the id expired (no transaction for the broker's transactional.id.expiration.ms, 7 days by default) or another run took it over; " +
              "restart the query, which resumes from its checkpoint",
            { cause: e },
          );
        }
        if (code !== null && COORDINATOR_MOVED.has(code)) this.coordinators.delete(`${type}:${key}`);
        const concurrent = code === CODE.CONCURRENT_TRANSACTIONS;
        const wait = concurrent ? Math.min(CONCURRENT_TRANSACTIONS_FIRST_BACKOFF_MS * 2 ** busy, this.settings.retryBackoffMs) : backoff(this.settings, attempt);
        if (!retriable(e) || (!concurrent && attempt >= retries) || Date.now() + wait > deadline) {
          const tries = attempt + busy + 1;
          throw new SluiceError(
            `Kafka sink: ${what} for transactional id "${transactionalId}" failed at ${address}${tries > 1 ? ` after ${tries} attempts` : ""}: ${describeError(e)}`,
            { cause: e },
          );
        }
        if (code === null) {
          // No answer (connection lost, timeout): the coordinator may have moved with its broker.
          this.coordinators.delete(`${type}:${key}`);
          await this.cluster.refreshMetadata().catch(() => undefined);
        }
        await sleep(wait);
        if (concurrent) busy++;
        else attempt++;
      }
    }
  }
}

/** The error a fenced producer fails with: what happened, and what to do about it. */
export function fencedError(transactionalId: string, evidence: string, cause?: unknown): ProducerFencedError {
  return new ProducerFencedError(
    `Kafka sink: another run of this query took over transactional id "${transactionalId}" and fenced this one (${evidence}); ` +
      "this run stops without writing more. Run a query once at a time from one checkpoint, and give different queries different kafka.transactional.id.prefix values",
    { cause },
  );
}
