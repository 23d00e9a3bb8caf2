import { SluiceError } from "../errors/errors.js";
import { crashPoint } from "../faults/crash-points.js";
import type { KafkaCluster } from "../sources/kafka/kafka-cluster.js";
import { kafkaError } from "../sources/kafka/produce-raw.js";
import { batchCommitEntry, batchGroupOf, lastCommittedBatch } from "./kafka-committed-batch.js";
import { IdempotentBatchProducer, type OutgoingBatch, type ProducerIdentitySource, type ProducerSettings } from "./kafka-producer.js";
import { fencedError, FENCED_CODES, KafkaTransactions, ProducerFencedError } from "./kafka-transactions.js";

/**
 * One sink task's exactly-once writer: every batch is one Kafka transaction under the task's
 * transactional id, holding the batch's records and the commit of its batch id (see
 * kafka-committed-batch.ts).
 *
 *   open:  InitProducerId (fences older producers of the id, finishes their transaction)
 *          -> OffsetFetch: the last batch id that reached Kafka
 *   write: AddPartitionsToTxn + AddOffsetsToTxn -> Produce + TxnOffsetCommit
 *          -> [crash point kafkaSinkBeforeCommit] -> EndTxn(commit) -> [kafkaSinkAfterCommit]
 *
 * A batch whose id is not newer than the last committed one is already in Kafka and is skipped.
 * A write that fails is aborted (EndTxn(abort), or the next InitProducerId when that fails too)
 * and the writer opens again before its next batch. A fenced writer stays failed: opening again
 * would fence the run that took over.
 */

export interface TransactionalWriterSettings extends ProducerSettings {
  readonly transactionalId: string;
  /** Stored with each committed batch id, so that a reused transactional id prefix cannot make a new query skip batches. */
  readonly queryId: string;
  readonly transactionTimeoutMs: number;
  readonly maxBlockMs: number;
}

export class TransactionalTaskWriter {
  private readonly txn: KafkaTransactions;
  /** Made anew at each open: a new epoch starts every partition's sequence at 0. */
  private producer: IdempotentBatchProducer | null = null;
  private readonly group: string;
  private committed = -1;
  private opened = false;
  private fenced: ProducerFencedError | null = null;

  constructor(
    private readonly cluster: KafkaCluster,
    private readonly settings: TransactionalWriterSettings,
  ) {
    this.txn = new KafkaTransactions(cluster, settings);
    this.group = batchGroupOf(settings.transactionalId);
  }

  /** The newest batch id whose transaction committed; -1 when none did. */
  get lastCommittedBatchId(): number {
    return this.committed;
  }

  async open(): Promise<void> {
    if (this.fenced) throw this.fenced;
    await this.txn.init();
    this.producer = new IdempotentBatchProducer(this.cluster, this.settings, this.identitySource());
    this.committed = lastCommittedBatch(await this.txn.fetchOffsets(this.group), this.settings.queryId);
    this.opened = true;
  }

  /** Whether batch `batchId` is already in Kafka (opens first when needed). */
  async hasCommitted(batchId: number): Promise<boolean> {
    if (this.fenced) throw this.fenced;
    if (!this.opened) await this.open();
    return batchId <= this.committed;
  }

  /** Writes a batch's record batches in one transaction with its batch id; `recordTopic` is a topic the batch writes to. */
  async write(batchId: number, batches: readonly OutgoingBatch[], recordTopic: string): Promise<void> {
    if (await this.hasCommitted(batchId)) return;
    const started = Date.now();
    try {
      await settle([this.txn.addPartitions(partitionsOf(batches)), this.txn.addOffsets(this.group)]);
      await settle([this.producer!.send(batches), this.txn.commitOffsets(this.group, [batchCommitEntry(this.settings.queryId, batchId, recordTopic)])]);
      crashPoint("kafkaSinkBeforeCommit", batchId);
      await this.txn.end(true);
    } catch (e) {
      throw await this.failed(batchId, Date.now() - started, e);
    }
    crashPoint("kafkaSinkAfterCommit", batchId);
    this.committed = batchId;
  }

  private async failed(batchId: number, elapsedMs: number, e: unknown): Promise<Error> {
    this.opened = false;
    const { transactionalId, transactionTimeoutMs } = this.settings;
    if (e instanceof ProducerFencedError) {
      // The coordinator aborts a transaction older than its timeout by bumping the epoch, which
      // looks to this producer exactly like being fenced: tell the two apart by the clock.
      if (elapsedMs >= transactionTimeoutMs) {
        return new SluiceError(
          `Kafka sink: the transaction of batch ${batchId} (transactional id "${transactionalId}") ran ${elapsedMs} ms, longer than ` +
            `kafka.transaction.timeout.ms=${transactionTimeoutMs}, and Kafka aborted it: raise kafka.transaction.timeout.ms ` +
            "(up to the broker's transaction.max.timeout.ms) or make batches smaller (maxOffsetsPerTrigger on a Kafka source)",
          { cause: e },
        );
      }
      this.fenced = e;
      return e;
    }
    // Best effort: whatever this leaves open, the next InitProducerId aborts.
    await this.txn.end(false).catch(() => undefined);
    return new SluiceError(`Kafka sink: batch ${batchId} was not written (its transaction under transactional id "${transactionalId}" is aborted): ${(e as Error).message}`, {
      cause: e,
    });
  }

  private identitySource(): ProducerIdentitySource {
    const transactionalId = this.settings.transactionalId;
    return {
      transactionalId,
      acquire: async () => this.txn.producer,
      refused: (code, partition) => {
        const k = kafkaError(code);
        if (FENCED_CODES.has(code)) return fencedError(transactionalId, `Produce to ${partition} was answered ${k.name}`);
        // A transaction cannot continue under a new producer id: the batch is aborted and re-run.
        return new SluiceError(`Kafka at ${this.settings.bootstrapServers} lost the producer state of transactional id "${transactionalId}" for ${partition}: ${k.name} (${k.message})`);
      },
    };
  }
}

function partitionsOf(batches: readonly OutgoingBatch[]): { topic: string; partitions: number[] }[] {
  const byTopic = new Map<string, Set<number>>();
  for (const b of batches) {
    let set = byTopic.get(b.topic);
    if (!set) byTopic.set(b.topic, (set = new Set()));
    set.add(b.partition);
  }
  return [...byTopic].map(([topic, set]) => ({ topic, partitions: [...set].sort((a, b) => a - b) }));
}

/** Waits for every step (none is left running when one fails), then throws the first failure, a fencing first. */
async function settle(steps: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(steps);
  const failures = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
  if (failures.length > 0) throw failures.find((f) => f instanceof ProducerFencedError) ?? failures[0];
}
