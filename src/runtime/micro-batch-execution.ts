import { Checkpoint, type OffsetsEntry } from "../checkpoint/checkpoint.js";
import type { OutputMode, Trigger } from "../config/options.js";
import { SluiceError } from "../errors/errors.js";
import type { PhysicalPlan } from "../planner/physical.js";
import type { Sink } from "../sinks/sink.js";
import { type Offset, type StreamSource, sameOffset } from "../sources/source.js";
import type { TaskPool } from "../workers/pool.js";
import { applyPostSteps, runPipelines } from "./batch-runner.js";
import { buildProgress, type BatchTimings } from "./progress-builder.js";
import type { StreamingQueryProgress, StreamingQueryStatus } from "./progress.js";
import type { StatefulStage } from "./stateful-stage.js";
import { WatermarkTracker } from "./watermark-tracker.js";

export interface ExecutionDeps {
  readonly id: string;
  readonly runId: string;
  readonly name: string | null;
  readonly plan: PhysicalPlan;
  readonly sources: readonly StreamSource[];
  readonly sink: Sink;
  readonly outputMode: OutputMode;
  readonly trigger: Trigger;
  readonly checkpoint: Checkpoint;
  readonly pool: TaskPool;
  /** Opens the stateful stage at a state version (the number of committed batches). */
  readonly openStateful: (version: number) => StatefulStage;
  readonly staticTables: Readonly<Record<string, unknown>>;
  readonly onProgress: (p: StreamingQueryProgress) => void;
  readonly onIdle: () => void;
  readonly now?: () => number;
}

/** Polling delay of the default trigger when no data is available (Spark's pollingDelay). */
const IDLE_POLL_MS = 10;

/**
 * Spark's MicroBatchExecution: the loop that turns triggers into batches.
 *
 *   plan end offsets -> offsets/N (write-ahead) -> tasks -> stateful stage -> sink.addBatch(N)
 *   -> state version N+1 -> commits/N -> watermark for N+1 -> progress
 *
 * On start it reads the checkpoint: a batch with offsets but no commit is re-run with exactly the
 * logged offsets, so the sink sees the same batch id with the same data.
 */
export class MicroBatchExecution {
  private stopping = false;
  private wake: (() => void) | null = null;
  private idleWaiters: { generation: number; resolve: () => void }[] = [];
  private triggerGeneration = 0;
  private statusValue: StreamingQueryStatus = { message: "Initializing sources", isDataAvailable: false, isTriggerActive: false };
  private readonly now: () => number;

  constructor(private readonly deps: ExecutionDeps) {
    this.now = deps.now ?? Date.now;
  }

  get status(): StreamingQueryStatus {
    return this.statusValue;
  }

  /** Asks the loop to finish after the batch in flight; resolves nothing by itself. */
  requestStop(): void {
    this.stopping = true;
    this.wake?.();
  }

  /** Resolves once a trigger that started after this call found no new data to process. */
  waitUntilIdle(): Promise<void> {
    const generation = this.triggerGeneration + 1;
    this.wake?.();
    return new Promise((resolve) => this.idleWaiters.push({ generation, resolve }));
  }

  private releaseIdleWaiters(): void {
    const ready = this.idleWaiters.filter((w) => w.generation <= this.triggerGeneration);
    this.idleWaiters = this.idleWaiters.filter((w) => w.generation > this.triggerGeneration);
    for (const w of ready) w.resolve();
  }

  /** Runs until stopped, finished (once / availableNow), or failed (rejects); then releases sources and sink. */
  async run(): Promise<void> {
    try {
      await this.deps.sink.open?.({ queryId: this.deps.id, checkpointLocation: this.deps.checkpoint.root, outputMode: this.deps.outputMode });
      await this.loop();
    } finally {
      await Promise.all([...this.deps.sources.map((s) => s.stop()), this.deps.sink.close?.()].map((p) => Promise.resolve(p).catch(() => undefined)));
    }
  }

