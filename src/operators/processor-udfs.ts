import type { ProcessorRef } from "../expr/ast.js";
import { udfOnValues } from "../expr/eval-udf.js";
import { importUdf } from "../expr/udf-modules.js";
import type { ProcessorUdf } from "./stateful-processor.js";

/**
 * The UDFs a processor was given (`statefulProcessor(..., { udfs })`), imported in this process
 * and made callable on JavaScript values, by the names the processor knows them by.
 */
export async function processorUdfs(ref: ProcessorRef): Promise<Readonly<Record<string, ProcessorUdf>>> {
  const entries = Object.entries(ref.udfs);
  await Promise.all(entries.map(([, udf]) => importUdf(udf)));
  return Object.freeze(Object.fromEntries(entries.map(([name, udf]) => [name, udfOnValues(udf)])));
}
