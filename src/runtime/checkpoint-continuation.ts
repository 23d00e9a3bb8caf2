import type { CheckpointMetadata } from "../checkpoint/checkpoint.js";
import { CheckpointError, StateSchemaError } from "../errors/errors.js";
import type { SourceDesc } from "../sources/source-desc.js";
import { continuesSource } from "../sources/source-kinds.js";
import { stateSchemaChanges, type OperatorStateSchema } from "../state/operator-state-schema.js";

/** What a query records in a new checkpoint's metadata, its state schemas included. */
export interface QueryMetadata {
  readonly sources: readonly string[];
  readonly stateful: readonly string[];
  readonly stateSchemas: readonly OperatorStateSchema[];
}

/**
 * Throws unless a query reading `sources`, described by `wanted`, may continue the checkpoint
 * whose metadata (`file`) is `existing`. Spark's rules for restarting a query that changed:
 *
 * - the same sources in the same order; a source's columns may change (`SourceKind.continues`);
 * - the same stateful operators, by operator id: none added, removed or replaced (Spark's
 *   STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA);
 * - each operator's state schema compatible with the recorded one (Spark's state schema check,
 *   see state/operator-state-schema.ts): the restart keeps every operator's state, or is refused
 *   naming the operator and the columns that changed.
 *
 * A checkpoint written before Sluice recorded state schemas has only its operators' names, which
 * also name their key columns and aggregates: a restart on it must have exactly those.
 */
export function checkContinuation(existing: CheckpointMetadata, wanted: QueryMetadata, sources: readonly SourceDesc[], file: string): void {
  const sameSources = existing.sources.length === sources.length && existing.sources.every((recorded, i) => continuesSource(recorded, sources[i]!));
  const stored = existing.stateSchemas ?? null;
  const [had, has] = stored ? [stored.map((o) => o.operator), wanted.stateSchemas.map((o) => o.operator)] : [existing.stateful, wanted.stateful];
  if (!sameSources || JSON.stringify(had) !== JSON.stringify(has)) {
    const ops = (names: readonly string[]) => (names.length ? `stateful operators ${JSON.stringify(names)}` : "no stateful operator");
    throw new CheckpointError(
      `checkpoint file ${file} belongs to another query (sources ${JSON.stringify(existing.sources)}, ${ops(had)}); ` +
        `this query reads ${JSON.stringify(wanted.sources)} with ${ops(has)}. Use a new checkpointLocation.`,
    );
  }
  if (stored === null) return;
  const incompatible = wanted.stateSchemas.flatMap((schema, id) => {
    const changes = stateSchemaChanges(stored[id]!, schema);
    return changes.length ? [`stateful operator ${id} (${schema.operator}): ${changes.join("; ")}`] : [];
  });
  if (incompatible.length) {
    throw new StateSchemaError(
      `checkpoint file ${file} records state this query cannot read: ${incompatible.join("; ")}. ` +
        "As in Spark, a restarted query keeps a stateful operator's state only when its key and value columns keep their number, order and types " +
        "(a column may be renamed, and may become non-nullable, not nullable). Change the query back, or start it on a new checkpointLocation.",
    );
  }
}
