import type { StateSchema, StateTable } from "./state-table.js";

/**
 * Versioned operator state, with Spark's lifecycle: the work of a batch starts from the version
 * the previous batch committed and commits the next one. Re-running a batch after a crash loads
 * the version before it again, so whatever the crashed run did is never seen.
 *
 * A store is one (operator, partition) shard. Its working version is a `StateTable` (get / put /
 * remove / iterate by key, values in typed-array columns). After `commit(N)` the same store goes
 * on as the working version for batch N + 1; `abort()` throws the uncommitted work away.
 */
export interface StateStore {
  readonly operatorId: number;
  readonly partition: number;
  /** The committed version the working data builds on; -1 before the first commit. */
  readonly version: number;
  /**
   * Changes whenever slots are renumbered (commit compaction, abort): indexes that callers derive
   * from slots must be rebuilt when it changes.
   */
  readonly generation: number;
  /**
   * Opens the working version with the operator's value schema and kind (Spark's operator name:
   * "stateStoreSave", "sessionWindowStateStoreSave", "dedupe", "dedupeWithinWatermark"; see
   * `state-shape.ts`). The first call fixes both; state committed by another kind of operator
   * or with another schema (another query on the same checkpoint) is a CheckpointError.
   */
  open(schema: StateSchema, operatorKind: string): StateTable;
  /** The working version; `open` must have been called. */
  readonly table: StateTable;
  /** Makes the working data version `version` (> `this.version`); slots may be renumbered. */
  commit(version: number): void;
  /** Discards the work since the last commit (or load). */
  abort(): void;
}

/** Where the versions of every (operator, partition) store of a query live. */
export interface StateStoreProvider {
  /**
   * A store whose working data is the state committed as `version`. Versions -1, and 0 before
   * anything was committed, are the empty initial state, so both numberings work: "batch N reads
   * N - 1 and commits N" and Spark's "batch N reads N and commits N + 1".
   */
  load(operatorId: number, version: number, partition?: number): StateStore;
  /** The newest committed version of a store, -1 when none. */
  latestVersion(operatorId: number, partition?: number): number;
  /**
   * Resolves once every version committed so far is durable (a commit may finish its writes
   * asynchronously); rejects naming what could not be written. A batch's commit log entry waits for it.
   */
  durable(): Promise<void>;
  /** Waits for background work (maintenance) and frees what the provider holds; its stores stop working. */
  close?(): Promise<void>;
}
