import type { Batch } from "../batch/batch.js";
import type { OutputMode } from "../config/options.js";
import { InternalError } from "../errors/errors.js";
import type { StateStore } from "../state/state-store.js";
import type { StateOperatorMetrics } from "./state-metrics.js";
import type { TaskMetrics } from "../batch/task-metrics.js";
import type { ProcessorTaskRunner } from "./processor-task.js";

/**
 * The one lifecycle of every physical operator (DESIGN §12), stateless or stateful, in workers
 * and on the driver:
 *
 *   open(ctx) -> process(batch)* -> onWatermark(ms) -> commit(version) -> ... -> close()
 *
 * A worker opens a stage's operators per task and runs one batch through them. The driver opens
 * its operators once per run of a query and drives them batch after batch: `process` for every
 * input batch of a micro-batch, `onWatermark` once when the micro-batch's input is done (emit
 * what became final, evict what expired), `commit` once the sink has the batch's output.
 */
export interface Exec {
  open(ctx: ExecContext): void;
  /** Vectorized work on one batch; null when nothing comes out (yet). */
  process(batch: Batch): Batch | null;
  /**
   * The micro-batch's input is done; `ms` is its watermark (null before any). An operator that
   * hands user code to the worker pool (transformWithState) answers once its tasks are done.
   */
  onWatermark(ms: number | null): Batch | null | Promise<Batch | null>;
  /** The state written since the last commit is version `version` (Spark's batchId + 1). */
  commit(version: number): void;
  close(): void;
}

/** The micro-batch being run: read it while processing, since it advances between batches of a run. */
export interface BatchInfo {
  readonly batchId: number;
  /**
   * The batch's watermark (epoch ms; null when the query has none, or in complete mode): what is
   * final by it is emitted and evicted (Spark's watermarkForEviction).
   */
  readonly watermarkMs: number | null;
  /**
   * Rows at or before it are late and dropped: the previous batch's watermark, since what the
   * current one makes final is emitted in this batch, rows of it included (Spark 3.4+'s
   * watermarkForLateEvents). Batch 0 uses its own.
   */
  readonly watermarkForLateEventsMs: number | null;
  readonly batchTimestampMs: number;
  /**
   * Set for the one batch of a static query: the input ends with it, so what an operator holds
   * back for the watermark is final (a static outer join emits its unmatched rows).
   */
  readonly endOfInput?: boolean;
}

export interface ExecContext {
  readonly batch: BatchInfo;
  readonly outputMode: OutputMode;
  /** Static join tables by id, as shared-memory handles (see static-join-table.ts). */
  readonly staticTables: Readonly<Record<string, unknown>>;
  /** Counters stateless operators add to (rows dropped as late, event-time statistics). */
  readonly metrics: TaskMetrics;
  /**
   * The state store of stateful operator `operatorId`, at the version this run starts from; an
   * operator with several stores (a join's two sides) numbers them by `partition`.
   */
  stateStore(operatorId: number, partition?: number): StateStore;
  /** Runs transformWithState's processor tasks in the worker pool: on the driver only (null in a task). */
  readonly processorTasks: ProcessorTaskRunner | null;
}

/** A stateful operator: its id (its position among the plan's stateful operators) and its figures. */
export interface StatefulExec extends Exec {
  readonly operatorId: number;
  /** Spark's `StateOperatorProgress.operatorName`. */
  readonly operatorName: string;
  /** Figures of the last finished micro-batch (after `onWatermark`), commit time included after `commit`. */
  lastMetrics(): StateOperatorMetrics | null;
}

export function isStateful(exec: Exec): exec is StatefulExec {
  return typeof (exec as Partial<StatefulExec>).lastMetrics === "function";
}

/** No-op defaults for the lifecycle: an operator overrides what it takes part in. */
export abstract class BaseExec implements Exec {
  private context: ExecContext | null = null;

  open(ctx: ExecContext): void {
    this.context = ctx;
  }

  protected get ctx(): ExecContext {
    if (this.context === null) throw new InternalError(`${this.constructor.name} was used before open()`);
    return this.context;
  }

  abstract process(batch: Batch): Batch | null;

  onWatermark(_ms: number | null): Batch | null | Promise<Batch | null> {
    return null;
  }

  commit(_version: number): void {}

  close(): void {}
}
