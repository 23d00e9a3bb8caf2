import type { CheckpointError } from "../errors/errors.js";
import type { FileShard, MaintenanceQueue } from "./file-shard.js";

/**
 * Runs the maintenance passes of a provider's shards (snapshots, deletions, see
 * `FileShard.maintain`) one at a time, after the commit that asked for them has returned: a
 * commit only writes its delta, and the pass's file I/O is asynchronous. A shard asked for again
 * while its pass runs gets one more pass afterwards. Each failed step is handed to `report` and
 * tried again by the next pass.
 */
export class StateMaintenance implements MaintenanceQueue {
  private readonly waiting = new Set<FileShard>();
  private running: Promise<void> | null = null;

  constructor(private readonly report: (error: CheckpointError) => void) {}

  schedule(shard: FileShard): void {
    this.waiting.add(shard);
    this.running ??= this.drain();
  }

  /** Resolves once every pass asked for so far (and any asked for meanwhile) has run. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    try {
      // Off the commit path: the batch goes on (sink, commit log) before the pass starts.
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const shard of this.waiting) {
        this.waiting.delete(shard);
        for (const failure of await shard.maintain()) this.tell(failure);
      }
    } finally {
      this.running = null;
    }
  }

  private tell(failure: CheckpointError): void {
    try {
      this.report(failure);
    } catch (e) {
      // The listener itself failed: the failure still reaches the user as a process warning.
      process.emitWarning(failure);
      process.emitWarning(e as Error);
    }
  }
}
