import type { Batch } from "../batch/batch.js";
import { assertNever } from "../expr/ast.js";
import type { OperatorSpec } from "../planner/physical.js";
import { DeduplicateExec } from "./deduplicate-exec.js";
import { type Exec, type ExecContext, isStateful, type StatefulExec } from "./exec.js";
import { FilterExec } from "./filter-exec.js";
import { FinalAggregateExec } from "./final-aggregate-exec.js";
import { GenerateExec } from "./generate-exec.js";
import { LimitExec } from "./limit-exec.js";
import { ObserveEventTimeExec } from "./observe-event-time-exec.js";
import { PartialAggregateExec } from "./partial-aggregate-exec.js";
import { ProjectExec } from "./project-exec.js";
import { SessionMergeExec } from "./session-merge-exec.js";
import { SortExec } from "./sort-exec.js";
import { StaticJoinExec } from "./static-join-exec.js";
import { StreamJoinExec } from "./stream-join-exec.js";
import { TransformWithStateExec } from "./transform-with-state-exec.js";

/** The `*Exec` of an operator spec. */
export function createExec(spec: OperatorSpec): Exec {
  switch (spec.op) {
    case "filter":
      return new FilterExec(spec.condition);
    case "project":
      return new ProjectExec(spec.exprs);
    case "generate":
      return new GenerateExec(spec.exprs);
    case "observeEventTime":
      return new ObserveEventTimeExec(spec.column, spec.watermarkIndex);
    case "joinStatic":
      return new StaticJoinExec(spec);
    case "partialAggregate":
      return new PartialAggregateExec(spec.spec);
    case "finalAggregate":
      return new FinalAggregateExec(spec.operatorId, spec.spec);
    case "sessionMerge":
      return new SessionMergeExec(spec.operatorId, spec.spec);
    case "deduplicate":
      return new DeduplicateExec(spec.operatorId, spec);
    case "streamJoin":
      return new StreamJoinExec(spec.operatorId, spec);
    case "transformWithState":
      return new TransformWithStateExec(spec.operatorId, spec);
    case "sort":
      return new SortExec(spec.orders);
    case "limit":
      return new LimitExec(spec.n);
    default:
      return assertNever(spec, "operator");
  }
}

/**
 * The one dispatcher of a stage's operators, in a worker task and on the driver alike. A batch
 * goes through the operators in order until one holds it back (returns null); when the
 * micro-batch's input is done, each operator's `onWatermark` output goes on through the
 * operators after it, before those get their own `onWatermark`, so what an aggregation emits
 * at the end of a batch is still filtered, projected, sorted and limited in the same batch.
 */
export class OperatorChain {
  readonly execs: readonly Exec[];
  private contexts: readonly ExecContext[] = [];

  constructor(specs: readonly OperatorSpec[]) {
    this.execs = specs.map(createExec);
  }

  /**
   * Opens every operator with `ctx`, or with `ctx(i)` for operator i: on the driver each stateful
   * operator has its own watermarks, and the operators that prepare its input share them.
   */
  open(ctx: ExecContext | ((index: number) => ExecContext)): void {
    this.contexts = this.execs.map((_, i) => (typeof ctx === "function" ? ctx(i) : ctx));
    this.execs.forEach((exec, i) => exec.open(this.contexts[i]!));
  }

  /** The batches that came out of the last operator for `batch` (none or one). */
  process(batch: Batch): Batch[] {
    return this.from(0, batch);
  }

  /** Ends the micro-batch: what every operator emits at its eviction watermark, through the rest of the chain. */
  async onWatermark(): Promise<Batch[]> {
    const out: Batch[] = [];
    for (let i = 0; i < this.execs.length; i++) {
      const emitted = await this.execs[i]!.onWatermark(this.contexts[i]!.batch.watermarkMs);
      if (emitted !== null) out.push(...this.from(i + 1, emitted));
    }
    return out;
  }

  commit(version: number): void {
    for (const exec of this.execs) exec.commit(version);
  }

  /** Closes every operator, the last first, even when one of them throws (the first error is rethrown). */
  close(): void {
    let failure: { error: unknown } | null = null;
    for (const exec of [...this.execs].reverse()) {
      try {
        exec.close();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  get stateful(): readonly StatefulExec[] {
    return this.execs.filter(isStateful);
  }

  private from(start: number, batch: Batch): Batch[] {
    let current: Batch | null = batch;
    for (let i = start; i < this.execs.length && current !== null; i++) current = this.execs[i]!.process(current);
    return current === null ? [] : [current];
  }
}
