import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { validateOptions } from "../config/validate.js";
import { OptionError } from "../errors/errors.js";
import type { JsonValue, UdfRef } from "../expr/ast.js";
import { fieldsFromZod, type SchemaOfZod } from "../schema/zod-schema.js";
import type { DType } from "../types/dtype.js";
import type { Fixed } from "../types/expr-types.js";
import { Column } from "./column.js";

/**
 * User-defined functions, as Spark's `udf` and pandas UDFs: `udf` for a function called once per
 * row with JavaScript values, `vectorUdf` for one called once per batch with Arrow vectors (the fast
 * path). The function is an export of a module that every worker imports (never a closure), so
 * what it needs besides its column arguments travels as `args`: JSON data bound here and passed
 * after the columns. The result's type is declared, a Sluice type name or a zod schema, and the
 * query's types follow it.
 *
 * ```ts
 * const score = vectorUdf(new URL("./model.js", import.meta.url), "score", "int32", { args: { centres } });
 * stream.select(col("id"), score(col("x"), col("y")).alias("cluster"));
 * ```
 */

/** The types a UDF may return: every Sluice type but the compound window and headers. */
export type UdfDType = Exclude<DType, "window" | "headers">;

/** A result type: a Sluice type name (nullable unless `nullable: false`) or a zod schema of one value (nullable as the schema says). */
export type UdfReturnType = UdfDType | z.ZodType;

export interface UdfOptions {
  /** JSON data passed to the function after its column arguments: its constants (a model's weights, a threshold). */
  readonly args?: JsonValue;
  /** The name in errors and in the output column's name, `name(arg, ...)`; default the export's name. */
  readonly name?: string;
  /** For a type name: false when the function never returns null (a null is then an error); default true, as Spark's UDFs. */
  readonly nullable?: boolean;
}

type AnyColumn = Column<any, any, any>;
type R<C> = C extends Column<any, infer X, any> ? X : never;
type N<C> = C extends Column<any, any, infer X> ? X : never;
type Names<Cs extends readonly unknown[]> = Cs extends readonly []
  ? ""
  : Cs extends readonly [infer A]
    ? N<A>
    : Cs extends readonly [infer A, ...infer Rest]
      ? `${N<A>}, ${Names<Rest>}`
      : string;

type ZodResult<Z extends z.ZodType> = SchemaOfZod<z.ZodObject<{ value: Z }>>["value"];
export type UdfResultType<T extends UdfReturnType> = T extends UdfDType ? T : T extends z.ZodType ? ZodResult<T>["type"] : never;
export type UdfResultNullable<T extends UdfReturnType, O> = T extends UdfDType
  ? O extends { readonly nullable: false }
    ? false
    : true
  : T extends z.ZodType
    ? ZodResult<T>["nullable"]
    : never;
type UdfName<F extends string, O> = O extends { readonly name: infer X extends string } ? X : F;

/** A UDF: call it with columns to get a column; `ref` is its plan data, for operators that call it themselves. */
export interface UserDefinedFunction<T extends DType, Nl extends boolean, F extends string> {
  <const Cs extends readonly AnyColumn[]>(...columns: Cs): Column<Fixed<T, Nl>, R<Cs[number]>, `${F}(${Names<Cs>})`>;
  readonly ref: UdfRef;
}

const UDF_DTYPES = ["string", "float64", "int32", "int64", "boolean", "timestamp", "binary"] as const satisfies readonly UdfDType[];

function isJson(v: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJson(x, depth + 1));
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v as object).every((x) => isJson(x, depth + 1));
  return false;
}

/** User code's `args`: JSON data, since it travels to wherever the code runs. */
export const jsonArgs = z
  .custom<JsonValue>((v) => v === undefined || isJson(v), {
    error:
      "args must be JSON data (strings, finite numbers, booleans, null, arrays and plain objects): it travels to every worker as data; a typed array becomes one with Array.from(values)",
  })
  .optional();

/** The name user code goes by in errors. */
export const userCodeName = z.string({ error: "name must be a string" }).regex(/^\S(.*\S)?$/, { error: "name must be a non-empty name without surrounding spaces" }).optional();

const optionsSchema = z.strictObject({
  args: jsonArgs,
  name: userCodeName,
  nullable: z.boolean({ error: "nullable must be true or false" }).optional(),
});

