import type { Batch } from "../batch/batch.js";
import { type EventTimeStats, mergeStats } from "../batch/task-metrics.js";
import type { OutputMode } from "../config/options.js";
import type { BatchInfo } from "../operators/exec.js";
import type { InputPipeline } from "../planner/physical.js";
import type { TaskPool } from "../workers/pool.js";
import type { InputSplit } from "../sources/input-split.js";
import type { InputTask } from "../workers/protocol.js";

/** What one batch's tasks produced, with metrics folded per input pipeline. */
export interface PipelineOutput {
  /** Task outputs by input pipeline, each in split order. */
  readonly batches: readonly (readonly Batch[])[];
  readonly perInput: readonly InputFigures[];
  readonly eventTime: readonly (EventTimeStats | null)[];
}

export interface InputFigures {
  numInputRows: number;
  numMalformedRecords: number;
  /** Rows the pipeline's partial aggregation dropped as late (see InputPipeline.partialAggregateOf). */
  numRowsDroppedByWatermark: number;
}

/** The static tables a pipeline's stream-static joins read: a task carries those only (an initial state stays on the driver). */
function tablesOf(pipeline: InputPipeline, staticTables: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const ids = pipeline.operators.flatMap((op) => (op.op === "joinStatic" ? [op.tableId] : []));
  return Object.fromEntries(ids.filter((id) => id in staticTables).map((id) => [id, staticTables[id]]));
}

/**
 * Runs every split of every input pipeline as one task in the pool, and folds the task metrics.
 * Shared by streaming micro-batches and static queries, so both run the very same operators.
 */
export async function runPipelines(
  pool: TaskPool,
  inputs: readonly InputPipeline[],
  splits: readonly (readonly InputSplit[])[],
  context: BatchInfo,
  outputMode: OutputMode,
  staticTables: Readonly<Record<string, unknown>>,
  numWatermarks: number,
  /** Hears of each task as it completes: the split it read and its input rows (for the console progress bar). */
  onTaskDone?: (split: InputSplit, numInputRows: number) => void,
): Promise<PipelineOutput> {
  const tasks: InputTask[] = [];
  const owner: number[] = [];
  inputs.forEach((pipeline, i) => {
    const tables = tablesOf(pipeline, staticTables);
    for (const split of splits[i]!) {
      tasks.push({ kind: "input", pipeline, split, context, outputMode, staticTables: tables });
      owner.push(i);
    }
  });
  const results = await pool.runAll(tasks, onTaskDone && ((t, r) => onTaskDone(tasks[t]!.split, r.metrics.numInputRows)));
  const perInput: InputFigures[] = inputs.map(() => ({ numInputRows: 0, numMalformedRecords: 0, numRowsDroppedByWatermark: 0 }));
  const eventTime: (EventTimeStats | null)[] = Array.from({ length: numWatermarks }, () => null);
  results.forEach((r, t) => {
    const figures = perInput[owner[t]!]!;
    figures.numInputRows += r.metrics.numInputRows;
    figures.numMalformedRecords += r.metrics.numMalformedRecords;
    figures.numRowsDroppedByWatermark += r.metrics.numRowsDroppedByWatermark;
    r.metrics.eventTime.forEach((s, w) => {
      eventTime[w] = mergeStats(eventTime[w] ?? null, s);
    });
  });
  const batches: Batch[][] = inputs.map(() => []);
  results.forEach((r, t) => batches[owner[t]!]!.push(r.batch));
  return { batches, perInput, eventTime };
}
