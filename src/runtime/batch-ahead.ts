import type { Trigger } from "../config/options.js";
import type { BatchInfo } from "../operators/exec.js";
import { driverOperators, type PhysicalPlan } from "../planner/physical.js";
import type { InputSplit } from "../sources/input-split.js";
import { type Offset, type StreamSource, sameOffset } from "../sources/source.js";
import type { PipelineOutput } from "./batch-runner.js";
import type { BatchTimings } from "./progress-builder.js";

/**
 * Batch N+1 as planned and started while batch N's driver half, sink write and commit ran: its
 * end offsets, the watermark and timestamp its tasks run with, its splits and its tasks. Nothing
 * of it is durable until `offsets/N+1` is written after `commits/N`.
 */
export interface BatchStartedAhead {
  readonly ends: readonly Offset[];
  readonly watermarkMs: number | null;
  readonly batchTimestampMs: number;
  readonly timings: BatchTimings;
  readonly splits: readonly (readonly InputSplit[])[];
  readonly tasks: Promise<PipelineOutput>;
}

/** What starting a batch ahead needs of the micro-batch loop. */
export interface BatchAheadDeps {
  readonly sources: readonly StreamSource[];
  readonly now: () => number;
  /** What the batch's tasks and operators know of it (MicroBatchExecution.batchInfo). */
  readonly batchInfo: (batchId: number, watermarkMs: number | null, lateBy: number | null, batchTimestampMs: number) => BatchInfo;
  /** Runs a batch's splits as tasks in the pool. */
  readonly startTasks: (splits: readonly (readonly InputSplit[])[], info: BatchInfo) => Promise<PipelineOutput>;
}

/**
 * Micro-batches that overlap: batch N+1 is planned and its tasks started while batch N finishes
 * on the driver (its stateful operators, sink write and commit), so the workers do not wait for
 * the driver. Everything batch N+1's tasks depend on is known once batch N's tasks are done: its
 * start offsets (N's end), the watermark it runs with (from N's event times; `overlaps` leaves
 * out plans whose driver observes event times), and the watermark that judges late rows (N's).
 * Its offsets are logged only after `commits/N` (MicroBatchExecution.constructNextBatch), so a
 * crash in between loses nothing but work: the restarted run plans batch N+1 afresh.
 */
export class BatchAhead {
  /** Batch N+1, planned and started during batch N; null when there was nothing new or none was started. */
  private started: Promise<BatchStartedAhead | null> | null = null;

  constructor(private readonly deps: BatchAheadDeps) {}

  /**
   * Whether batch N+1's tasks may start while batch N finishes on the driver: under triggers that
   * run batches back to back (a processingTime trigger waits for its interval, a latencyTarget
   * trigger measures each batch on its own), and when the next batch's watermark is known once the
   * tasks are done (no withWatermark after a stateful operator, whose event times the driver sees).
   */
  static overlaps(plan: PhysicalPlan, trigger: Trigger): boolean {
    if (trigger.kind !== "default" && trigger.kind !== "availableNow") return false;
    return !driverOperators(plan).some((op) => op.op === "observeEventTime");
  }

  /** Plans batch `batchId` from `from` and starts its tasks; it is null (nothing new) or taken by `take`. */
  start(batchId: number, from: readonly Offset[], watermarkMs: number | null, lateBy: number | null): void {
    const { sources, now } = this.deps;
    const planned = (async (): Promise<BatchStartedAhead | null> => {
      const triggerStart = now();
      const timings: BatchTimings = { triggerStart };
      const ends = await Promise.all(sources.map((s, i) => s.latestOffset(from[i])));
      timings.latestOffset = now() - triggerStart;
      if (ends.every((o, i) => sameOffset(o, from[i]))) return null;
      const t = now();
      const splits = await Promise.all(sources.map((s, i) => s.planSplits(from[i], ends[i])));
      timings.getBatch = now() - t;
      const tasks = this.deps.startTasks(splits, this.deps.batchInfo(batchId, watermarkMs, lateBy, triggerStart));
      // Awaited when the batch runs, or by `discard`: never an unhandled rejection meanwhile.
      tasks.catch(() => undefined);
      return { ends, watermarkMs, batchTimestampMs: triggerStart, timings, splits, tasks };
    })();
    planned.catch(() => undefined);
    this.started = planned;
  }

  /**
   * The batch started ahead, if any and if it still holds: the watermark batch N committed,
   * `watermarkMs`, must be the one its tasks ran with (it is, unless the driver's operators moved
   * it, which `overlaps` rules out; checked all the same), else it is dropped and planned again.
   */
  async take(watermarkMs: number | null): Promise<BatchStartedAhead | null> {
    const pending = this.started;
    this.started = null;
    const ahead = pending && (await pending);
    if (!ahead) return null;
    if (ahead.watermarkMs === watermarkMs) return ahead;
    await ahead.tasks.catch(() => undefined);
    return null;
  }

  /** Waits for a batch started ahead to finish its tasks and forgets it (the run stops or failed). */
  async discard(): Promise<void> {
    const pending = this.started;
    this.started = null;
    const ahead = await pending?.catch(() => null);
    await ahead?.tasks.catch(() => undefined);
  }
}
