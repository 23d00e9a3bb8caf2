import { emptyBatch, type Batch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { emptyMetrics, type TaskMetrics } from "../batch/task-metrics.js";
import { InternalError } from "../errors/errors.js";
import { assertNever } from "../expr/ast.js";
import { OperatorChain } from "../operators/run-operators.js";
import { crashPoint } from "../faults/crash-points.js";
import { readInputSplit } from "../sources/source-runtimes.js";
import { runProcessorTask } from "../operators/processor-run.js";
import { runPrepared } from "./run-prepared.js";
import { runRealTimeTask } from "./run-real-time-task.js";
import type { InputTask, InputTaskResult, Task, TaskResult } from "./protocol.js";

/**
 * Runs one task: an input task reads its input split into a columnar batch, then runs the
 * pipeline's operators over it through the same dispatcher the driver uses; a processor task runs
 * a transformWithState processor over its keys. The same function runs in worker threads and,
 * with `workers: 0`, inline on the driver.
 */
export async function runTask(task: Task): Promise<TaskResult> {
  switch (task.kind) {
    case "input":
      return runInputTask(task);
    case "processor":
      return runProcessorTask(task);
    case "realTime":
      return runRealTimeTask(task);
    default:
      return assertNever(task, "task");
  }
}

async function runInputTask(task: InputTask): Promise<InputTaskResult> {
  const { pipeline, context } = task;
  const numWatermarks = pipeline.operators.reduce((n, s) => (s.op === "observeEventTime" ? Math.max(n, s.watermarkIndex + 1) : n), 0);
  const metrics = emptyMetrics(numWatermarks);
  const input = await readInputSplit(pipeline.source, task.split, metrics);
  metrics.numInputRows = input.numRows;
  crashPoint("inTask", context.batchId);

  // The operators run again after a schema registry lookup (runPrepared) with the metrics they had
  // before, since they keep nothing between runs.
  const before = structuredClone(metrics);
  return runPrepared((attempt) => runOperators(task, input, attempt === 1 ? metrics : structuredClone(before)));
}

async function runOperators(task: InputTask, input: Batch, metrics: TaskMetrics): Promise<InputTaskResult> {
  const { pipeline, context } = task;
  const chain = new OperatorChain(pipeline.operators);
  chain.open({
    batch: context,
    outputMode: task.outputMode,
    staticTables: task.staticTables,
    metrics,
    stateStore: (operatorId) => {
      throw new InternalError(`stateful operator ${operatorId} was planned into a worker pipeline; it runs on the driver`);
    },
    processorTasks: null,
  });
  try {
    const out = [...chain.process(input), ...(await chain.onWatermark())];
    return { kind: "input", batch: single(out, pipeline.outputFields), metrics };
  } finally {
    chain.close();
  }
}

function single(batches: readonly Batch[], fields: Batch["fields"]): Batch {
  if (batches.length === 1) return batches[0]!;
  return batches.length === 0 ? emptyBatch(fields) : concatBatches(batches, fields);
}
