import type { Batch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import type { OutputMode } from "../config/options.js";
import { StatefulAggregateExec } from "../operators/aggregate-exec.js";
import { DeduplicateExec } from "../operators/deduplicate-exec.js";
import type { StateOperatorMetrics } from "../operators/state-metrics.js";
import type { PhysicalPlan } from "../planner/physical.js";
import { InMemoryStateStoreProvider } from "../state/in-memory-provider.js";
import type { StateStoreProvider } from "../state/state-store.js";
import type { StateOperatorProgress } from "./progress.js";
import type { StatefulStage } from "./stateful-stage.js";

/** Every query has one stateful operator at most: it is operator 0 of the checkpoint's state. */
const OPERATOR_ID = 0;

/** Names the stateful operator in checkpoint metadata, so state is never read by another kind. */
export function statefulName(plan: PhysicalPlan): string | null {
  const s = plan.stateful;
  if (!s) return null;
  if (s.kind === "deduplicate") return `deduplicate(${s.keyColumns.join(",")})`;
  const keys = s.spec.keyFields.map((f) => f.name).join(",");
  const aggs = s.spec.aggs.map((a) => `${a.fn}`).join(",");
  return `aggregate(${keys};${aggs})`;
}

/**
 * The driver half of the plan's stateful operator, over state loaded at `version`; a pass-through
 * (the union of the task outputs) when the plan has none. With no provider (static queries) the
 * state lives for this one run.
 */
export function openStatefulStage(plan: PhysicalPlan, mode: OutputMode, stores: StateStoreProvider | null, version: number): StatefulStage {
  const inputFields = plan.inputs[0]!.outputFields;
  const concat = (batches: readonly Batch[], fields = inputFields) => (batches.length === 1 ? batches[0]! : concatBatches(batches, fields));
  const s = plan.stateful;
  if (!s) {
    return { run: (batches) => ({ output: concat(batches), progress: null }), commit: () => 0 };
  }
  const store = (stores ?? new InMemoryStateStoreProvider()).load(OPERATOR_ID, version);
  if (s.kind === "aggregate") {
    const exec = new StatefulAggregateExec(s.spec, mode, store);
    return {
      run(batches, watermarkMs) {
        exec.processPartials(batches);
        const { output, metrics } = exec.finishBatch(watermarkMs);
        return { output, progress: toProgress(metrics) };
      },
      commit: (v) => exec.commit(v),
    };
  }
  const exec = new DeduplicateExec(s, inputFields, store);
  return {
    run(batches, watermarkMs) {
      const kept = batches.map((b) => exec.process(b, watermarkMs));
      return { output: concat(kept), progress: toProgress(exec.finishBatch(watermarkMs)) };
    },
    commit: (v) => exec.commit(v),
  };
}

function toProgress(m: StateOperatorMetrics): StateOperatorProgress {
  return {
    operatorName: m.operatorName,
    numRowsTotal: m.numRowsTotal,
    numRowsUpdated: m.numRowsUpdated,
    numRowsRemoved: m.numRowsRemoved,
    allUpdatesTimeMs: Math.round(m.allUpdatesTimeMs),
    allRemovalsTimeMs: Math.round(m.allRemovalsTimeMs),
    commitTimeMs: Math.round(m.commitTimeMs),
    memoryUsedBytes: m.memoryUsedBytes,
    numRowsDroppedByWatermark: m.numRowsDroppedByWatermark,
    numShufflePartitions: 1,
    numStateStoreInstances: 1,
    customMetrics: {},
  };
}
