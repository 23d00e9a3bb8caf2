import { z } from "zod";
import { validateOptions } from "../config/validate.js";
import { OptionError } from "../errors/errors.js";
import type { JsonValue, ProcessorRef } from "../expr/ast.js";
import { fieldsFromZod, type SchemaOfZod } from "../schema/zod-schema.js";
import type { Fields, SchemaShape } from "../types/dtype.js";
import { deepFreeze, jsonArgs, moduleSpecifier, userCodeName, type UserDefinedFunction } from "./udf.js";

/**
 * A `transformWithState` processor for a query: the class `exportName` of `module` (a file: URL,
 * an absolute path or a package name), constructed with `args` where the operator runs, and the
 * schema of the rows it emits, from which the query's types follow.
 *
 * ```ts
 * const counts = statefulProcessor(new URL("./count-per-user.js", import.meta.url), "CountPerUser", {
 *   outputSchema: z.object({ user: z.string(), count: z.number().int() }),
 * });
 * clicks.groupByKey("user").transformWithState(counts, "processingTime", "update");
 * ```
 */
export interface StatefulProcessorDefinition<O extends SchemaShape> {
  readonly ref: ProcessorRef;
  readonly fields: Fields;
  /** Type-level only: the output schema. */
  readonly __output?: O;
}

export interface StatefulProcessorOptions<Z extends z.ZodObject<any>> {
  /** The rows the processor emits (a zod object, as `readStream.schema` takes). */
  readonly outputSchema: Z;
  /** JSON data given to the processor's constructor. */
  readonly args?: JsonValue;
  /** The name in errors and in `explain()`; default the export's name. */
  readonly name?: string;
  /**
   * UDFs (from `udf` or `vectorUdf`) the processor calls, by the name it finds them under in
   * `init`'s context (`context.udfs.score(...)`); they are imported wherever the processor runs.
   */
  readonly udfs?: Readonly<Record<string, UserDefinedFunction<any, any, any>>>;
}

const optionsSchema = z.strictObject({
  outputSchema: z.custom<z.ZodObject<any>>((v) => v instanceof z.ZodObject, {
    error: "outputSchema must be a zod object of the rows the processor emits, e.g. z.object({ user: z.string(), count: z.number() })",
  }),
  args: jsonArgs,
  name: userCodeName,
  udfs: z
    .record(
      z.string(),
      z.custom<UserDefinedFunction<any, any, any>>((v) => typeof v === "function" && (v as { ref?: { kind?: string } }).ref?.kind === "udfRef", {
        error: "udfs maps names to UDFs made with udf(...) or vectorUdf(...), e.g. { udfs: { score } }",
      }),
      { error: "udfs must be an object of UDFs by name, e.g. { udfs: { score } }" },
    )
    .optional(),
});

export function statefulProcessor<const Z extends z.ZodObject<any>>(
  module: string | URL,
  exportName: string,
  options: StatefulProcessorOptions<Z>,
): StatefulProcessorDefinition<SchemaOfZod<Z>> {
  const fn = "statefulProcessor()";
  const specifier = moduleSpecifier(module, fn);
  if (typeof exportName !== "string" || exportName.length === 0) throw new OptionError(`${fn}: exportName must be the name of the module's exported class, e.g. "CountPerUser"`);
  const o = validateOptions(optionsSchema, options, `${fn} options`);
  const fields = fieldsFromZod(o.outputSchema);
  if (fields.length === 0) throw new OptionError(`${fn}: outputSchema has no columns; a processor emits rows of at least one column`);
  const ref: ProcessorRef = deepFreeze({
    kind: "processorRef",
    name: o.name ?? exportName,
    module: specifier,
    exportName,
    args: o.args === undefined ? null : structuredClone(o.args as JsonValue),
    udfs: Object.fromEntries(Object.entries(o.udfs ?? {}).map(([name, fn]) => [name, fn.ref])),
  });
  return { ref, fields };
}
