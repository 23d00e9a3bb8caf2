import * as path from "node:path";
import {
  isLeftoverTempFile,
  listDirectory,
  readBytesSync,
  removeFile,
  removeFiles,
  writeFileAtomic,
} from "../checkpoint/atomic-file.js";
import { CheckpointError, SluiceError } from "../errors/errors.js";
import { crashPoint } from "../faults/crash-points.js";
import { ShardFiles } from "./shard-files.js";
import { applyStateFile, decodeStateFile, encodeStateFile, type StateFile, type StateFileKind } from "./state-file.js";
import { checkShape, type StateShape } from "./state-shape.js";
import type { FileStateStoreSettings } from "./state-store-options.js";
import { StateTable, type TableChanges } from "./state-table.js";
import type { ShardHistory } from "./versioned-store.js";

/**
 * A commit that changed at most this share of the rows brings the kept table up to date by
 * applying its changes; a larger one copies the working table (a copy costs about as much as
 * applying changes to a quarter of the rows, which are hash lookups).
 */
const APPLY_CHANGES_UP_TO = 0.25;
/** Deletions per maintenance pass: a backlog (retention lowered on restart) drains over a few passes. */
const MAX_DELETIONS_PER_PASS = 256;
const NO_SLOTS = new Int32Array(0);

/** Runs shards' maintenance off the commit path (see `StateMaintenance`). */
export interface MaintenanceQueue {
  schedule(shard: FileShard): void;
}

/** A version's table waiting for its snapshot; `write` tells whether the version was rewritten since. */
interface DueSnapshot {
  readonly version: number;
  readonly table: StateTable;
  readonly shape: StateShape;
  readonly write: number;
}

/**
 * The durable history of one (operator, partition) folder, Spark's HDFSBackedStateStoreProvider
 * in spirit:
 *
 * - every commit encodes `<version>.delta` (the rows upserted and the keys removed in that
 *   version) at once and writes it asynchronously, on libuv's threads: the write and its fsync
 *   overlap the sink's write of the batch, and `durable()`, which the batch's commit log entry
 *   waits for, resolves once the file has its name (or rejects naming it);
 * - once `minDeltasForSnapshot` deltas follow the last snapshot, maintenance writes
 *   `<version>.snapshot` of the committed table, asynchronously;
 * - maintenance deletes the files no version from `latest - minBatchesToRetain` on needs;
 * - loading a version reads the newest snapshot at or before it and replays the deltas after;
 *   the latest committed (or loaded) table stays in memory, so the next batch reads no file.
 *
 * Re-running a batch: the commit log, not the state, says which batches happened. A batch that
 * crashed after its state commit but before `commits/<id>` runs again from the version before,
 * and its commit finds files of the version it commits (and maybe a snapshot of it). Those
 * belong to a run the commit log never acknowledged, so the commit deletes every file of a
 * version after its base and writes its own delta, as Spark's provider overwrites them. Keeping
 * the old file instead would be wrong as soon as the re-run differs (a non-deterministic input or
 * expression): the process would go on from its own table while the files say otherwise, and
 * the next delta would be replayed onto the wrong base. A file the folder listing did not show
 * (it appeared while this process owned the folder) is another writer: a CheckpointError.
 */
export class FileShard implements ShardHistory {
  private listed: ShardFiles | null = null;
  /** The latest table committed or loaded here, which the next load of that version reuses. */
  private cached: { version: number; table: StateTable; shape: StateShape } | null = null;
  private due: DueSnapshot | null = null;
  /** The snapshot maintenance is writing now. */
  private snapshotting: DueSnapshot | null = null;
  /**
   * The shard's file writes, one after the other (a re-run's deletions wait for the write they
   * delete), settled to the first failure or null; `durable()` awaits the last.
   */
  private writes: Promise<CheckpointError | null> = Promise.resolve(null);
  private leftoversSwept = false;
  private failedPasses = 0;
  private lastFailure: CheckpointError | null = null;
  closed = false;

  constructor(
    readonly dir: string,
    readonly operatorId: number,
    readonly partition: number,
    private readonly settings: FileStateStoreSettings,
    private readonly maintenance: MaintenanceQueue,
  ) {}

  get description(): string {
    return this.dir;
  }

  private get files(): ShardFiles {
    return (this.listed ??= new ShardFiles(this.dir));
  }

  isInitialVersion(version: number): boolean {
    return version < 0 || (version === 0 && !this.files.has(0));
  }

  has(version: number): boolean {
    return this.files.has(version);
  }

  keptVersions(): number[] {
    return this.files.versions();
  }

  latest(): number {
    return this.files.latest();
  }

