import { CheckpointError } from "../errors/errors.js";
import { checkShape, type StateShape } from "./state-shape.js";
import { inMemoryStateStoreSettings, type InMemoryStateStoreOptions } from "./state-store-options.js";
import type { StateStore, StateStoreProvider } from "./state-store.js";
import type { StateTable, TableChanges } from "./state-table.js";
import { VersionedStateStore, type ShardHistory } from "./versioned-store.js";

/** Committed versions of one shard, in memory. */
class MemoryShardHistory implements ShardHistory {
  private readonly versions = new Map<number, { table: StateTable; shape: StateShape }>();
  /** Whether version 0 was ever committed (it then holds data rather than the initial state). */
  private committedZero = false;
  readonly description: string;

  constructor(
    id: string,
    private readonly retain: number,
  ) {
    this.description = `memory (shard ${id})`;
  }

  has(version: number): boolean {
    return this.versions.has(version);
  }

  committed(version: number, shape: StateShape): StateTable {
    const kept = this.versions.get(version);
    if (!kept) throw new CheckpointError(`state version ${version} is no longer kept in ${this.description}`);
    checkShape(kept.shape, shape, `version ${version} in ${this.description}`);
    return kept.table;
  }

  /** -1, and 0 unless it was committed (Spark numbers the state of batch N as version N + 1). */
  isInitialVersion(version: number): boolean {
    return version < 0 || (version === 0 && !this.committedZero);
  }

  keptVersions(): number[] {
    return [...this.versions.keys()].sort((a, b) => a - b);
  }

  /** Memory is not durable: nothing to write. */
  write(): void {}

  /**
   * Keeps the versions from `version - minBatchesToRetain` on. Committing version N again (a
   * re-run of batch N) replaces it and drops any later versions.
   */
  keep(version: number, _base: number, working: StateTable, _changes: TableChanges, shape: StateShape): void {
    for (const v of [...this.versions.keys()]) if (v >= version || v < version - this.retain) this.versions.delete(v);
    // Every retained version is a table of its own.
    const table = working.clone();
    table.commitChanges();
    this.versions.set(version, { table, shape });
    if (version === 0) this.committedZero = true;
  }

  latest(): number {
    const kept = this.keptVersions();
    return kept.length ? kept[kept.length - 1]! : -1;
  }
}

/**
 * Keeps committed state versions in memory: the latest and the `minBatchesToRetain` before it,
 * per shard. For static queries, whose state lives for one run; streaming queries keep theirs
 * in a `FileStateStoreProvider`. State survives stopping and restarting a query inside one
 * process when the restarted query gets the same provider, which `forCheckpoint` arranges.
 */
export class InMemoryStateStoreProvider implements StateStoreProvider {
  private static readonly byCheckpoint = new Map<string, InMemoryStateStoreProvider>();

  /** The provider of a checkpoint location, created on first use. */
  static forCheckpoint(location: string, options: InMemoryStateStoreOptions = {}): InMemoryStateStoreProvider {
    let provider = InMemoryStateStoreProvider.byCheckpoint.get(location);
    if (!provider) {
      provider = new InMemoryStateStoreProvider(options);
      InMemoryStateStoreProvider.byCheckpoint.set(location, provider);
    }
    return provider;
  }

  /** Forgets a checkpoint location's state (its directory was deleted, or a test is done). */
  static forget(location: string): void {
    InMemoryStateStoreProvider.byCheckpoint.delete(location);
  }

  private readonly shards = new Map<string, MemoryShardHistory>();
  readonly minBatchesToRetain: number;

  constructor(options: InMemoryStateStoreOptions = {}) {
    this.minBatchesToRetain = inMemoryStateStoreSettings(options).minBatchesToRetain;
  }

  load(operatorId: number, version: number, partition = 0): StateStore {
    return new VersionedStateStore(operatorId, partition, version, this.shard(operatorId, partition));
  }

  latestVersion(operatorId: number, partition = 0): number {
    return this.shard(operatorId, partition).latest();
  }

  /** Memory holds a commit as soon as it returns. */
  durable(): Promise<void> {
    return Promise.resolve();
  }

  private shard(operatorId: number, partition: number): MemoryShardHistory {
    const id = `${operatorId}/${partition}`;
    let shard = this.shards.get(id);
    if (!shard) {
      shard = new MemoryShardHistory(id, this.minBatchesToRetain);
      this.shards.set(id, shard);
    }
    return shard;
  }
}