/** A module reference as `import()` takes it: a URL stays, an absolute path becomes a file: URL, a package name stays. */
export function moduleSpecifier(module: unknown, fn: string): string {
  if (module instanceof URL) return module.href;
  if (typeof module !== "string" || module.length === 0) {
    throw new OptionError(`${fn}: module must be a file: URL, an absolute path or a package name, got ${module === "" ? '""' : typeof module}`);
  }
  if (isAbsolute(module)) return pathToFileURL(module).href;
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(module)) return module;
  if (module.startsWith(".")) {
    throw new OptionError(
      `${fn}: module "${module}" is relative, and workers would resolve it from Sluice's own folder; resolve it first, e.g. new URL("${module}", import.meta.url)`,
    );
  }
  return module;
}

function returnTypeOf(returnType: unknown, nullable: boolean | undefined, fn: string): UdfRef["returnType"] {
  if (typeof returnType === "string") {
    if (!(UDF_DTYPES as readonly string[]).includes(returnType)) {
      throw new OptionError(`${fn}: returnType must be one of ${UDF_DTYPES.join(", ")} or a zod schema such as z.number().nullable(), got "${returnType}"`);
    }
    return { type: returnType as DType, nullable: nullable ?? true };
  }
  const isZod = returnType !== null && typeof returnType === "object" && "_zod" in returnType;
  if (!isZod) throw new OptionError(`${fn}: returnType must be a type name (${UDF_DTYPES.join(", ")}) or a zod schema such as z.number().nullable()`);
  if (nullable !== undefined) throw new OptionError(`${fn}: option "nullable" is for a type name; a zod schema says it itself (.nullable())`);
  const [field] = fieldsFromZod(z.object({ value: returnType as z.ZodType }));
  if (field!.type === "window" || field!.type === "headers") throw new OptionError(`${fn}: returnType cannot be ${field!.type}`);
  return { type: field!.type, nullable: field!.nullable };
}

export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object") {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

function make(form: UdfRef["form"], module: unknown, exportName: unknown, returnType: unknown, options: unknown): UserDefinedFunction<any, any, any> {
  const fn = form === "row" ? "udf()" : "vectorUdf()";
  const specifier = moduleSpecifier(module, fn);
  if (typeof exportName !== "string" || exportName.length === 0) throw new OptionError(`${fn}: exportName must be the name of the module's export, e.g. "score"`);
  const o = validateOptions(optionsSchema, options ?? {}, `${fn} options`);
  const ref: UdfRef = deepFreeze({
    kind: "udfRef",
    name: o.name ?? exportName,
    module: specifier,
    exportName,
    form,
    returnType: returnTypeOf(returnType, o.nullable, fn),
    args: o.args === undefined ? null : structuredClone(o.args as JsonValue),
  });
  const apply = (...columns: AnyColumn[]) => {
    columns.forEach((c, i) => {
      if (!(c instanceof Column)) {
        throw new OptionError(`${ref.name}(): argument ${i + 1} is ${typeof c === "string" ? `"${c}"` : String(c)}, not a Column; pass col("name"), or lit(value) for a constant`);
      }
    });
    return new Column({ kind: "udf", fn: ref, inputs: columns.map((c) => c.expr) });
  };
  return Object.assign(apply, { ref }) as unknown as UserDefinedFunction<any, any, any>;
}

/**
 * A row-wise UDF: `exportName` of `module` is called once per row with one JavaScript value per
 * column argument (numbers, strings, booleans, Date, Uint8Array, null), then `args` when given,
 * and returns the value (null or undefined for null). Convenient and slower: a vector UDF avoids
 * the per-row values.
 */
export function udf<const F extends string, const T extends UdfReturnType, const O extends UdfOptions = {}>(
  module: string | URL,
  exportName: F,
  returnType: T,
  options?: O,
): UserDefinedFunction<UdfResultType<T>, UdfResultNullable<T, O>, UdfName<F, O>> {
  return make("row", module, exportName, returnType, options);
}

/**
 * A vector UDF: `exportName` of `module` is called once per batch with one apache-arrow `Vector`
 * per column argument, then `args` when given, and returns the batch's results: a `Vector`, a
 * typed array (Float64Array for float64, Int32Array for int32, BigInt64Array for int64, Uint8Array
 * of 0/1 for boolean, epoch milliseconds for timestamp) or an array, one value per row.
 */
export function vectorUdf<const F extends string, const T extends UdfReturnType, const O extends UdfOptions = {}>(
  module: string | URL,
  exportName: F,
  returnType: T,
  options?: O,
): UserDefinedFunction<UdfResultType<T>, UdfResultNullable<T, O>, UdfName<F, O>> {
  return make("vector", module, exportName, returnType, options);
}
