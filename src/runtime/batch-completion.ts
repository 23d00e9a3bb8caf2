import type { BatchLog } from "../checkpoint/batch-log.js";
import type { OffsetsEntry } from "../checkpoint/checkpoint.js";
import type { Batch } from "../batch/batch.js";
import { crashPoint } from "../faults/crash-points.js";
import type { Offset } from "../sources/source.js";
import type { PipelineOutput } from "./batch-runner.js";
import type { BatchSizingProgress } from "./batch-sizer.js";
import type { DriverStage } from "./driver-stage.js";
import type { ExecutionDeps } from "./execution-deps.js";
import { buildProgress, type BatchTimings } from "./progress-builder.js";
import type { StateOperatorProgress } from "./progress.js";
import type { WatermarkTracker } from "./watermark-tracker.js";

/** What committing and reporting a batch needs once its rows are in the sink. */
export interface BatchToCommit {
  readonly batchId: number;
  readonly start: readonly Offset[];
  readonly end: readonly Offset[];
  readonly timings: BatchTimings;
  readonly out: PipelineOutput;
  readonly latestOffsets: readonly Offset[];
  /** The watermark the batch ran with. */
  readonly watermarkMs: number | null;
  readonly stateOperators: readonly StateOperatorProgress[];
  readonly numOutputRows: number;
  readonly sizing: BatchSizingProgress | null;
}

/** What completing batches needs of the micro-batch loop, fixed for one run. */
export interface BatchCompletionDeps {
  readonly query: Pick<ExecutionDeps, "id" | "runId" | "name" | "plan" | "sources" | "sink" | "outputMode" | "checkpoint" | "minBatchesToRetain" | "onProgress">;
  readonly stage: DriverStage;
  readonly tracker: WatermarkTracker;
  readonly now: () => number;
  /** Writes a log entry only this run may write; throws once the run was abandoned. */
  readonly addLogEntry: <T>(log: BatchLog<T>, batchId: number, entry: T) => Promise<void>;
  /** Throws once the run was abandoned: called before every step that leaves a trace. */
  readonly checkNotAbandoned: (step: string) => void;
  /** Tells the loop what the run is doing, for a stop that times out. */
  readonly setActivity: (activity: string) => void;
  /** Moves the loop past a committed batch; called after commits/N, before its progress is reported. */
  readonly advancePast: (b: BatchToCommit, watermarkMoved: boolean) => void;
}

/**
 * The end of a batch once its driver operators ran: its state committed, its rows written to the
 * sink, then made durable (commits/N), its end offsets handed to the sources and its progress
 * reported. The same steps serve a data batch and the no-data batch that follows one at once.
 */
export class BatchCompletion {
  constructor(private readonly deps: BatchCompletionDeps) {}

  /** Writes `offsets/<batchId>` and times it as the batch's walCommit. */
  async logOffsets(batchId: number, entry: OffsetsEntry, timings: BatchTimings): Promise<void> {
    const { now } = this.deps;
    const t1 = now();
    await this.deps.addLogEntry(this.deps.query.checkpoint.offsets, batchId, entry);
    crashPoint("afterOffsetsWrite", batchId);
    timings.walCommit = now() - t1;
  }

  /**
   * Commits the state the driver operators wrote for `batchId` as version batchId + 1 and returns
   * their progress, taken before a following batch changes it. The state commit comes before the
   * sink (DESIGN §1), as Spark's stateful operators commit in their tasks before the write: its
   * delta file is written and fsynced on libuv's threads while the sink writes the batch. Should
   * the run die before commits/N, the re-run of batch N replaces that state version (see FileShard).
   */
  commitState(batchId: number, out: PipelineOutput): StateOperatorProgress[] {
    const { stage } = this.deps;
    this.deps.checkNotAbandoned(`commit batch ${batchId}'s state`);
    stage.commit(batchId + 1);
    return stage.stateOperators(out.perInput.map((f) => f.numRowsDroppedByWatermark));
  }

  async writeToSink(batchId: number, result: Batch): Promise<void> {
    const { sink, outputMode } = this.deps.query;
    this.deps.checkNotAbandoned(`write batch ${batchId} to the sink`);
    this.deps.setActivity(`writing batch ${batchId} to ${sink.description}`);
    try {
      await sink.addBatch(batchId, result, outputMode);
    } catch (e) {
      // The state write's outcome no longer matters: the batch failed and runs again.
      await this.deps.stage.durable().catch(() => undefined);
      throw e;
    }
    crashPoint("afterSinkBeforeCommit", batchId);
  }

  /** Makes batch `batchId` durable (its state, then commits/N), hands its end offsets to the sources, and reports its progress. */
  async commit(b: BatchToCommit): Promise<void> {
    const { query, stage, tracker, now } = this.deps;
    const { checkpoint, sources } = query;
    const t4 = now();
    this.deps.checkNotAbandoned(`commit batch ${b.batchId}`);
    this.deps.setActivity(`committing batch ${b.batchId}`);
    await stage.durable();
    const watermarkMoved = tracker.update(b.out.eventTime);
    await this.deps.addLogEntry(checkpoint.commits, b.batchId, { nextBatchWatermarkMs: tracker.current });
    crashPoint("afterCommit", b.batchId);
    sources.forEach((s, i) => s.commit(b.end[i]));
    const oldestKept = b.batchId + 1 - query.minBatchesToRetain;
    await Promise.all([checkpoint.offsets.purge(oldestKept), checkpoint.commits.purge(oldestKept)]);
    b.timings.commitOffsets = now() - t4;

    this.deps.advancePast(b, watermarkMoved);
    b.timings.triggerEnd = now();
    query.onProgress(
      buildProgress({
        id: query.id,
        runId: query.runId,
        name: query.name,
        batchId: b.batchId,
        timings: b.timings,
        out: b.out,
        sources,
        startOffsets: b.start,
        endOffsets: b.end,
        latestOffsets: b.latestOffsets,
        watermarkMs: query.plan.watermarks.length ? b.watermarkMs ?? 0 : null,
        stateOperators: b.stateOperators,
        sink: query.sink,
        numOutputRows: b.numOutputRows,
        batchSizing: b.sizing ?? undefined,
      }),
    );
  }
}
