import * as fs from "node:fs";
import * as path from "node:path";
import { CheckpointError } from "../errors/errors.js";
import { snapshotFromIPC, snapshotToIPC } from "./state-snapshot.js";
import type { StateStore, StateStoreOptions, StateStoreProvider } from "./state-store.js";
import type { StateTable } from "./state-table.js";
import { VersionedStateStore, retentionOf, type ShardHistory } from "./versioned-store.js";

const SUFFIX = ".snapshot";

/**
 * Committed versions of one shard as snapshot files `<dir>/<version>.snapshot` (Arrow IPC, see
 * `state-snapshot.ts`), with the versions this process committed or read cached in memory.
 * Each file is written to a temporary name, fsynced, and linked to its final name, so it is
 * complete or absent, and an existing version is never overwritten: a re-run of a batch whose
 * version was already written keeps the file (the re-run computes the same state).
 */
class FileShardHistory implements ShardHistory {
  private readonly cache = new Map<number, StateTable>();

  constructor(
    private readonly dir: string,
    private readonly retain: number,
  ) {}

  get description(): string {
    return this.dir;
  }

  committed(version: number): StateTable | null {
    const cached = this.cache.get(version);
    if (cached) return cached;
    const file = this.fileOf(version);
    let bytes: Uint8Array;
    try {
      bytes = fs.readFileSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new CheckpointError(`cannot read state snapshot ${file}: ${(e as Error).message}`, { cause: e });
    }
    const table = snapshotFromIPC(bytes, file);
    this.cache.set(version, table);
    return table;
  }

  isInitialVersion(version: number): boolean {
    return version < 0 || (version === 0 && !fs.existsSync(this.fileOf(0)));
  }

  keptVersions(): number[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new CheckpointError(`cannot list state directory ${this.dir}: ${(e as Error).message}`, { cause: e });
    }
    return names
      .filter((n) => /^\d+\.snapshot$/.test(n))
      .map((n) => Number(n.slice(0, -SUFFIX.length)))
      .sort((a, b) => a - b);
  }

  record(version: number, table: StateTable): void {
    writeIfAbsent(this.fileOf(version), snapshotToIPC(table));
    this.cache.set(version, table);
    for (const v of this.keptVersions()) if (v <= version - this.retain) fs.rmSync(this.fileOf(v), { force: true });
    for (const v of [...this.cache.keys()]) if (v !== version) this.cache.delete(v);
  }

  private fileOf(version: number): string {
    return path.join(this.dir, `${version}${SUFFIX}`);
  }
}

/** Temp file, fsync, hard link to the final name (fails if it exists), fsync the directory. */
function writeIfAbsent(file: string, bytes: Uint8Array): void {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    const fd = fs.openSync(tmp, "w");
    try {
      fs.writeSync(fd, bytes);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    syncDirectory(dir);
  } catch (e) {
    throw new CheckpointError(`cannot write state snapshot ${file}: ${(e as Error).message}`, { cause: e });
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; the link itself is still atomic there.
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Durable state under `<checkpointLocation>/state/<operatorId>/<partition>/<version>.snapshot`:
 * a restarted process continues from the last committed version. Every version is a full
 * snapshot (no delta files yet); the last `minBatchesToRetain` are kept. Writes are synchronous,
 * on the driver, when a batch commits.
 */
export class FileStateStoreProvider implements StateStoreProvider {
  private readonly shards = new Map<string, FileShardHistory>();
  readonly minBatchesToRetain: number;

  constructor(
    readonly checkpointLocation: string,
    options: StateStoreOptions = {},
  ) {
    this.minBatchesToRetain = retentionOf(options.minBatchesToRetain);
  }

  load(operatorId: number, version: number, partition = 0): StateStore {
    return new VersionedStateStore(operatorId, partition, version, this.shard(operatorId, partition));
  }

  latestVersion(operatorId: number, partition = 0): number {
    const kept = this.shard(operatorId, partition).keptVersions();
    return kept.length ? kept[kept.length - 1]! : -1;
  }

  private shard(operatorId: number, partition: number): FileShardHistory {
    const dir = path.join(this.checkpointLocation, "state", String(operatorId), String(partition));
    let shard = this.shards.get(dir);
    if (!shard) {
      shard = new FileShardHistory(dir, this.minBatchesToRetain);
      this.shards.set(dir, shard);
    }
    return shard;
  }
}
