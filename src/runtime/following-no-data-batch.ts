import type { OffsetsEntry } from "../checkpoint/checkpoint.js";
import type { EventTimeStats } from "../batch/task-metrics.js";
import type { BatchInfo } from "../operators/exec.js";
import type { InputSplit } from "../sources/input-split.js";
import type { Offset } from "../sources/source.js";
import type { BatchCompletion } from "./batch-completion.js";
import type { PipelineOutput } from "./batch-runner.js";
import type { DriverStage } from "./driver-stage.js";
import type { BatchTimings } from "./progress-builder.js";
import type { StateOperatorProgress } from "./progress.js";
import type { RelayedConf } from "./relayed-conf.js";
import type { WatermarkTracker } from "./watermark-tracker.js";

/** A no-data batch run straight after the batch before it, its rows written, not yet logged or committed. */
export interface FollowingBatch {
  readonly batchId: number;
  readonly entry: OffsetsEntry;
  readonly timings: BatchTimings;
  readonly out: PipelineOutput;
  readonly watermarkMs: number;
  readonly stateOperators: readonly StateOperatorProgress[];
  readonly numOutputRows: number;
}

/** What running a following no-data batch needs of the micro-batch loop, fixed for one run. */
export interface FollowingNoDataBatchDeps {
  readonly sourceCount: number;
  readonly stage: DriverStage;
  readonly tracker: WatermarkTracker;
  readonly completion: BatchCompletion;
  /** Recorded in the batch's offsets entry, as in every other. */
  readonly conf: RelayedConf;
  readonly now: () => number;
  readonly batchInfo: (batchId: number, watermarkMs: number | null, lateBy: number | null, batchTimestampMs: number) => BatchInfo;
  readonly startTasks: (splits: readonly (readonly InputSplit[])[], info: BatchInfo) => Promise<PipelineOutput>;
  readonly setActivity: (activity: string) => void;
}

/**
 * Under the default trigger, a batch that moves the watermark of a query whose operators emit or
 * evict by it is always followed by its no-data batch, with the first batch's timestamp, before
 * the first batch commits: its rows reach the sink one sink write after the data that made them
 * final, not a whole batch later. Spark runs the same no-data batch whenever no new data arrived
 * during the first; always running it makes the pair deterministic, so a restart after the first
 * batch's commit runs it too, whatever data waits (MicroBatchExecution.constructNextBatch).
 *
 * Its rows reach the sink before its offsets entry is logged, which write-ahead would forbid: the
 * batch is fully determined by commits/N and offsets/N, so nothing it wrote can differ on a re-run.
 */
export class FollowingNoDataBatches {
  constructor(private readonly deps: FollowingNoDataBatchDeps) {}

  /** The watermark of the no-data batch that runs straight after a batch with these event times, or null when none does. */
  watermarkAfter(eventTime: readonly (EventTimeStats | null)[]): number | null {
    const { tracker } = this.deps;
    const next = tracker.peek(eventTime);
    const now = tracker.current;
    return next !== null && now !== null && next > now ? next : null;
  }

  /** Runs the no-data batch `batchId` that follows the batch of `previous` and writes its rows to the sink; `complete` logs and commits it. */
  async run(batchId: number, previous: OffsetsEntry, watermarkMs: number): Promise<FollowingBatch> {
    const { stage, completion, now } = this.deps;
    const timings: BatchTimings = { triggerStart: now(), latestOffset: 0, getBatch: 0 };
    const entry: OffsetsEntry = { sources: previous.sources, batchWatermarkMs: watermarkMs, batchTimestampMs: previous.batchTimestampMs, conf: this.deps.conf };
    const info = this.deps.batchInfo(batchId, watermarkMs, previous.batchWatermarkMs, previous.batchTimestampMs);
    this.deps.setActivity(`running batch ${batchId}, the no-data batch after batch ${batchId - 1}`);
    const out = await this.deps.startTasks(Array.from({ length: this.deps.sourceCount }, () => []), info);
    const result = await stage.run(out.batches, info);
    const stateOperators = completion.commitState(batchId, out);
    await completion.writeToSink(batchId, result);
    timings.addBatch = now() - timings.triggerStart;
    return { batchId, entry, timings, out, watermarkMs, stateOperators, numOutputRows: result.numRows };
  }

  /** Logs the batch's offsets entry once the batch before it committed, then commits it. */
  async complete(following: FollowingBatch, end: readonly Offset[], latestOffsets: readonly Offset[]): Promise<void> {
    await this.deps.completion.logOffsets(following.batchId, following.entry, following.timings);
    await this.deps.completion.commit({ ...following, start: end, end, latestOffsets, sizing: null });
  }
}
