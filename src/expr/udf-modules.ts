import { AnalysisError, PreparationNeeded } from "../errors/errors.js";
import { children, type Expr, type ProcessorRef, type UdfRef } from "./ast.js";

/**
 * The functions of user-defined functions, imported by each process that runs them. A UDF is plan
 * data (module + export name, `UdfRef`), so a worker thread imports the module itself the first time
 * a task needs it: expressions are synchronous, so compiling one whose module is not imported yet
 * throws PreparationNeeded, whose `prepare` imports it, and the task runs again (workers/run-task.ts).
 * The driver imports every module a query names when the query starts (runtime/query-preparation.ts),
 * so its own operators (after an aggregation) and inline tasks (`workers: 0`) find them loaded.
 *
 * Every import happens here, in this one module, so a package specifier resolves the same way on
 * the driver and in every worker: as an import written in Sluice's own code would.
 */

export type UdfFunction = (...values: any[]) => unknown;

/** Imported functions by `module#export`: kept for the life of the process, as modules are. */
const loaded = new Map<string, UdfFunction>();

const keyOf = (ref: UdfRef | ProcessorRef) => `${ref.module}#${ref.exportName}`;

/** How a UDF is named in errors: its name, export and module. */
export function describeUdf(ref: UdfRef): string {
  const what = ref.form === "vector" ? "vectorUdf" : "udf";
  const source = ref.name === ref.exportName ? `export of ${ref.module}` : `export "${ref.exportName}" of ${ref.module}`;
  return `${what} "${ref.name}" (${source})`;
}

/**
 * The function of `ref`, when this process has imported it; otherwise PreparationNeeded, which
 * imports it. Synchronous, for compiled expressions and for other operators that call UDFs.
 */
export function udfFunction(ref: UdfRef): UdfFunction {
  const fn = loaded.get(keyOf(ref));
  if (fn !== undefined) return fn;
  throw new PreparationNeeded(
    `${describeUdf(ref)} is imported before it runs: in input tasks by the task itself, on the driver when the query starts; this operator ran before it was imported`,
    () => importUdf(ref),
  );
}

/** Imports the module of `ref` (once per process) and checks that the export is a function. */
export async function importUdf(ref: UdfRef): Promise<void> {
  const key = keyOf(ref);
  if (!loaded.has(key)) loaded.set(key, (await importExport(ref.module, ref.exportName, describeUdf(ref))) as UdfFunction);
}

/** How a stateful processor is named in errors: its name, export and module. */
export function describeProcessor(ref: ProcessorRef): string {
  const source = ref.name === ref.exportName ? `export of ${ref.module}` : `export "${ref.exportName}" of ${ref.module}`;
  return `stateful processor "${ref.name}" (${source})`;
}

/** Imported processor classes by `module#export`. */
const processors = new Map<string, new (args: unknown) => unknown>();

/** The class of a processor this process has imported (the driver imports them when a query starts). */
export function processorClass(ref: ProcessorRef): new (args: unknown) => unknown {
  const cls = processors.get(keyOf(ref));
  if (cls !== undefined) return cls;
  throw new PreparationNeeded(`${describeProcessor(ref)} is imported when the query starts; this operator ran before it was imported`, () => importProcessor(ref));
}

/** Imports the module of a processor (once per process) and checks that the export is a class. */
export async function importProcessor(ref: ProcessorRef): Promise<void> {
  const key = keyOf(ref);
  if (processors.has(key)) return;
  const cls = await importExport(ref.module, ref.exportName, describeProcessor(ref));
  if (typeof cls.prototype !== "object" || cls.prototype === null) {
    throw new AnalysisError(`${describeProcessor(ref)}: the export is an arrow function or method, not a class; export a class whose instances have init and handleInputRows`);
  }
  processors.set(key, cls as unknown as new (args: unknown) => unknown);
}

/** The export `exportName` of `module`, which must be a function; errors name `what`. */
async function importExport(module: string, exportName: string, what: string): Promise<(...args: unknown[]) => unknown> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(module)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AnalysisError(
      `${what}: the module cannot be imported: ${reason}. ` +
        'Give a file: URL (e.g. new URL("./udfs.js", import.meta.url)), an absolute path, or a package name the application can import',
      { cause: error },
    );
  }
  if (!(exportName in mod)) {
    const exported = Object.keys(mod).filter((k) => typeof mod[k] === "function");
    throw new AnalysisError(
      `${what}: the module has no export named "${exportName}"; its function exports are ${exported.length ? exported.map((k) => `"${k}"`).join(", ") : "none"}`,
    );
  }
  const fn = mod[exportName];
  if (typeof fn !== "function") {
    throw new AnalysisError(`${what}: export "${exportName}" is ${fn === null ? "null" : typeof fn}, not a function`);
  }
  return fn as (...args: unknown[]) => unknown;
}

/** Every UDF an expression calls, by module and export. */
export function udfsOf(e: Expr, into: Map<string, UdfRef> = new Map()): Map<string, UdfRef> {
  if (e.kind === "udf") into.set(keyOf(e.fn), e.fn);
  for (const c of children(e)) udfsOf(c, into);
  return into;
}

/**
 * Makes sure every UDF `e` calls is imported in this process: one PreparationNeeded importing all
 * that are missing, so a task runs again once per expression rather than once per UDF.
 */
export function requireUdfs(e: Expr): void {
  const missing = [...udfsOf(e).values()].filter((ref) => !loaded.has(keyOf(ref)));
  if (missing.length === 0) return;
  throw new PreparationNeeded(
    `${missing.map(describeUdf).join(", ")} must be imported before the expression runs: input tasks import it themselves, the driver when the query starts`,
    () => Promise.all(missing.map(importUdf)),
  );
}

/**
 * Every UDF and stateful processor a plan (or any plan data) names, found by
 * walking its plain objects and arrays; sources are skipped (they hold no expressions).
 */
export function udfRefsIn(value: unknown, into: Map<string, UdfRef | ProcessorRef> = new Map(), seen: Set<object> = new Set()): Map<string, UdfRef | ProcessorRef> {
  if (value === null || typeof value !== "object" || seen.has(value)) return into;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const v of value) udfRefsIn(v, into, seen);
    return into;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return into;
  const record = value as Record<string, unknown>;
  if (record.kind === "udfRef" || record.kind === "processorRef") {
    const ref = record as unknown as UdfRef | ProcessorRef;
    into.set(keyOf(ref), ref);
    return into;
  }
  for (const [k, v] of Object.entries(record)) if (k !== "source") udfRefsIn(v, into, seen);
  return into;
}
