import { z } from "zod";

/**
 * What a stateful operator keeps in its state, by column: the schema a checkpoint records for
 * each operator when it is created, and that a restart must be compatible with (Spark's state
 * schema check, StateSchemaCompatibilityChecker). It is plain data, stored in the checkpoint's
 * `metadata` as JSON.
 *
 * An operator's state is one or more stores (Spark's column families): a deduplication's or an
 * aggregation's one, a stream-stream join's one per side. A store keeps rows by key; `keys` are
 * the key columns in the order they are encoded, `values` the columns kept for each key, or null
 * where the operator's values follow from the operator alone and are not compared (Spark does
 * not compare a plain deduplication's value either: it only marks a key as seen).
 */
export interface StateField {
  readonly name: string;
  /** A Sluice column type (`types/dtype.ts`); a string here, so that a type this version does not know still compares. */
  readonly type: string;
  readonly nullable: boolean;
}

export interface StoreSchema {
  readonly name: string;
  readonly keys: readonly StateField[];
  readonly values: readonly StateField[] | null;
}

export interface OperatorStateSchema {
  /** Spark's operator name, as progress reports it (`stateOperators[].operatorName`): "dedupe", "stateStoreSave", ... */
  readonly operator: string;
  readonly stores: readonly StoreSchema[];
}

const stateField = z.object({ name: z.string(), type: z.string().min(1), nullable: z.boolean() });

/** Reads an operator's state schema from checkpoint metadata. */
export const operatorStateSchemaZod = z.object({
  operator: z.string().min(1),
  stores: z.array(z.object({ name: z.string(), keys: z.array(stateField), values: z.array(stateField).nullable() })),
});

export function describeFields(fields: readonly StateField[]): string {
  return `[${fields.map((f) => `${f.name}: ${f.type}${f.nullable ? " (nullable)" : ""}`).join(", ")}]`;
}

/**
 * How `wanted` fails to read state written with schema `stored`, one sentence per store and
 * side (keys or values) that changed incompatibly; empty when the restart may keep the state.
 *
 * Spark's rule: columns are compared by position, never by name (renaming a key column keeps the
 * state), and each must keep its type. A column may become non-nullable where it was nullable
 * (every row it reads was possible before), not the reverse (the state was written knowing no
 * nulls). A store whose values are null on either side is compared by its keys alone.
 */
export function stateSchemaChanges(stored: OperatorStateSchema, wanted: OperatorStateSchema): string[] {
  const changes: string[] = [];
  for (const want of wanted.stores) {
    const had = stored.stores.find((s) => s.name === want.name);
    const store = wanted.stores.length > 1 ? `${want.name} ` : "";
    if (!had) {
      changes.push(`its ${store}state is not in the checkpoint (it holds ${stored.stores.map((s) => s.name).join(", ")})`);
      continue;
    }
    const keys = columnChanges(had.keys, want.keys);
    if (keys) changes.push(`its ${store}key columns were ${describeFields(had.keys)} and are ${describeFields(want.keys)}: ${keys}`);
    if (had.values === null || want.values === null) continue;
    const values = columnChanges(had.values, want.values);
    if (values) changes.push(`its ${store}value columns were ${describeFields(had.values)} and are ${describeFields(want.values)}: ${values}`);
  }
  return changes;
}

/** What makes `now` unable to read columns written as `was`, or null when it can. */
function columnChanges(was: readonly StateField[], now: readonly StateField[]): string | null {
  if (was.length !== now.length) return `${now.length} column(s) where the state has ${was.length}`;
  const changed = now.flatMap((f, i) => {
    const before = was[i]!;
    if (f.type !== before.type) return [`column ${i + 1} (${f.name}) is ${f.type}, was ${before.type}`];
    if (f.nullable && !before.nullable) return [`column ${i + 1} (${f.name}) is nullable, was not`];
    return [];
  });
  return changed.length ? changed.join("; ") : null;
}