  committed(version: number, shape: StateShape): StateTable {
    this.checkOpen();
    const cached = this.cached;
    if (cached?.version === version) {
      checkShape(cached.shape, shape, `state of operator ${this.operatorId} partition ${this.partition} in ${this.dir}`);
      return cached.table;
    }
    const table = this.read(version, shape);
    this.cached = { version, table, shape };
    return table;
  }

  write(version: number, base: number, working: StateTable, changes: TableChanges, shape: StateShape): void {
    this.checkOpen();
    if (this.failedPasses >= this.settings.maxMaintenanceFailures) {
      throw new CheckpointError(
        `state maintenance of ${this.dir} failed ${this.failedPasses} times in a row (last: ${this.lastFailure?.message}); ` +
          `fix the cause (disk space, permissions) and restart the query`,
        { cause: this.lastFailure },
      );
    }
    const files = this.files;
    const initial = this.isInitialVersion(base);
    if (!initial && !files.has(base)) {
      throw new CheckpointError(
        `state of operator ${this.operatorId} partition ${this.partition} cannot commit version ${version}: the version it builds on, ${base}, ` +
          `is no longer in ${this.dir} (a re-run of an earlier batch replaced it, or retention deleted it); load the state again`,
      );
    }
    const header = { kind: "delta" as const, version, base: initial ? null : base, ...shape };
    const abandoned = files.filesAfter(base).map((f) => {
      files.forget(f);
      return files.pathOf(f.version, f.kind);
    });
    if (abandoned.length > 0 && this.due !== null && this.due.version > base) this.due = null;
    const file = files.pathOf(version, "delta");
    // Encoded now, while the working table holds this version's changes, into buffers of its own
    // (the table moves on before the write is done). The listing counts the
    // delta at once, so that keep() and maintenance plan with it: a failed write fails the batch
    // before its commit log entry, and the next run lists the folder again.
    const chunks = encodeStateFile(header, working, changes.removed, changes.upserted, "copied");
    files.addDelta(version);
    this.queueWrite(async () => {
      if (abandoned.length > 0) await removeFiles(abandoned);
      const outcome = await writeFileAtomic(file, chunks, { midWrite: () => crashPoint("stateDelta", version) });
      if (outcome !== "written") throw this.otherWriter(file);
    }, file);
  }

  /** Resolves once every delta written so far is on disk under its name; rejects with the first failure. */
  async durable(): Promise<void> {
    const failure = await this.writes;
    if (failure !== null) throw failure;
  }

  /** Runs `write` after the writes before it; after a failure none runs (each would build on what failed). */
  private queueWrite(write: () => Promise<void>, file: string): void {
    this.writes = this.writes.then(async (failure) => {
      if (failure !== null) return failure;
      try {
        await write();
        return null;
      } catch (e) {
        return e instanceof CheckpointError ? e : new CheckpointError(`cannot write state file ${file}: ${(e as Error).message}`, { cause: e });
      }
    });
  }

  /**
   * The kept table moves on to `version`: the changes are applied to it when it holds `base`, the
   * changes are few, and no snapshot still reads it (its buffers are being written). Otherwise it
   * is a copy of the working table when a snapshot of `version` is due (maintenance writes it from
   * that copy); when none is, no copy is kept at all: copying a large table on every batch cost
   * more than anything else in a commit, and `version` is on disk, read back only if the store is
   * opened again.
   */
  keep(version: number, base: number, working: StateTable, changes: TableChanges, shape: StateShape): void {
    const cached = this.cached;
    const pinned = cached !== null && (this.due?.table === cached.table || this.snapshotting?.table === cached.table);
    const changed = changes.removed.length + changes.upserted.length;
    const files = this.files;
    const pending = this.snapshotting?.version;
    const floor = pending !== undefined && pending <= version ? pending : null;
    const snapshotDue = files.deltasSinceSnapshot(version, floor) >= this.settings.minDeltasForSnapshot;
    let table: StateTable | null = null;
    if (cached !== null && cached.version === base && !pinned && changed <= cached.table.size * APPLY_CHANGES_UP_TO) {
      table = cached.table;
      table.applyChangesOf(working, changes);
    } else if (snapshotDue) {
      table = working.clone();
      table.commitChanges();
    }
    this.cached = table === null ? null : { version, table, shape };
    if (snapshotDue) this.due = { version, table: table!, shape, write: files.deltaWrite(version)! };
    this.maintenance.schedule(this);
  }

