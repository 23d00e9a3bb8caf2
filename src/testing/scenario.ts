// Streaming test scenarios as data: a query is named by the module that builds it and the export
// that does, never passed as a closure, so a child process can build the same query itself (the
// rule Sluice follows for UDFs, see src/expr/udf-modules.ts). A scenario module exports builders
// `(session, ...args) => { inputs, df }`; a `StreamScenario` adds the actions and answers, which stay
// in the test's process: the actions name the inputs a local build of the query returned.
import type { DataFrame } from "../api/data-frame.js";
import type { MemoryStream } from "../api/memory-stream.js";
import type { Session } from "../api/session.js";
import type { OutputMode } from "../config/options.js";
import type { StreamAction } from "./stream-test.js";

/** A built query: its memory-stream inputs, in the order actions and the new-process runner use them, and the query. */
export interface ScenarioQuery {
  readonly inputs: readonly MemoryStream<any>[];
  readonly df: DataFrame<any>;
}

/** Arguments a builder takes: plain data (they travel to a child process as JSON). */
export type ScenarioArg = string | number | boolean | null;

export type ScenarioBuilder = (session: Session, ...args: any[]) => ScenarioQuery;

/** Names a builder: the module's URL, the export's name and its arguments. */
export interface ScenarioRef {
  readonly module: string;
  readonly exportName: string;
  readonly args: readonly ScenarioArg[];
}

export function scenarioRef(module: string, exportName: string, ...args: ScenarioArg[]): ScenarioRef {
  return { module, exportName, args };
}

/** Builds the query `ref` names in `session`, importing its module (once per process, as every import). */
export async function buildScenario(session: Session, ref: ScenarioRef): Promise<ScenarioQuery> {
  const mod = (await import(ref.module)) as Record<string, unknown>;
  const builder = mod[ref.exportName];
  if (typeof builder !== "function") throw new Error(`scenario module ${ref.module} has no function export "${ref.exportName}"`);
  const built = (builder as ScenarioBuilder)(session, ...ref.args);
  if (!built || !Array.isArray(built.inputs) || !built.df) throw new Error(`scenario ${ref.exportName} of ${ref.module} returned no { inputs, df }`);
  return built;
}

/** A ported test: a query, the output mode it runs in, and its actions with the expected answers. */
export interface StreamScenario {
  readonly name: string;
  readonly query: ScenarioRef;
  readonly outputMode: OutputMode;
  /** Why the scenario cannot be stopped and restarted after every step, where it cannot. */
  readonly noRestartEachStep?: string;
  readonly actions: (inputs: readonly MemoryStream<any>[]) => readonly StreamAction[];
}
