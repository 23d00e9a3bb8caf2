import { emptyBatch, type Batch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { emptyMetrics } from "../batch/task-metrics.js";
import type { OutputMode } from "../config/options.js";
import type { BatchInfo, StatefulExec } from "../operators/exec.js";
import { OperatorChain } from "../operators/run-operators.js";
import type { StateOperatorMetrics } from "../operators/state-metrics.js";
import type { PhysicalPlan } from "../planner/physical.js";
import type { StateStore, StateStoreProvider } from "../state/state-store.js";
import type { StateOperatorProgress } from "./progress.js";

/**
 * The driver half of a plan: its operators (stateful ones and what follows them), opened once
 * per run of a query over the state committed as `startVersion`, and driven batch after batch
 * through the one operator dispatcher. Without driver operators it is the union of the task
 * outputs.
 */
export class DriverStage {
  private readonly chain: OperatorChain;
  private readonly stores = new Map<number, StateStore>();
  private current: BatchInfo;

  constructor(
    private readonly plan: PhysicalPlan,
    outputMode: OutputMode,
    private readonly provider: StateStoreProvider,
    startVersion: number,
    staticTables: Readonly<Record<string, unknown>> = {},
  ) {
    this.current = { batchId: startVersion, watermarkMs: null, watermarkForLateEventsMs: null, batchTimestampMs: 0 };
    this.chain = new OperatorChain(plan.driver);
    const stage = this;
    this.chain.open({
      get batch() {
        return stage.current;
      },
      outputMode,
      staticTables,
      // Driver operators report through their own state metrics; task counters are per task.
      metrics: emptyMetrics(plan.watermarks.length),
      stateStore: (operatorId) => {
        let store = this.stores.get(operatorId);
        if (!store) this.stores.set(operatorId, (store = provider.load(operatorId, startVersion)));
        return store;
      },
    });
  }

  /** Runs one micro-batch over the task outputs; returns the rows for the sink. */
  run(inputs: readonly Batch[], batch: BatchInfo): Batch {
    this.current = batch;
    const out: Batch[] = [];
    for (const input of inputs) out.push(...this.chain.process(input));
    out.push(...this.chain.onWatermark(batch.watermarkMs));
    return union(out, this.plan.outputFields);
  }

  /**
   * Commits the state the last `run` wrote as `version`; returns the time it took in ms. The
   * provider may still be writing it: `durable()` waits for that.
   */
  commit(version: number): number {
    const start = performance.now();
    this.chain.commit(version);
    return performance.now() - start;
  }

  /** Resolves once the state of every commit so far is on disk (rejects naming what failed). */
  durable(): Promise<void> {
    return this.provider.durable();
  }

  /**
   * Spark's `stateOperators` progress of the last batch. Rows the workers dropped as late belong
   * to the first stateful operator, whose partial half dropped them.
   */
  stateOperators(droppedInWorkers: number): StateOperatorProgress[] {
    return this.chain.stateful.map((exec, i) => toProgress(exec, i === 0 ? droppedInWorkers : 0));
  }

  close(): void {
    this.chain.close();
  }
}

function union(batches: readonly Batch[], fields: Batch["fields"]): Batch {
  if (batches.length === 1) return batches[0]!;
  return batches.length === 0 ? emptyBatch(fields) : concatBatches(batches, fields);
}

function toProgress(exec: StatefulExec, droppedInWorkers: number): StateOperatorProgress {
  const m: StateOperatorMetrics | null = exec.lastMetrics();
  return {
    operatorName: exec.operatorName,
    numRowsTotal: m?.numRowsTotal ?? 0,
    numRowsUpdated: m?.numRowsUpdated ?? 0,
    numRowsRemoved: m?.numRowsRemoved ?? 0,
    allUpdatesTimeMs: Math.round(m?.allUpdatesTimeMs ?? 0),
    allRemovalsTimeMs: Math.round(m?.allRemovalsTimeMs ?? 0),
    commitTimeMs: Math.round(m?.commitTimeMs ?? 0),
    memoryUsedBytes: m?.memoryUsedBytes ?? 0,
    numRowsDroppedByWatermark: (m?.numRowsDroppedByWatermark ?? 0) + droppedInWorkers,
    numShufflePartitions: 1,
    numStateStoreInstances: 1,
    customMetrics: {},
  };
}