  /**
   * One maintenance pass: the due snapshot, then deletions, then (once) temp files that crashed
   * writers left. Returns the steps that failed; each is tried again by a later pass.
   */
  async maintain(): Promise<CheckpointError[]> {
    const failures: CheckpointError[] = [];
    const attempt = async (step: () => Promise<void>) => {
      try {
        await step();
      } catch (e) {
        failures.push(e instanceof CheckpointError ? e : new CheckpointError(`state maintenance of ${this.dir} failed: ${(e as Error).message}`, { cause: e }));
      }
    };
    // After the deltas in flight: a snapshot never lands before the delta of its version.
    await this.writes;
    const due = this.due;
    this.due = null;
    if (due !== null && !this.closed) {
      this.snapshotting = due;
      await attempt(() => this.writeSnapshot(due));
      this.snapshotting = null;
    }
    const files = this.files;
    for (const f of files.unneeded(files.latest(), this.settings.minBatchesToRetain).slice(0, MAX_DELETIONS_PER_PASS)) {
      await attempt(async () => {
        await removeFile(files.pathOf(f.version, f.kind));
        // Fault tests stop the process here: a file is gone, the pass is not finished.
        crashPoint("stateMaintenance", f.version);
        files.forget(f);
      });
    }
    if (!this.leftoversSwept) {
      await attempt(async () => {
        for (const name of await listDirectory(this.dir)) if (isLeftoverTempFile(name)) await removeFile(path.join(this.dir, name));
        this.leftoversSwept = true;
      });
    }
    if (failures.length > 0) {
      this.failedPasses++;
      this.lastFailure = failures[failures.length - 1]!;
    } else this.failedPasses = 0;
    return failures;
  }

  /** Frees the cached table; later use of this shard is an error. */
  close(): void {
    this.closed = true;
    this.cached = null;
    this.due = null;
  }

  private async writeSnapshot(due: DueSnapshot): Promise<void> {
    const files = this.files;
    const file = files.pathOf(due.version, "snapshot");
    const chunks = encodeStateFile({ kind: "snapshot", version: due.version, base: null, ...due.shape }, due.table, NO_SLOTS, due.table.liveSlots(), "shared");
    const outcome = await writeFileAtomic(file, chunks, {
      midWrite: () => crashPoint("stateSnapshot", due.version),
      // A re-run of the batch may have replaced the version meanwhile: its snapshot would lie.
      stillWanted: () => !this.closed && files.deltaWrite(due.version) === due.write,
    });
    if (outcome === "exists") throw this.otherWriter(file);
    if (outcome === "written") files.addSnapshot(due.version);
  }

  /** The table of `version`: its newest snapshot at or before it, then the deltas after, in order. */
  private read(version: number, shape: StateShape): StateTable {
    const files = this.files;
    const plan = files.loadPlan(version);
    let table = new StateTable(shape.schema);
    let previous: number | null = null;
    if (plan.snapshot !== null) {
      const snapshot = this.readFile(plan.snapshot, "snapshot", shape);
      table = new StateTable(shape.schema, snapshot.table.numRows);
      applyStateFile(table, snapshot, files.pathOf(plan.snapshot, "snapshot"));
      previous = plan.snapshot;
    }
    for (const v of plan.deltas) {
      const file = files.pathOf(v, "delta");
      const delta = this.readFile(v, "delta", shape);
      const base = delta.header.base;
      if (base !== previous) {
        const before = previous === null ? "the empty initial state" : `version ${previous}`;
        throw new CheckpointError(
          base !== null && !files.has(base)
            ? `state of operator ${this.operatorId} partition ${this.partition} cannot be loaded at version ${version}: ` +
                `state file ${files.pathOf(base, "delta")} is missing (${file} builds on version ${base})`
            : `state file ${file} builds on ${base === null ? "the empty initial state" : `version ${base}`}, but the file before it in ${this.dir} holds ${before}: the files of this state do not belong together`,
        );
      }
      applyStateFile(table, delta, file);
      previous = v;
    }
    table.commitChanges();
    return table;
  }

  private readFile(version: number, kind: StateFileKind, shape: StateShape): StateFile {
    const file = this.files.pathOf(version, kind);
    let bytes: Uint8Array;
    try {
      bytes = readBytesSync(file);
    } catch (e) {
      const code = ((e as Error).cause as NodeJS.ErrnoException | undefined)?.code;
      if (code === "ENOENT") throw new CheckpointError(`state file ${file} is missing: it was deleted while this query used the checkpoint`, { cause: e });
      throw e;
    }
    const state = decodeStateFile(bytes, file, { kind, version });
    checkShape(state.header, shape, `state file ${file}`);
    return state;
  }

  private otherWriter(file: string): CheckpointError {
    return new CheckpointError(
      `state file ${file} appeared while this query was writing it: another query is using the checkpoint ${path.dirname(path.dirname(path.dirname(this.dir)))}; stop it, or give this query its own checkpointLocation`,
    );
  }

  private checkOpen(): void {
    if (this.closed) throw new SluiceError(`the state store provider of ${this.dir} was closed: load the state from a new FileStateStoreProvider`);
  }
}

