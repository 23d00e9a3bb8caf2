import { emptyBatch, type Batch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { type EventTimeStats, emptyMetrics, type TaskMetrics } from "../batch/task-metrics.js";
import type { OutputMode } from "../config/options.js";
import { isStateful, type BatchInfo, type ExecContext, type StatefulExec } from "../operators/exec.js";
import { OperatorChain } from "../operators/run-operators.js";
import type { StateOperatorMetrics } from "../operators/state-metrics.js";
import { StreamJoinExec } from "../operators/stream-join-exec.js";
import type { ProcessorTaskRunner } from "../operators/processor-task.js";
import { TransformWithStateExec } from "../operators/transform-with-state-exec.js";
import { driverInputs, type DriverNode, type PhysicalPlan } from "../planner/physical.js";
import type { StateStore, StateStoreProvider } from "../state/state-store.js";
import type { TaskPool } from "../workers/pool.js";
import type { StateOperatorProgress } from "./progress.js";
import { propagateWatermarks, watermarkOwners } from "./watermark-propagation.js";

/** A driver node with its operators opened. */
type RunNode =
  | { readonly kind: "pipelines"; readonly pipelines: readonly number[] }
  | { readonly kind: "operators"; readonly input: RunNode; readonly chain: OperatorChain }
  | { readonly kind: "join"; readonly left: RunNode; readonly right: RunNode; readonly exec: StreamJoinExec; readonly ctx: ExecContext }
  | { readonly kind: "union"; readonly inputs: readonly RunNode[] };

/**
 * The driver half of a plan: its tree of operators (stateful ones and what follows them), opened
 * once per run of a query over the state committed as `startVersion`, and driven batch after
 * batch through the one operator dispatcher. Each stateful operator runs with its own watermarks
 * (see watermark-propagation.ts); a node's whole output for the batch, what its operators emit
 * when the batch ends included, reaches the node above before that one ends the batch.
 */
export class DriverStage {
  private readonly root: RunNode;
  private readonly stores = new Map<string, StateStore>();
  private readonly stateful: StatefulExec[] = [];
  private current: BatchInfo;
  private evictionBy = new Map<number, number | null>();
  private lateBy = new Map<number, number | null>();
  /**
   * What the driver's operators report during one batch: the event times a withWatermark after a
   * stateful operator observes (the workers report those of the pipelines' in their task metrics).
   */
  private batchMetrics: TaskMetrics;

  constructor(
    private readonly plan: PhysicalPlan,
    private readonly outputMode: OutputMode,
    private readonly provider: StateStoreProvider,
    private readonly startVersion: number,
    private readonly processorTasks: ProcessorTaskRunner,
    private readonly staticTables: Readonly<Record<string, unknown>> = {},
  ) {
    this.current = { batchId: startVersion, watermarkMs: null, watermarkForLateEventsMs: null, batchTimestampMs: 0 };
    this.batchMetrics = emptyMetrics(plan.watermarks.length);
    this.root = this.open(plan.driver, null);
    // Spark lists a query's stateful operators from the sink down: the last one in data flow first.
    this.stateful.sort((a, b) => b.operatorId - a.operatorId);
  }

  /** Runs one micro-batch over the task outputs (by input pipeline); returns the rows for the sink. */
  async run(inputs: readonly (readonly Batch[])[], batch: BatchInfo): Promise<Batch> {
    this.current = batch;
    this.batchMetrics = emptyMetrics(this.plan.watermarks.length);
    this.evictionBy = propagateWatermarks(this.plan.driver, batch.watermarkMs);
    this.lateBy = propagateWatermarks(this.plan.driver, batch.watermarkForLateEventsMs);
    return union(await this.runNode(this.root, inputs), this.plan.outputFields);
  }

  /** Event times the last `run` observed on the driver, by watermark index (null: none). */
  eventTimeStats(): readonly (EventTimeStats | null)[] {
    return this.batchMetrics.eventTime;
  }

  /**
   * Commits the state the last `run` wrote as `version`; returns the time it took in ms. The
   * provider may still be writing it: `durable()` waits for that.
   */
  commit(version: number): number {
    const start = performance.now();
    this.forEachNode(this.root, (n) => (n.kind === "operators" ? n.chain.commit(version) : n.kind === "join" ? n.exec.commit(version) : undefined));
    return performance.now() - start;
  }

  /**
   * When a transformWithState's processing-time timer or TTL next falls due (epoch ms), null when
   * none waits: the run wants a batch then, even without new data.
   */
  nextDueMs(): number | null {
    const due = this.stateful.flatMap((exec) => (exec instanceof TransformWithStateExec ? [exec.nextDueMs()] : [])).filter((t): t is number => t !== null);
    return due.length === 0 ? null : Math.min(...due);
  }

  /** Resolves once the state of every commit so far is on disk (rejects naming what failed). */
  durable(): Promise<void> {
    return this.provider.durable();
  }

  /**
   * Spark's `stateOperators` progress of the last batch, the operator nearest the sink first.
   * `droppedByPipeline` are the rows each input pipeline's tasks dropped as late: they belong to
   * the aggregation whose partial half ends that pipeline.
   */
  stateOperators(droppedByPipeline: readonly number[]): StateOperatorProgress[] {
    return this.stateful.map((exec) => {
      const dropped = this.plan.inputs.reduce((n, p, i) => (p.partialAggregateOf === exec.operatorId ? n + (droppedByPipeline[i] ?? 0) : n), 0);
      return toProgress(exec, dropped);
    });
  }

  close(): void {
    let failure: { error: unknown } | null = null;
    this.forEachNode(this.root, (n) => {
      try {
        if (n.kind === "operators") n.chain.close();
        else if (n.kind === "join") n.exec.close();
      } catch (error) {
        failure ??= { error };
      }
    });
    if (failure) throw (failure as { error: unknown }).error;
  }

  private open(node: DriverNode, inherited: number | null): RunNode {
    switch (node.kind) {
      case "pipelines":
        return node;
      case "operators": {
        const input = this.open(node.input, inherited);
        const chain = new OperatorChain(node.operators);
        const owners = watermarkOwners(node.operators, inputOwner(input));
        chain.open((i) => this.contextFor(owners[i] ?? null));
        this.stateful.push(...chain.stateful);
        return { kind: "operators", input, chain };
      }
      case "join": {
        const left = this.open(node.left, inherited);
        const right = this.open(node.right, inherited);
        const exec = new StreamJoinExec(node.spec.operatorId, node.spec);
        const ctx = this.contextFor(node.spec.operatorId);
        exec.open(ctx);
        this.stateful.push(exec);
        return { kind: "join", left, right, exec, ctx };
      }
      case "union":
        return { kind: "union", inputs: node.inputs.map((input) => this.open(input, inherited)) };
    }
  }

  /** The context of operators that run with stateful operator `owner`'s watermarks (null: the global ones). */
  private contextFor(owner: number | null): ExecContext {
    const stage = this;
    return {
      get batch(): BatchInfo {
        const b = stage.current;
        if (owner === null || b.watermarkMs === null) return b;
        return { ...b, watermarkMs: stage.evictionBy.get(owner) ?? b.watermarkMs, watermarkForLateEventsMs: stage.lateBy.get(owner) ?? b.watermarkForLateEventsMs };
      },
      outputMode: this.outputMode,
      staticTables: this.staticTables,
      // Stateful operators report through their own state metrics; the others' counters are per batch.
      get metrics(): TaskMetrics {
        return stage.batchMetrics;
      },
      stateStore: (operatorId, partition = 0) => {
        const key = `${operatorId}/${partition}`;
        let store = this.stores.get(key);
        if (!store) this.stores.set(key, (store = this.provider.load(operatorId, this.startVersion, partition)));
        return store;
      },
      processorTasks: this.processorTasks,
    };
  }

  private async runNode(node: RunNode, inputs: readonly (readonly Batch[])[]): Promise<Batch[]> {
    switch (node.kind) {
      case "pipelines":
        return node.pipelines.flatMap((i) => inputs[i] ?? []);
      case "operators": {
        const out: Batch[] = [];
        for (const input of await this.runNode(node.input, inputs)) out.push(...node.chain.process(input));
        out.push(...(await node.chain.onWatermark()));
        return out;
      }
      case "join": {
        const left = await this.runNode(node.left, inputs);
        const right = await this.runNode(node.right, inputs);
        const out: Batch[] = [];
        for (const b of left) pushIf(out, node.exec.processSide(0, b));
        for (const b of right) pushIf(out, node.exec.processSide(1, b));
        pushIf(out, node.exec.onWatermark(node.ctx.batch.watermarkMs));
        return out;
      }
      case "union": {
        // Each input's whole output for the batch, what its operators emit at its end included,
        // input after input (Spark's Union concatenates its children's partitions).
        const out: Batch[] = [];
        for (const input of node.inputs) out.push(...(await this.runNode(input, inputs)));
        return out;
      }
    }
  }

  private forEachNode(node: RunNode, f: (n: RunNode) => void): void {
    for (const input of driverInputs(node)) this.forEachNode(input, f);
    f(node);
  }
}

/** Processor tasks run in `pool`: one per worker at most, or one inline with `workers: 0`. */
export function processorTaskRunner(pool: TaskPool): ProcessorTaskRunner {
  return { parallelism: Math.max(1, pool.size), run: (tasks) => pool.runAll(tasks) };
}

/**
 * The stateful operator whose output feeds a node (null: the pipelines, or a union of several
 * inputs, with the global watermark). Only the operators that prepare the next stateful
 * operator's input read a watermark, and they run with that operator's (`watermarkOwners`), so
 * what follows a union until then needs none of its own.
 */
function inputOwner(node: RunNode): number | null {
  switch (node.kind) {
    case "pipelines":
    case "union":
      return null;
    case "join":
      return node.exec.operatorId;
    case "operators": {
      const own = node.chain.execs.filter(isStateful);
      return own.length > 0 ? own[own.length - 1]!.operatorId : inputOwner(node.input);
    }
  }
}

function pushIf(out: Batch[], b: Batch | null): void {
  if (b !== null && b.numRows > 0) out.push(b);
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
    numStateStoreInstances: exec.operatorName === "symmetricHashJoin" ? 2 : 1,
    customMetrics: { ...m?.customMetrics },
  };
}
