import { InternalError } from "../errors/errors.js";
import { outputField } from "../expr/resolve.js";
import { aggregateLayout } from "../operators/aggregate-layout.js";
import type { OperatorStateSchema, StoreSchema } from "../state/operator-state-schema.js";
import type { Field, Fields } from "../types/dtype.js";
import { deduplicationKeys, statefulOperators, type PhysicalPlan, type StatefulOperatorSpec } from "./physical.js";

/** The store of an operator that keeps one. */
const DEFAULT_STORE = "default";

/** When a key of a deduplication within the watermark may be forgotten (epoch ms): its one value. */
const EXPIRES_AT: Field = { name: "#expiresAt", type: "timestamp", nullable: false };

/**
 * The state schema of each of the plan's stateful operators, by operator id: what a checkpoint
 * records when it is created and what a restart is checked against (see
 * state/operator-state-schema.ts). The operator names are those the operators report in progress
 * (operators/*-exec.ts; state-schemas.test.ts holds the two to each other).
 */
export function operatorStateSchemas(plan: PhysicalPlan): OperatorStateSchema[] {
  return statefulOperators(plan).map(stateSchemaOf);
}

function stateSchemaOf(spec: StatefulOperatorSpec): OperatorStateSchema {
  switch (spec.op) {
    case "deduplicate": {
      const keys = fieldsNamed(spec.inputFields, deduplicationKeys(spec), spec.operatorId);
      // A plain deduplication's value only marks a key as seen; within the watermark it is the key's expiry.
      return spec.withinWatermarkDelayMs === null
        ? { operator: "dedupe", stores: [{ name: DEFAULT_STORE, keys, values: null }] }
        : { operator: "dedupeWithinWatermark", stores: [{ name: DEFAULT_STORE, keys, values: [EXPIRES_AT] }] };
    }
    case "finalAggregate":
    case "sessionMerge": {
      // Keys as the state encodes them (a window key last), values the aggregates' accumulators.
      const layout = aggregateLayout(spec.spec);
      const store: StoreSchema = { name: DEFAULT_STORE, keys: layout.stateKeyOrder.map((k) => spec.spec.keyFields[k]!), values: layout.accumulatorFields };
      return { operator: spec.op === "finalAggregate" ? "stateStoreSave" : "sessionWindowStateStoreSave", stores: [store] };
    }
    case "streamJoin":
      // Each side keeps its input rows by its join keys (Spark: the join keys and the side's columns may not change).
      return {
        operator: "symmetricHashJoin",
        stores: [
          { name: "left", keys: spec.leftKeys.map((k) => outputField(k, spec.leftFields)), values: spec.leftFields },
          { name: "right", keys: spec.rightKeys.map((k) => outputField(k, spec.rightFields)), values: spec.rightFields },
        ],
      };
    case "transformWithState":
      // The processor's variables are not typed in Sluice's state (each row holds a variable's
      // structured-clone bytes), so only the grouping keys are compared.
      return { operator: "transformWithStateExec", stores: [{ name: DEFAULT_STORE, keys: fieldsNamed(spec.inputFields, spec.keyColumns, spec.operatorId), values: null }] };
  }
}

function fieldsNamed(fields: Fields, names: readonly string[], operatorId: number): Field[] {
  return names.map((name) => {
    const f = fields.find((x) => x.name === name);
    if (!f) throw new InternalError(`stateful operator ${operatorId} keys by column "${name}", which its input does not have`);
    return f;
  });
}
