import * as path from "node:path";
import { SluiceError } from "../errors/errors.js";
import { FileShard } from "./file-shard.js";
import { StateMaintenance } from "./state-maintenance.js";
import { fileStateStoreSettings, type FileStateStoreOptions, type FileStateStoreSettings } from "./state-store-options.js";
import type { StateStore, StateStoreProvider } from "./state-store.js";
import { VersionedStateStore } from "./versioned-store.js";

/**
 * Durable state under `<checkpointLocation>/state/<operatorId>/<partition>/`: a
 * `<version>.delta` per committed version and a `<version>.snapshot` every
 * `minDeltasForSnapshot` versions (Arrow IPC files, see `state-file.ts`), so a new process
 * continues from the last committed version. See `FileShard` for how versions are written,
 * loaded and re-run.
 *
 * A commit encodes its delta and hands it to an asynchronous write; `durable()` resolves once
 * every delta committed so far is on disk (a batch's commit log entry waits for it). Snapshots
 * and deletions run in maintenance passes after the commit, asynchronously too. `flush()` waits
 * for both, and `close()` (when the query stops) waits and then frees the tables the provider
 * keeps: per shard the latest committed one, never the older retained versions, which load from
 * their files.
 *
 * Use, per query run (one provider per checkpoint location and process):
 *
 *   const provider = new FileStateStoreProvider(checkpointLocation, { minBatchesToRetain, minDeltasForSnapshot, onMaintenanceError });
 *   const store = provider.load(operatorId, version);   // version: what the last committed batch left
 *   store.open(schema, operatorKind);                   // e.g. new StatefulAggregateExec(spec, mode, store)
 *   // per batch: the operator works on store.table, then store.commit(next version);
 *   await provider.durable();                           // before the commit log entry is written
 *   // a failed batch calls store.abort()
 *   await provider.close();                             // in stop(): waits for maintenance
 *
 * Versions may be numbered "batch N commits N" (load -1 first) or Spark's "batch N reads N and
 * commits N + 1" (load 0 first). Loading a version older than the latest and committing on top
 * of it (the re-run of a batch the commit log does not hold) replaces the later versions' files.
 */
export class FileStateStoreProvider implements StateStoreProvider {
  readonly settings: FileStateStoreSettings;
  private readonly shards = new Map<string, FileShard>();
  private readonly maintenance: StateMaintenance;
  private closed = false;

  constructor(
    readonly checkpointLocation: string,
    options: FileStateStoreOptions = {},
  ) {
    this.settings = fileStateStoreSettings(options);
    this.maintenance = new StateMaintenance(this.settings.onMaintenanceError ?? ((e) => process.emitWarning(e)));
  }

  get minBatchesToRetain(): number {
    return this.settings.minBatchesToRetain;
  }

  load(operatorId: number, version: number, partition = 0): StateStore {
    return new VersionedStateStore(operatorId, partition, version, this.shard(operatorId, partition));
  }

  latestVersion(operatorId: number, partition = 0): number {
    return this.shard(operatorId, partition).latest();
  }

  /** Resolves once the deltas of every commit so far are on disk; rejects with the first write that failed. */
  async durable(): Promise<void> {
    for (const shard of this.shards.values()) await shard.durable();
  }

  /**
   * Waits for the delta writes and the maintenance passes asked for so far (maintenance failures
   * go to `onMaintenanceError`; a failed delta write rejects, as in `durable()`).
   */
  async flush(): Promise<void> {
    try {
      await this.durable();
    } finally {
      await this.maintenance.idle();
    }
  }

  /** Waits for maintenance, then frees the cached tables; stores of this provider stop working. */
  async close(): Promise<void> {
    // A failed delta write already failed its batch (through durable()); closing only waits for it.
    await this.flush().catch(() => undefined);
    this.closed = true;
    for (const shard of this.shards.values()) shard.close();
    this.shards.clear();
  }

  private shard(operatorId: number, partition: number): FileShard {
    if (this.closed) throw new SluiceError(`the state store provider of ${this.checkpointLocation} was closed: load the state from a new FileStateStoreProvider`);
    const dir = path.join(this.checkpointLocation, "state", String(operatorId), String(partition));
    let shard = this.shards.get(dir);
    if (!shard) {
      shard = new FileShard(dir, operatorId, partition, this.settings, this.maintenance);
      this.shards.set(dir, shard);
    }
    return shard;
  }
}
