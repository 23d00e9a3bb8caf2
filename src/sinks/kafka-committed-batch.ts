/**
 * How the exactly-once Kafka sink knows which batches reached Kafka: each batch's transaction
 * also commits, for the consumer group named after the transactional id, an offset whose value is
 * the batch id and whose metadata names the query (as Kafka Streams commits its input offsets in
 * its output transaction). The offset becomes visible exactly when the records do, so on open the
 * group's committed offsets say up to which batch the query's output is in Kafka.
 *
 * Offsets are committed for a topic-partition the broker knows (it refuses others): partition 0
 * of the batch's first topic, which exists whenever the batch could be written. A query writing to
 * several topics leaves one entry per topic; the newest batch id among them counts. Entries whose
 * metadata names another query (a transactional id prefix reused by a new query, on a new
 * checkpoint) say nothing about this one and are ignored.
 *
 * Kafka drops a group's committed offsets once the group has had no commit for
 * offsets.retention.minutes (7 days by default): a query stopped for longer than that forgets
 * which batch it wrote last, and a batch re-run just after such a pause is written again.
 */

/** The consumer group holding the sink task's last committed batch id. */
export function batchGroupOf(transactionalId: string): string {
  return transactionalId;
}

/** The partition the batch id is committed for. */
export const RECORD_PARTITION = 0;

interface BatchMetadata {
  readonly sluiceQueryId: string;
  readonly batchId: number;
}

/** The TxnOffsetCommit entry recording that `batchId` of `queryId` was written to `topic`. */
export function batchCommitEntry(queryId: string, batchId: number, topic: string) {
  const metadata: BatchMetadata = { sluiceQueryId: queryId, batchId };
  return { topic, partitions: [{ partition: RECORD_PARTITION, offset: String(batchId), metadata: JSON.stringify(metadata) }] };
}

/** The newest batch id of `queryId` among a group's committed offsets, or -1 when none was committed. */
export function lastCommittedBatch(committed: readonly { partitions: readonly { offset: string; metadata: string | null }[] }[], queryId: string): number {
  let last = -1;
  for (const topic of committed) {
    for (const p of topic.partitions) {
      const meta = parseMetadata(p.metadata);
      // The offset and the metadata are written together; an entry where they disagree is not Sluice's.
      if (meta === null || meta.sluiceQueryId !== queryId || String(meta.batchId) !== p.offset) continue;
      if (meta.batchId > last) last = meta.batchId;
    }
  }
  return last;
}

function parseMetadata(text: string | null): BatchMetadata | null {
  if (text === null || !text.startsWith("{")) return null;
  try {
    const v = JSON.parse(text) as Partial<BatchMetadata>;
    return typeof v.sluiceQueryId === "string" && Number.isSafeInteger(v.batchId) && v.batchId! >= 0 ? (v as BatchMetadata) : null;
  } catch {
    return null;
  }
}
