import { CheckpointError } from "../errors/errors.js";
import { checkShape, type StateShape } from "./state-shape.js";
import type { StateStore } from "./state-store.js";
import { StateTable, type StateSchema, type TableChanges } from "./state-table.js";

/** The committed versions of one (operator, partition) shard, wherever they are kept. */
export interface ShardHistory {
  /** Where the history lives, for error messages. */
  readonly description: string;
  /** Whether `version` is the empty initial state rather than a committed one. */
  isInitialVersion(version: number): boolean;
  /** Whether `version` was committed and is still kept (whether it loads is up to `committed`). */
  has(version: number): boolean;
  /** Versions kept, ascending. */
  keptVersions(): number[];
  /**
   * The table committed as `version` (callers never mutate it), after checking that it is state
   * of `shape`. Throws a CheckpointError naming what cannot be read.
   */
  committed(version: number, shape: StateShape): StateTable;
  /**
   * Records the working table's `changes` since `base` as `version`. The history may finish
   * writing them later: `FileStateStoreProvider.durable()` says when they are on disk.
   */
  write(version: number, base: number, working: StateTable, changes: TableChanges, shape: StateShape): void;
  /**
   * Keeps a private copy of the working table as the table of `version`. Called before the
   * working table ends its version, while `changes` still name its slots.
   */
  keep(version: number, base: number, working: StateTable, changes: TableChanges, shape: StateShape): void;
}

/**
 * A store over a shard history: the working version is a private copy of a committed table, and
 * each commit records the working table's changes as a new version and keeps a copy of it.
 * Copies are of typed arrays only (see `StateTable.clone`, `StateTable.applyChangesOf`).
 */
export class VersionedStateStore implements StateStore {
  generation = 0;
  private working: StateTable | null = null;
  private shape: StateShape | null = null;

  constructor(
    readonly operatorId: number,
    readonly partition: number,
    public version: number,
    private readonly history: ShardHistory,
  ) {
    if (!history.isInitialVersion(version) && !history.has(version)) {
      const kept = history.keptVersions();
      throw new CheckpointError(
        `state of operator ${operatorId} partition ${partition} has no version ${version} in ${history.description} ` +
          `(versions kept: ${kept.length ? kept.join(", ") : "none"}); it was never committed or is older than minBatchesToRetain`,
      );
    }
  }

  open(schema: StateSchema, operatorKind: string): StateTable {
    const shape: StateShape = { schema, operatorKind };
    if (this.shape !== null) {
      checkShape(this.shape, shape, `the open state store of operator ${this.operatorId} partition ${this.partition}`);
      return this.table;
    }
    const committed = this.committedBase(shape);
    this.shape = shape;
    this.working = committed ? committed.clone() : new StateTable(schema);
    return this.working;
  }

  get table(): StateTable {
    if (this.working === null) throw new Error(`state store of operator ${this.operatorId} was not opened`);
    return this.working;
  }

  commit(version: number): void {
    if (!(version > this.version)) {
      throw new Error(`state of operator ${this.operatorId}: cannot commit version ${version} on top of version ${this.version}`);
    }
    const table = this.table;
    const shape = this.shape!;
    const changes = table.changesSinceCommit();
    this.history.write(version, this.version, table, changes, shape);
    this.history.keep(version, this.version, table, changes, shape);
    if (table.commitChanges()) this.generation++;
    this.version = version;
  }

  abort(): void {
    if (this.shape === null) return;
    const committed = this.committedBase(this.shape);
    this.working = committed ? committed.clone() : new StateTable(this.shape.schema);
    this.generation++;
  }

  private committedBase(shape: StateShape): StateTable | null {
    return this.history.isInitialVersion(this.version) ? null : this.history.committed(this.version, shape);
  }
}
