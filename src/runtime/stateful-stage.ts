import type { Batch } from "../batch/batch.js";
import type { StateOperatorProgress } from "./progress.js";

/**
 * The driver half of a query's stateful operator (or a pass-through when it has none): takes the
 * batch's task outputs, returns the rows the output mode emits, and commits state versions.
 */
export interface StatefulStage {
  run(inputs: readonly Batch[], watermarkMs: number | null): { output: Batch; progress: StateOperatorProgress | null };
  /** Makes the state written by the last `run` the given version (Spark: batchId + 1); returns ms taken. */
  commit(version: number): number;
}
