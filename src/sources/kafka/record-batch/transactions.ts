/**
 * `read_committed` filtering, as Kafka's own consumer does it. A fetch response lists the aborted
 * transactions that overlap the fetched range, each as (producer id, first offset). Walking the
 * batches in offset order:
 *  - before each batch that has a producer id, every listed transaction whose first offset is at or
 *    below the batch's last offset becomes active: its producer id is now "aborting";
 *  - a control batch holding an ABORT marker ends its producer's aborted transaction;
 *  - a transactional data batch whose producer id is aborting belongs to an aborted transaction and
 *    is dropped whole.
 * Committed transactions need nothing: their data passes, and their COMMIT markers, like all
 * control batches, are never returned as records.
 */

export interface AbortedTransaction {
  readonly producerId: bigint | number;
  readonly firstOffset: number;
}

export class AbortedTransactionFilter {
  private readonly pending: { producerId: bigint; firstOffset: number }[];
  private next = 0;
  private readonly aborting = new Set<bigint>();

  constructor(aborted: readonly AbortedTransaction[]) {
    this.pending = aborted.map((t) => ({ producerId: BigInt(t.producerId), firstOffset: t.firstOffset })).sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** Activates every listed transaction that starts at or before `lastOffset`. */
  advanceTo(lastOffset: number): void {
    while (this.next < this.pending.length && this.pending[this.next]!.firstOffset <= lastOffset) {
      this.aborting.add(this.pending[this.next]!.producerId);
      this.next++;
    }
  }

  isAborting(producerId: bigint): boolean {
    return this.aborting.has(producerId);
  }

  /** An ABORT marker: the producer's aborted transaction ends here. */
  endTransaction(producerId: bigint): void {
    this.aborting.delete(producerId);
  }
}
