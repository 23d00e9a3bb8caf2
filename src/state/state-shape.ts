import { CheckpointError } from "../errors/errors.js";
import { describeSchema, sameColumnKinds, type StateSchema } from "./state-table.js";

/**
 * What a store's state is: which kind of operator wrote it and with which value columns. Every
 * committed version records it, so state is never read by another operator kind (an aggregation
 * reading a deduplication's keys) or another query shape (other aggregates on the same keys).
 * Columns are compared by position and kind, not by name: as in Spark, a restarted query may
 * rename what it keeps (an aggregate's alias names its columns). The checkpoint's metadata holds
 * the finer state schema (column types, keys included) that a restart is checked against first;
 * this is the check of each file as it is read.
 *
 * Operator kinds are Spark's `StateOperatorProgress.operatorName`s: "stateStoreSave" (streaming
 * aggregation), "sessionWindowStateStoreSave", "dedupe", "dedupeWithinWatermark".
 */
export interface StateShape {
  readonly operatorKind: string;
  readonly schema: StateSchema;
}

export function describeShape(shape: StateShape): string {
  return `operator "${shape.operatorKind}" with value columns ${describeSchema(shape.schema)}`;
}

/** Throws when state recorded as `found` (in `where`) is not state of the `wanted` shape. */
export function checkShape(found: StateShape, wanted: StateShape, where: string): void {
  if (found.operatorKind === wanted.operatorKind && sameColumnKinds(found.schema, wanted.schema)) return;
  throw new CheckpointError(
    `${where} holds state of ${describeShape(found)}, but this query needs state of ${describeShape(wanted)}: ` +
      `the checkpoint belongs to a different query; use a new checkpointLocation`,
  );
}
