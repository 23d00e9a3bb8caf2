import type { Batch } from "../batch/batch.js";
import { filterBatch } from "../expr/compile.js";
import { project } from "../operators/project.js";
import { assertNever } from "../expr/ast.js";
import { limitBatch, sortBatch } from "../kernels/sort.js";
import type { InputPipeline, PostStep } from "../planner/physical.js";
import type { TaskPool } from "../workers/pool.js";
import type { EventTimeStats, InputSplit, Task, TaskContext } from "../workers/protocol.js";
import { mergeStats } from "./watermark-tracker.js";

/** What one batch's tasks produced, with metrics folded per input pipeline. */
export interface PipelineOutput {
  /** Task outputs, grouped by input pipeline, in split order. */
  readonly batches: readonly Batch[];
  readonly perInput: readonly InputFigures[];
  readonly eventTime: readonly (EventTimeStats | null)[];
  readonly numRowsDroppedByWatermark: number;
}

export interface InputFigures {
  numInputRows: number;
  numMalformedRecords: number;
}

/**
 * Runs every split of every input pipeline as one task in the pool, and folds the task metrics.
 * Shared by streaming micro-batches and static queries, so both run the very same operators.
 */
export async function runPipelines(
  pool: TaskPool,
  inputs: readonly InputPipeline[],
  splits: readonly (readonly InputSplit[])[],
  context: TaskContext,
  staticTables: Readonly<Record<string, unknown>>,
  numWatermarks: number,
): Promise<PipelineOutput> {
  const tasks: Task[] = [];
  const owner: number[] = [];
  inputs.forEach((pipeline, i) => {
    for (const split of splits[i]!) {
      tasks.push({ pipeline, split, context, staticTables });
      owner.push(i);
    }
  });
  const results = await pool.runAll(tasks);
  const perInput: InputFigures[] = inputs.map(() => ({ numInputRows: 0, numMalformedRecords: 0 }));
  const eventTime: (EventTimeStats | null)[] = Array.from({ length: numWatermarks }, () => null);
  let dropped = 0;
  results.forEach((r, t) => {
    const figures = perInput[owner[t]!]!;
    figures.numInputRows += r.metrics.numInputRows;
    figures.numMalformedRecords += r.metrics.numMalformedRecords;
    dropped += r.metrics.numRowsDroppedByWatermark;
    r.metrics.eventTime.forEach((s, w) => {
      eventTime[w] = mergeStats(eventTime[w] ?? null, s);
    });
  });
  return { batches: results.map((r) => r.batch), perInput, eventTime, numRowsDroppedByWatermark: dropped };
}

/** Driver-side steps on the rows the stateful operator (or the union of inputs) produced. */
export function applyPostSteps(batch: Batch, steps: readonly PostStep[]): Batch {
  let out = batch;
  for (const step of steps) {
    switch (step.op) {
      case "filter":
        out = filterBatch(out, step.condition);
        break;
      case "project":
        out = project(out, step.exprs);
        break;
      case "sort":
        out = sortBatch(out, step.orders);
        break;
      case "limit":
        out = limitBatch(out, step.n);
        break;
      default:
        assertNever(step, "post step");
    }
  }
  return out;
}
