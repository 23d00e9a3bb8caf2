import { AnalysisError } from "../errors/errors.js";
import { children, type Expr, type ExprOf } from "../expr/ast.js";
import { registrationOf } from "../expr/eval-encode.js";
import { encodedFields } from "../expr/resolve.js";
import { type LogicalPlan, planChildren } from "../plan/logical.js";
import { schemaOf } from "../plan/schema-of.js";
import { driverOperators, type PhysicalPlan } from "../planner/physical.js";
import { register, type SchemaRegistration } from "../schema-registry/registered-ids.js";
import type { Fields } from "../types/dtype.js";

/**
 * What a query with a schema registry settles before it runs. Operators run synchronously, so what
 * they need from a registry is fetched ahead: input tasks ask for it themselves and run again
 * (PreparationNeeded, workers/run-task.ts), but the driver's operators, after a stateful one, cannot
 * run twice. Hence, when a query starts, the schemas its to_avro / to_protobuf write are registered
 * (or found) on the driver, and a from_avro / from_protobuf of registry ids after a stateful operator
 * is refused: the ids a batch holds are known only once it is read.
 */

/** Refuses decoding by registry ids in the driver's operators, with the fix. */
export function checkRegistryDecoding(plan: PhysicalPlan): void {
  for (const op of driverOperators(plan)) {
    if (op.op !== "project") continue;
    for (const e of op.exprs) {
      if (e.kind === "decodeValues" && e.registry !== null) {
        throw new AnalysisError(
          `from_${e.format.kind}() with a schema registry must come before the query's first stateful operator (aggregation, dropDuplicates, stream-stream join): ` +
            "it fetches the writer schemas a batch's values name while the input is read; decode the values first, then aggregate",
        );
      }
    }
  }
}

/** Registers (or finds) every schema the plan's to_avro / to_protobuf write under a registry subject, so their ids are known in this process. */
export async function registerWrittenSchemas(plan: LogicalPlan): Promise<void> {
  const registrations = new Map<string, SchemaRegistration>();
  collect(plan, registrations);
  await Promise.all([...registrations.values()].map((r) => register(r)));
}

function collect(p: LogicalPlan, into: Map<string, SchemaRegistration>): void {
  if (p.kind === "project") {
    const input = schemaOf(p.input);
    for (const e of p.exprs) encodings(e, input, into);
  }
  for (const c of planChildren(p)) collect(c, into);
}

function encodings(e: Expr, input: Fields, into: Map<string, SchemaRegistration>): void {
  if (e.kind === "encodeValues" && e.registry !== null) {
    const registration = registrationOf(e as ExprOf<"encodeValues">, encodedFields(e, input));
    if (registration !== null) into.set(JSON.stringify([registration.subject, registration.schemaType, registration.schema]), registration);
  }
  for (const c of children(e)) encodings(c, input, into);
}
