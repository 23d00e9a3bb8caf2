import { filterBatch } from "../expr/compile.js";
import { project } from "../operators/project.js";
import { observeEventTime } from "../operators/observe-event-time.js";
import { partialAggregate } from "../operators/partial-aggregate.js";
import { probeStaticJoin, type StaticJoinTable } from "../operators/static-join.js";
import { assertNever } from "../expr/ast.js";
import { readInputSplit } from "../sources/read-split.js";
import { emptyMetrics, type Task, type TaskResult } from "./protocol.js";

/**
 * Runs one task: reads its input split into a columnar batch, then applies the pipeline's
 * stateless steps in order. The same function runs in worker threads and, with `workers: 0`,
 * inline on the driver.
 */
export async function runTask(task: Task): Promise<TaskResult> {
  const { pipeline, context } = task;
  const numWatermarks = pipeline.steps.reduce((n, s) => (s.op === "observeEventTime" ? Math.max(n, s.watermarkIndex + 1) : n), 0);
  const metrics = emptyMetrics(numWatermarks);
  let batch = await readInputSplit(pipeline.source, task.split, metrics);
  metrics.numInputRows = batch.numRows;

  for (const step of pipeline.steps) {
    switch (step.op) {
      case "filter":
        batch = filterBatch(batch, step.condition);
        break;
      case "project":
        batch = project(batch, step.exprs);
        break;
      case "observeEventTime":
        metrics.eventTime[step.watermarkIndex] = observeEventTime(batch, step.column, metrics.eventTime[step.watermarkIndex] ?? null);
        break;
      case "joinStatic":
        batch = probeStaticJoin(batch, task.staticTables[step.tableId] as StaticJoinTable, step.on, step.joinType);
        break;
      case "partialAggregate": {
        const out = partialAggregate(batch, step.spec, context.watermarkMs);
        batch = out.batch;
        metrics.numRowsDroppedByWatermark += out.numRowsDroppedByWatermark;
        break;
      }
      default:
        assertNever(step, "pipeline step");
    }
  }
  return { batch, metrics };
}