  private async loop(): Promise<void> {
    const { checkpoint, sources, plan, trigger } = this.deps;
    const lastOffsets = await checkpoint.offsets.latest();
    const lastCommit = await checkpoint.commits.latest();

    let nextBatchId = 0;
    let restored: Offset[] | null = null;
    let replay: OffsetsEntry | null = null;
    let tracker = new WatermarkTracker(plan.watermarks);

    if (lastOffsets) {
      const committedId = lastCommit?.batchId ?? -1;
      if (committedId > lastOffsets.batchId) {
        throw new SluiceError(`checkpoint ${checkpoint.root} has commits/${committedId} but no offsets/${committedId}; it was modified outside Sluice`);
      }
      const prevOffsets = committedId >= 0 ? await checkpoint.offsets.get(committedId) : null;
      if (committedId >= 0 && !prevOffsets) {
        throw new SluiceError(`checkpoint ${checkpoint.offsets.fileOf(committedId)} is missing although batch ${committedId} was committed`);
      }
      if (prevOffsets) {
        restored = [...prevOffsets.sources];
        tracker = new WatermarkTracker(plan.watermarks, {
          perInput: prevOffsets.inputWatermarksMs,
          global: lastCommit!.value.nextBatchWatermarkMs,
        });
      }
      nextBatchId = committedId + 1;
      if (lastOffsets.batchId === nextBatchId) replay = lastOffsets.value;
    }

    let committed: Offset[] = restored ?? (await Promise.all(sources.map((s) => s.initialOffset())));
    const stateful = this.deps.openStateful(nextBatchId);
    let watermarkMovedLastBatch = false;
    let ranAny = false;

    while (!this.stopping) {
      const triggerStart = this.now();
      this.triggerGeneration++;
      this.statusValue = { message: "Getting offsets from sources", isDataAvailable: false, isTriggerActive: true };

      const timings: BatchTimings = { triggerStart };
      let entry: OffsetsEntry;
      let latestOffsets: Offset[];
      if (replay) {
        entry = replay;
        latestOffsets = [...replay.sources];
        replay = null;
      } else {
        const t0 = this.now();
        latestOffsets = await Promise.all(sources.map((s, i) => s.latestOffset(committed[i])));
        timings.latestOffset = this.now() - t0;
        const hasData = latestOffsets.some((o, i) => !sameOffset(o, committed[i]));
        // A batch without data still runs when the watermark moved and state may emit or evict.
        const noDataBatch = !hasData && watermarkMovedLastBatch && plan.stateful !== null;
        const onceDone = trigger.kind === "once" && ranAny;
        if ((!hasData && !noDataBatch) || onceDone) {
          this.statusValue = { message: "Waiting for data to arrive", isDataAvailable: false, isTriggerActive: false };
          this.releaseIdleWaiters();
          if (trigger.kind === "availableNow" || trigger.kind === "once") break;
          this.deps.onIdle();
          await this.sleep(trigger.kind === "processingTime" ? Math.max(0, trigger.intervalMs - (this.now() - triggerStart)) : IDLE_POLL_MS);
          continue;
        }
        entry = {
          sources: latestOffsets,
          batchWatermarkMs: tracker.current,
          batchTimestampMs: triggerStart,
          inputWatermarksMs: tracker.inputs,
        };
        const t1 = this.now();
        await checkpoint.offsets.add(nextBatchId, entry);
        timings.walCommit = this.now() - t1;
      }

      this.statusValue = { message: "Processing new data", isDataAvailable: true, isTriggerActive: true };
      const batchId = nextBatchId;
      const t2 = this.now();
      const splits = await Promise.all(sources.map((s, i) => s.planSplits(committed[i], latestOffsets[i])));
      timings.getBatch = this.now() - t2;

      const t3 = this.now();
      // Complete mode keeps every group forever, so nothing is late and nothing is dropped.
      const lateBefore = this.deps.outputMode === "complete" ? null : entry.batchWatermarkMs;
      const out = await runPipelines(
        this.deps.pool,
        plan.inputs,
        splits,
        { batchId, watermarkMs: lateBefore, batchTimestampMs: entry.batchTimestampMs },
        this.deps.staticTables,
        plan.watermarks.length,
      );
      const { output, progress: stateProgress } = stateful.run(out.batches, lateBefore);
      const result = applyPostSteps(output, plan.post);
      await this.deps.sink.addBatch(batchId, result, this.deps.outputMode);
      timings.addBatch = this.now() - t3;

      const t4 = this.now();
      const commitTimeMs = stateful.commit(batchId + 1);
      watermarkMovedLastBatch = tracker.update(out.eventTime);
      await checkpoint.commits.add(batchId, { nextBatchWatermarkMs: tracker.current });
      sources.forEach((s, i) => s.commit(latestOffsets[i]));
      timings.commitOffsets = this.now() - t4;

      const startOffsets = committed;
      committed = latestOffsets;
      nextBatchId++;
      ranAny = true;
      timings.triggerEnd = this.now();
      this.deps.onProgress(
        buildProgress({
          id: this.deps.id,
          runId: this.deps.runId,
          name: this.deps.name,
          batchId,
          timings,
          out,
          sources,
          startOffsets,
          endOffsets: latestOffsets,
          // What each source holds now, rate limits aside: the progress's `latestOffset`.
          latestOffsets: await Promise.all(sources.map((s) => s.reportLatestOffset())),
          watermarkMs: plan.watermarks.length ? entry.batchWatermarkMs ?? 0 : null,
          stateProgress: stateProgress
            ? {
                ...stateProgress,
                commitTimeMs: Math.round(commitTimeMs),
                numRowsDroppedByWatermark: stateProgress.numRowsDroppedByWatermark + out.numRowsDroppedByWatermark,
              }
            : null,
          sink: this.deps.sink,
          numOutputRows: result.numRows,
        }),
      );
      if (trigger.kind === "processingTime") {
        await this.sleep(Math.max(0, trigger.intervalMs - (this.now() - triggerStart)));
      }
    }
    this.statusValue = { message: "Stopped", isDataAvailable: false, isTriggerActive: false };
    this.releaseAllWaiters();
  }

  private releaseAllWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w.resolve();
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}

