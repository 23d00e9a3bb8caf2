import type { BatchLog } from "../checkpoint/batch-log.js";
import type { CheckpointLock } from "../checkpoint/checkpoint-lock.js";
import { ConcurrentModificationError } from "../errors/errors.js";

/** The run writing a checkpoint's logs, as its errors name it. */
export interface LogWriter {
  readonly lock: CheckpointLock;
  readonly checkpointRoot: string;
  readonly queryId: string;
  readonly runId: string;
}

/**
 * Writes a log entry this run is the only one to write. An entry that is already there was
 * written by another run on this checkpoint: stop rather than process a batch twice.
 */
export async function addOwnLogEntry<T>(writer: LogWriter, log: BatchLog<T>, batchId: number, entry: T): Promise<void> {
  writer.lock.verify();
  if (!(await log.add(batchId, entry))) {
    throw new ConcurrentModificationError(
      `Multiple streaming queries are concurrently using ${writer.checkpointRoot}: ${log.fileOf(batchId)} was written by another run while this one ` +
        `(query ${writer.queryId}, run ${writer.runId}) ran batch ${batchId}; this run stops`,
    );
  }
}
