import type { Batch } from "../batch/batch.js";
import { buildStaticJoinTable } from "../operators/static-join-table.js";
import type { LogicalPlan } from "../plan/logical.js";
import type { PhysicalPlan } from "../planner/physical.js";
import { planPhysical } from "../planner/planner.js";
import { prepareQuery } from "./query-preparation.js";
import { checkRegistryDecoding } from "./registry-preparation.js";
import { staticSplits } from "../sources/source-runtimes.js";
import { InMemoryStateStoreProvider } from "../state/in-memory-provider.js";
import type { InputSplit } from "../sources/input-split.js";
import { runPipelines } from "./batch-runner.js";
import { SplitProgress } from "./input-progress.js";
import { DriverStage, processorTaskRunner } from "./driver-stage.js";
import type { EngineContext } from "./engine-context.js";

/**
 * Runs a static (`read`) plan to one batch with the very operators streams use: one task per
 * input split, then the driver operators once, in complete mode, over state that lives for this
 * run only. The console progress bar follows the tasks under the name of the `action`.
 */
export async function executeStatic(engine: EngineContext, plan: LogicalPlan, action = "read"): Promise<Batch> {
  const physical = planPhysical(plan);
  checkRegistryDecoding(physical);
  await prepareQuery(plan);
  const staticTables = await buildStaticTables(engine, physical);
  const splits = await Promise.all(physical.inputs.map((p) => staticSplits(p.source, { tableBatches: (id) => engine.tableBatches(id) })));
  const batch = { batchId: 0, watermarkMs: null, watermarkForLateEventsMs: null, batchTimestampMs: Date.now(), endOfInput: true };
  // Splits are tallied only when a bar is drawn: without one, a static action does no extra work.
  const tally = engine.consoleProgress.willDraw() ? new SplitProgress(splits.flat()) : null;
  const progress = engine.consoleProgress.begin(action, tally?.totals);
  try {
    const onTaskDone = tally ? (split: InputSplit, rows: number) => progress.advance(tally.completed(split, rows)) : undefined;
    const out = await runPipelines(engine.pool, physical.inputs, splits, batch, "complete", staticTables, physical.watermarks.length, onTaskDone);
    const stage = new DriverStage(physical, "complete", new InMemoryStateStoreProvider(), 0, processorTaskRunner(engine.pool), staticTables);
    try {
      return await stage.run(out.batches, batch);
    } finally {
      stage.close();
    }
  } finally {
    progress.end();
  }
}

/**
 * The static DataFrames the plan reads, each run once: a stream-static join's side built into a
 * shared hash table, a transformWithState initial state kept as its batch.
 */
export async function buildStaticTables(engine: EngineContext, plan: PhysicalPlan): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const t of plan.staticTables) {
    const rows = await executeStatic(engine, t.plan, t.use === "join" ? "static join side" : "initial state");
    out[t.tableId] = t.use === "join" ? buildStaticJoinTable(rows, t.on) : rows;
  }
  return out;
}
