import { importProcessor, importUdf, udfRefsIn } from "../expr/udf-modules.js";
import type { LogicalPlan } from "../plan/logical.js";
import { registerWrittenSchemas } from "./registry-preparation.js";

/**
 * What a query settles on the driver before its first batch, since operators run synchronously and
 * the driver's own (after a stateful operator) cannot ask and run again as input tasks do
 * (PreparationNeeded, workers/run-task.ts): the schema ids its to_avro / to_protobuf write under, and
 * the modules of its user-defined functions and stateful processors, imported here so that a module that cannot be imported,
 * a missing export or one that is no function fails the query at once, naming the UDF.
 */
export async function prepareQuery(plan: LogicalPlan): Promise<void> {
  await Promise.all([registerWrittenSchemas(plan), ...[...udfRefsIn(plan).values()].map((ref) => (ref.kind === "udfRef" ? importUdf(ref) : importProcessor(ref)))]);
}
