import { CheckpointError } from "../errors/errors.js";
import type { StateStore } from "./state-store.js";
import { StateTable, describeSchema, sameSchema, type StateSchema } from "./state-table.js";

/** The committed versions of one (operator, partition) shard, wherever they are kept. */
export interface ShardHistory {
  /** The table committed as `version` (never mutated by callers), or null when not kept. */
  committed(version: number): StateTable | null;
  /** Whether `version` is the empty initial state rather than a committed one. */
  isInitialVersion(version: number): boolean;
  /** Versions that can be loaded, ascending. */
  keptVersions(): number[];
  /** Records `table` as `version` and forgets versions the retention policy drops. */
  record(version: number, table: StateTable): void;
  /** Where the history lives, for error messages. */
  readonly description: string;
}

/**
 * A store over a shard history: the working version is a private copy of a committed table, and
 * each commit records a copy of the working table as a new version. Copies are of typed arrays
 * only (see `StateTable.clone`).
 */
export class VersionedStateStore implements StateStore {
  generation = 0;
  private working: StateTable | null = null;
  private schema: StateSchema | null = null;

  constructor(
    readonly operatorId: number,
    readonly partition: number,
    public version: number,
    private readonly history: ShardHistory,
  ) {
    if (!history.isInitialVersion(version) && history.committed(version) === null) {
      const kept = history.keptVersions();
      throw new CheckpointError(
        `state of operator ${operatorId} partition ${partition} has no version ${version} in ${history.description} ` +
          `(versions kept: ${kept.length ? kept.join(", ") : "none"}); it was never committed or is older than minBatchesToRetain`,
      );
    }
  }

  open(schema: StateSchema): StateTable {
    if (this.schema !== null) {
      if (!sameSchema(schema, this.schema)) throw this.schemaError(schema, this.schema);
      return this.table;
    }
    const committed = this.committedBase();
    if (committed && !sameSchema(schema, committed.schema)) throw this.schemaError(schema, committed.schema);
    this.schema = schema;
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
    if (table.compact()) this.generation++;
    table.clearUpdated();
    this.history.record(version, table.clone());
    this.version = version;
  }

  abort(): void {
    if (this.schema === null) return;
    const committed = this.committedBase();
    this.working = committed ? committed.clone() : new StateTable(this.schema);
    this.generation++;
  }

  private committedBase(): StateTable | null {
    if (this.history.isInitialVersion(this.version)) return null;
    const committed = this.history.committed(this.version);
    if (committed === null) {
      throw new CheckpointError(`state of operator ${this.operatorId} partition ${this.partition}: version ${this.version} is no longer kept in ${this.history.description}`);
    }
    return committed;
  }

  private schemaError(wanted: StateSchema, found: StateSchema): CheckpointError {
    return new CheckpointError(
      `state of operator ${this.operatorId} partition ${this.partition} was written with value columns ` +
        `${describeSchema(found)} but this query needs ${describeSchema(wanted)}; the checkpoint belongs to a different query`,
    );
  }
}

/** Checks and returns a retention setting (Spark's `minBatchesToRetain`). */
export function retentionOf(minBatchesToRetain: number | undefined): number {
  const retain = minBatchesToRetain ?? 2;
  if (!Number.isInteger(retain) || retain < 2) {
    throw new RangeError(`minBatchesToRetain must be an integer >= 2 (a batch re-runs from the version before it), got ${retain}`);
  }
  return retain;
}
