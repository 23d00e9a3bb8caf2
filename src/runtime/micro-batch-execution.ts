import type { Checkpoint, OffsetsEntry } from "../checkpoint/checkpoint.js";
import type { CheckpointLock } from "../checkpoint/checkpoint-lock.js";
import type { OutputMode, Trigger } from "../config/options.js";
import { MULTIPLE_WATERMARK_POLICY } from "../config/sql-conf.js";
import type { BatchLog } from "../checkpoint/batch-log.js";
import type { Batch } from "../batch/batch.js";
import { type EventTimeStats, mergeAllStats } from "../batch/task-metrics.js";
import { SluiceError } from "../errors/errors.js";
import { crashPoint } from "../faults/crash-points.js";
import type { BatchInfo } from "../operators/exec.js";
import type { PhysicalPlan } from "../planner/physical.js";
import type { Sink } from "../sinks/sink.js";
import type { InputSplit } from "../sources/input-split.js";
import { type Offset, type ReadLimit, type StreamSource, sameOffset } from "../sources/source.js";
import type { StateStoreProvider } from "../state/state-store.js";
import type { TaskPool } from "../workers/pool.js";
import { BatchAhead, type BatchStartedAhead } from "./batch-ahead.js";
import { type PipelineOutput, runPipelines } from "./batch-runner.js";
import { BatchSizer, type BatchSizingProgress } from "./batch-sizer.js";
import type { ConsoleProgressBar, ProgressWork } from "./console-progress.js";
import { backlogTotals, SplitProgress } from "./input-progress.js";
import { DriverStage, processorTaskRunner } from "./driver-stage.js";
import { operatorsWantNoDataBatches } from "./no-data-batch.js";
import { buildProgress, type BatchTimings } from "./progress-builder.js";
import type { StateOperatorProgress, StreamingQueryProgress, StreamingQueryStatus } from "./progress.js";
import type { RelayedConf } from "./relayed-conf.js";
import { addOwnLogEntry } from "./own-log-entry.js";
import { populateStartOffsets } from "./start-offsets.js";
import { type Clock, systemClock } from "./clock.js";
import { triggerPolicy, type TriggerPolicy } from "./trigger-policy.js";
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
  /** spark.sql.streaming.noDataMicroBatches.enabled, as the session had it when the query started. */
  readonly noDataMicroBatches: boolean;
  /** The settings a new checkpoint keeps (the session's when the query started); an existing checkpoint's own prevail. */
  readonly relayedConf: RelayedConf;
  readonly checkpoint: Checkpoint;
  /** Held by this run; checked before every log write, so two runs never both write a batch. */
  readonly lock: CheckpointLock;
  readonly pool: TaskPool;
  /** Where the state of the query's stateful operators is kept. */
  readonly stateStores: StateStoreProvider;
  /** Log entries of the last this many batches are kept; older ones are deleted after each commit. */
  readonly minBatchesToRetain: number;
  readonly staticTables: Readonly<Record<string, unknown>>;
  readonly onProgress: (p: StreamingQueryProgress) => void;
  readonly onIdle: () => void;
  /** The trigger clock; the system clock unless a test drives time. */
  readonly clock?: Clock;
  /** Where an availableNow drain shows its progress (the session's bar on stderr). */
  readonly consoleProgress?: ConsoleProgressBar;
}

/** A batch whose offsets, watermark and timestamp are fixed in `offsets/<batchId>`. */
interface PlannedBatch {
  readonly batchId: number;
  readonly entry: OffsetsEntry;
  readonly start: readonly Offset[];
  readonly timings: BatchTimings;
  /** How a latencyTarget trigger sized it; null otherwise, and for a batch a previous run planned. */
  readonly sizing: BatchSizingProgress | null;
  /** Its splits and running tasks, when they were started during the batch before (runtime/batch-ahead.ts). */
  readonly ahead: BatchStartedAhead | null;
}

/** A no-data batch run straight after the batch before it, its rows written, not yet logged or committed. */
interface FollowingBatch {
  readonly entry: OffsetsEntry;
  readonly timings: BatchTimings;
  readonly out: PipelineOutput;
  readonly watermarkMs: number;
  readonly stateOperators: readonly StateOperatorProgress[];
  readonly numOutputRows: number;
}

/** What committing and reporting a batch needs once its rows are in the sink. */
interface BatchToCommit {
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

/**
 * Spark's MicroBatchExecution: the loop that turns triggers into batches, in Spark's steps.
 *
 *   populateStartOffsets   read the checkpoint: the next batch id, the committed offsets and
 *                          watermark, and a batch that was planned but not committed
 *   constructNextBatch     plan end offsets (rate limits included) or decide on a no-data
 *                          batch; write offsets/N (write-ahead)
 *   runBatch               tasks -> driver operators -> state version N+1 -> sink.addBatch(N)
 *                          -> commits/N -> watermark for N+1 -> progress; under the default
 *                          trigger, a batch N that moves the watermark has its no-data batch N+1
 *                          run and written to the sink before commits/N, and logged after it
 *
 * A batch with offsets but no commit is re-run with exactly the logged offsets, so the sink sees
 * the same batch id with the same data. When the next trigger fires is the trigger policy's call.
 */
export class MicroBatchExecution {
  private stopping = false;
  /** Set by `abandon()`: the run may still be inside a batch, but must not write anything more. */
  private abandoned = false;
  /** What the run is doing, for a stop that times out. */
  private activity = "starting";
  private wake: (() => void) | null = null;
  private idleWaiters: { generation: number; resolve: (why: "idle" | "stopped") => void }[] = [];
  private triggerGeneration = 0;
  private statusValue: StreamingQueryStatus = { message: "Initializing sources", isDataAvailable: false, isTriggerActive: false };
  private readonly clock: Clock;
  private readonly now: () => number;
  private readonly policy: TriggerPolicy;
  /** Whether a moved watermark makes a batch without data run (the setting and the operators agree). */
  private readonly noDataBatches: boolean;
  /** Whether a batch that moves the watermark is followed at once by its no-data batch (`followingNoDataWatermark`). */
  private readonly noDataBatchFollowsAtOnce: boolean;
  /** Sizes each batch under a latencyTarget trigger; null under the others. */
  private readonly sizer: BatchSizer | null;
  /** Starts batch N+1's tasks while batch N finishes on the driver; null when the plan or trigger rules that out. */
  private readonly ahead: BatchAhead | null;

  // Where the query stands between batches.
  private nextBatchId = 0;
  private committed: readonly Offset[] = [];
  private tracker: WatermarkTracker;
  /** Recorded in every offsets entry: the settings the checkpoint keeps (runtime/relayed-conf.ts). */
  private relayedConf: RelayedConf;
  private pending: OffsetsEntry | null = null;
  /** The watermark the last batch ran with: the next batch judges late rows by it. */
  private previousBatchWatermarkMs: number | null = null;
  /** The last batch moved the watermark (after a restart, as its commit records): a no-data batch may follow. */
  private watermarkMovedLastBatch = false;
  /** After a restart, the timestamp of the committed batch a no-data batch follows (`noDataBatchFollowsAtOnce`). */
  private lastBatchTimestampMs: number | null = null;
  private stage: DriverStage | null = null;
  /** An availableNow drain's place on the console progress bar. */
  private drain: ProgressWork | null = null;

  constructor(private readonly deps: ExecutionDeps) {
    this.clock = deps.clock ?? systemClock;
    this.now = () => this.clock.now();
    this.policy = triggerPolicy(deps.trigger);
    this.noDataBatches = deps.noDataMicroBatches && operatorsWantNoDataBatches(deps.plan, deps.outputMode);
    this.noDataBatchFollowsAtOnce = this.noDataBatches && deps.trigger.kind === "default";
    this.relayedConf = deps.relayedConf;
    this.tracker = new WatermarkTracker(deps.plan.watermarks, deps.relayedConf[MULTIPLE_WATERMARK_POLICY]);
    this.sizer =
      deps.trigger.kind === "latencyTarget"
        ? new BatchSizer({
            latencyTargetMs: deps.trigger.targetMs,
            // Operators that emit or evict by the watermark put a result one batch behind the record that made it final.
            spans: operatorsWantNoDataBatches(deps.plan, deps.outputMode) ? 3 : 2,
            workers: deps.pool.size,
          })
        : null;
    this.ahead = BatchAhead.overlaps(deps.plan, deps.trigger)
      ? new BatchAhead({
          sources: deps.sources,
          now: this.now,
          batchInfo: (...args) => this.batchInfo(...args),
          startTasks: (splits, info) => this.startTasks(splits, info),
        })
      : null;
  }

  get status(): StreamingQueryStatus {
    return this.statusValue;
  }

  /** Asks the loop to finish after the batch in flight; resolves nothing by itself. */
  requestStop(): void {
    this.stopping = true;
    this.wake?.();
  }

  /**
   * Gives up on a run that did not stop in time: whatever its batch in flight still does, it
   * writes no state, log entry or source commit. Returns what the run was doing.
   */
  abandon(): string {
    this.abandoned = true;
    this.drain?.end();
    this.requestStop();
    return this.activity;
  }

  /** Throws once the run was abandoned: called before every step that leaves a trace. */
  private checkNotAbandoned(step: string): void {
    if (this.abandoned) throw new SluiceError(`the run was abandoned by stop() before it could ${step}`);
  }

  /**
   * Resolves with "idle" once a trigger that started after this call found no new data to
   * process, or with "stopped" when the run ends first (stopped, finished or failed).
   */
  waitUntilIdle(): Promise<"idle" | "stopped"> {
    const generation = this.triggerGeneration + 1;
    this.wake?.();
    return new Promise((resolve) => this.idleWaiters.push({ generation, resolve }));
  }

  /** Runs until stopped, finished (once / availableNow), or failed (rejects); then releases sources and sink. */
  async run(): Promise<void> {
    try {
      const { deps } = this;
      await deps.sink.open?.({ queryId: deps.id, checkpointLocation: deps.checkpoint.root, outputMode: deps.outputMode });
      const start = await populateStartOffsets(deps.checkpoint, deps.sources, deps.plan, deps.relayedConf);
      this.nextBatchId = start.nextBatchId;
      this.committed = start.committed;
      this.tracker = start.tracker;
      this.relayedConf = start.conf;
      this.pending = start.pending;
      this.previousBatchWatermarkMs = start.previousBatchWatermarkMs;
      this.watermarkMovedLastBatch = start.watermarkMovedLastBatch;
      this.lastBatchTimestampMs = start.lastBatchTimestampMs;
      this.stage = new DriverStage(deps.plan, deps.outputMode, deps.stateStores, start.nextBatchId, processorTaskRunner(deps.pool), deps.staticTables);
      if (deps.trigger.kind === "availableNow") {
        // Each source fixes what this run reads (Spark's prepareForTriggerAvailableNow): the run ends once
        // that is processed, even while new data keeps arriving.
        await Promise.all(deps.sources.map((s) => s.prepareForTriggerAvailableNow?.()));
        await this.beginDrainProgress();
      }
      await this.triggerLoop();
    } finally {
      // A batch started ahead and never logged is dropped; its tasks finish before the sources close.
      await this.ahead?.discard();
      this.drain?.end();
      this.statusValue = { message: "Stopped", isDataAvailable: false, isTriggerActive: false };
      this.releaseAllWaiters();
      const closing = [...this.deps.sources.map((s) => s.stop()), this.deps.sink.close?.()];
      try {
        this.stage?.close();
      } finally {
        await Promise.all(closing.map((p) => Promise.resolve(p).catch(() => undefined)));
        // State maintenance finishes before the run counts as stopped, so a restart finds its files complete.
        await this.deps.stateStores.close?.();
      }
    }
  }

  /**
   * An availableNow drain reads what its sources hold when it starts, so its bar knows the total:
   * the files and bytes, or rows, waiting after the committed offsets. Measured only when the bar
   * is drawn (a file source lists its folder once more).
   */
  private async beginDrainProgress(): Promise<void> {
    const bar = this.deps.consoleProgress;
    if (!bar?.willDraw()) return;
    const total = await backlogTotals(this.deps.sources, this.committed);
    this.drain = bar.begin(`availableNow query ${this.deps.name ?? this.deps.id.slice(0, 8)}`, total);
  }

  private async triggerLoop(): Promise<void> {
    while (!this.stopping) {
      const triggerStart = this.now();
      this.triggerGeneration++;
      this.statusValue = { message: "Getting offsets from sources", isDataAvailable: false, isTriggerActive: true };
      this.activity = `planning batch ${this.nextBatchId}`;
      const batch = await this.constructNextBatch(triggerStart);
      if (batch) {
        this.statusValue = { message: "Processing new data", isDataAvailable: true, isTriggerActive: true };
        await this.runBatch(batch);
      } else {
        this.activity = "waiting for data";
        this.statusValue = { message: "Waiting for data to arrive", isDataAvailable: false, isTriggerActive: false };
        this.releaseIdleWaiters();
      }
      const wait = this.policy.afterTrigger(batch ? "ran" : "idle", triggerStart, this.now());
      if (wait === "stop") break;
      if (!batch) this.deps.onIdle();
      // processAllAvailable() is waiting for a trigger that finds nothing new: run it now rather
      // than after the interval (on a manual clock the interval would never pass by itself).
      await this.sleep(this.idleWaiters.length > 0 ? 0 : this.untilDue(wait));
    }
  }

  /**
   * Spark's constructNextBatch: the next batch's end offsets (or the pending batch of a restart),
   * logged in offsets/N before anything reads them; null when there is nothing to run. A batch
   * without data still runs when the last batch moved the watermark and the stateful operators
   * may emit or evict by it, or when a transformWithState timer or TTL is due by processing time,
   * unless spark.sql.streaming.noDataMicroBatches.enabled is false.
   */
  private async constructNextBatch(triggerStart: number): Promise<PlannedBatch | null> {
    const { checkpoint, sources, plan } = this.deps;
    const timings: BatchTimings = { triggerStart };
    const batchId = this.nextBatchId;
    if (this.pending) {
      const entry = this.pending;
      this.pending = null;
      return { batchId, entry, start: this.committed, timings, sizing: null, ahead: null };
    }
    if (this.noDataBatchFollowsAtOnce && this.watermarkMovedLastBatch) {
      // The run stopped or died between a batch that moved the watermark and the no-data batch
      // that follows it (`followingNoDataWatermark`): that batch comes first, as that run had it,
      // whatever data waits, so it writes exactly what that run may already have written.
      return this.logBatch(batchId, { sources: this.committed, batchWatermarkMs: this.tracker.current, batchTimestampMs: this.lastBatchTimestampMs ?? triggerStart, conf: this.relayedConf }, timings, null);
    }
    const ahead = (await this.ahead?.take(this.tracker.current)) ?? null;
    if (ahead) {
      const entry: OffsetsEntry = { sources: ahead.ends, batchWatermarkMs: ahead.watermarkMs, batchTimestampMs: ahead.batchTimestampMs, conf: this.relayedConf };
      const t1 = this.now();
      await this.addLogEntry(checkpoint.offsets, batchId, entry);
      crashPoint("afterOffsetsWrite", batchId);
      ahead.timings.walCommit = this.now() - t1;
      return { batchId, entry, start: this.committed, timings: ahead.timings, sizing: null, ahead };
    }
    const sizing = this.sizer?.next ?? null;
    const limit = sizing && readLimit(sizing.maxRowsPerBatch, sources);
    const t0 = this.now();
    const latest = await Promise.all(sources.map((s, i) => s.latestOffset(this.committed[i], limit ?? undefined)));
    timings.latestOffset = this.now() - t0;
    const hasData = latest.some((o, i) => !sameOffset(o, this.committed[i]));
    const due = this.stage?.nextDueMs() ?? null;
    const noDataBatch = !hasData && this.noDataBatches && (this.watermarkMovedLastBatch || (due !== null && due <= triggerStart));
    if (!hasData && !noDataBatch) return null;
    return this.logBatch(batchId, { sources: latest, batchWatermarkMs: this.tracker.current, batchTimestampMs: triggerStart, conf: this.relayedConf }, timings, sizing);
  }

  /** Writes offsets/N for a batch planned from the committed offsets (write-ahead) and returns it. */
  private async logBatch(batchId: number, entry: OffsetsEntry, timings: BatchTimings, sizing: BatchSizingProgress | null): Promise<PlannedBatch> {
    const t1 = this.now();
    await this.addLogEntry(this.deps.checkpoint.offsets, batchId, entry);
    crashPoint("afterOffsetsWrite", batchId);
    timings.walCommit = this.now() - t1;
    return { batchId, entry, start: this.committed, timings, sizing, ahead: null };
  }

  /**
   * Spark's runBatch: read, process, write to the sink, commit, report. A batch that moves the
   * watermark of a query whose operators emit or evict by it is followed at once by its no-data
   * batch (see `followingNoDataWatermark`), whose rows reach the sink before either commits.
   */
  private async runBatch({ batchId, entry, start, timings, sizing, ahead }: PlannedBatch): Promise<void> {
    const { sources } = this.deps;
    const stage = this.stage!;
    const end = entry.sources;
    const info = this.batchInfo(batchId, entry.batchWatermarkMs, this.previousBatchWatermarkMs ?? entry.batchWatermarkMs, entry.batchTimestampMs);
    let splits: readonly (readonly InputSplit[])[];
    let running: Promise<PipelineOutput>;
    if (ahead) {
      ({ splits, tasks: running } = ahead);
    } else {
      const t2 = this.now();
      this.activity = `reading batch ${batchId} from its sources`;
      splits = await Promise.all(sources.map((s, i) => s.planSplits(start[i], end[i], sizing?.minTasks)));
      timings.getBatch = this.now() - t2;
      running = this.startTasks(splits, info);
    }
    const t3 = this.now();
    this.activity = `running batch ${batchId}'s tasks`;
    const tasks = await running;
    // What each source holds now, rate limits aside (the progress's `latestOffset`), read before the
    // next batch's planning moves a source's view on.
    const latestOffsets = await Promise.all(sources.map((s) => s.reportLatestOffset()));
    if (this.ahead && !this.stopping && !this.abandoned) {
      // `overlaps` leaves out plans whose driver observes event times: the tasks' are all there are.
      const next = this.tracker.peek(tasks.eventTime);
      if (this.followingNoDataWatermark(tasks.eventTime) === null) this.ahead.start(batchId + 1, end, next, entry.batchWatermarkMs);
      else this.ahead.start(batchId + 2, end, next, next);
    }
    const result = await stage.run(tasks.batches, info);
    // A withWatermark after a stateful operator observes its event times on the driver.
    const out = { ...tasks, eventTime: mergeAllStats(tasks.eventTime, stage.eventTimeStats()) };
    const followingWatermark = this.followingNoDataWatermark(out.eventTime);
    const stateOperators = this.commitState(batchId, out);
    await this.writeToSink(batchId, result);
    timings.addBatch = this.now() - t3;
    const following = followingWatermark === null ? null : await this.runFollowingNoDataBatch(batchId + 1, entry, followingWatermark);

    await this.commitBatch({ batchId, start, end, timings, out, latestOffsets, watermarkMs: entry.batchWatermarkMs, stateOperators, numOutputRows: result.numRows, sizing });
    if (sizing) {
      const rows = out.perInput.reduce((n, f) => n + f.numInputRows, 0);
      // A source that stopped short of the newest offset it saw left rows waiting: the batch was capped.
      const capped = sources.some((s, i) => s.limitsRows === true && !sameOffset(latestOffsets[i], end[i]));
      this.sizer!.observe(rows, timings.triggerEnd! - timings.triggerStart, capped);
    }
    if (following) {
      const t1 = this.now();
      // Logged after its sink write, which write-ahead would forbid: the batch is fully determined
      // by commits/N (a restart runs this very batch, `constructNextBatch`), so nothing it wrote can differ on a re-run.
      await this.addLogEntry(this.deps.checkpoint.offsets, batchId + 1, following.entry);
      crashPoint("afterOffsetsWrite", batchId + 1);
      following.timings.walCommit = this.now() - t1;
      await this.commitBatch({ ...following, batchId: batchId + 1, start: end, end, latestOffsets, sizing: null });
    }
  }

  /**
   * The watermark of the no-data batch that runs straight after a batch with these event times,
   * or null when none does. Under the default trigger, a batch that moves the watermark of a query
   * whose operators emit or evict by it is always followed by its no-data batch, with the first
   * batch's timestamp, before the first batch commits: its rows reach the sink one sink write
   * after the data that made them final, not a whole batch later. Spark runs the same no-data
   * batch whenever no new data arrived during the first; always running it makes the pair
   * deterministic, so a restart after the first batch's commit runs it too, whatever data waits.
   */
  private followingNoDataWatermark(eventTime: readonly (EventTimeStats | null)[]): number | null {
    if (!this.noDataBatchFollowsAtOnce) return null;
    const next = this.tracker.peek(eventTime);
    const now = this.tracker.current;
    return next !== null && now !== null && next > now ? next : null;
  }

  /** Runs the no-data batch `batchId` that follows the batch of `previous` and writes its rows to the sink; commitBatch completes it. */
  private async runFollowingNoDataBatch(batchId: number, previous: OffsetsEntry, watermarkMs: number): Promise<FollowingBatch> {
    const timings: BatchTimings = { triggerStart: this.now(), latestOffset: 0, getBatch: 0 };
    const entry: OffsetsEntry = { sources: previous.sources, batchWatermarkMs: watermarkMs, batchTimestampMs: previous.batchTimestampMs, conf: this.relayedConf };
    const info = this.batchInfo(batchId, watermarkMs, previous.batchWatermarkMs, previous.batchTimestampMs);
    this.activity = `running batch ${batchId}, the no-data batch after batch ${batchId - 1}`;
    const out = await this.startTasks(this.deps.sources.map(() => []), info);
    const result = await this.stage!.run(out.batches, info);
    const stateOperators = this.commitState(batchId, out);
    await this.writeToSink(batchId, result);
    timings.addBatch = this.now() - timings.triggerStart;
    return { entry, timings, out, watermarkMs, stateOperators, numOutputRows: result.numRows };
  }

  /**
   * Commits the state the driver operators wrote for `batchId` as version batchId + 1 and returns
   * their progress, taken before a following batch changes it. The state commit comes before the
   * sink (DESIGN §1), as Spark's stateful operators commit in their tasks before the write: its
   * delta file is written and fsynced on libuv's threads while the sink writes the batch. Should
   * the run die before commits/N, the re-run of batch N replaces that state version (see FileShard).
   */
  private commitState(batchId: number, out: PipelineOutput): StateOperatorProgress[] {
    this.checkNotAbandoned(`commit batch ${batchId}'s state`);
    this.stage!.commit(batchId + 1);
    return this.stage!.stateOperators(out.perInput.map((f) => f.numRowsDroppedByWatermark));
  }

  private async writeToSink(batchId: number, result: Batch): Promise<void> {
    const { sink } = this.deps;
    this.checkNotAbandoned(`write batch ${batchId} to the sink`);
    this.activity = `writing batch ${batchId} to ${sink.description}`;
    try {
      await sink.addBatch(batchId, result, this.deps.outputMode);
    } catch (e) {
      // The state write's outcome no longer matters: the batch failed and runs again.
      await this.stage!.durable().catch(() => undefined);
      throw e;
    }
    crashPoint("afterSinkBeforeCommit", batchId);
  }

  /** Makes batch `batchId` durable (its state, then commits/N), hands its end offsets to the sources, and reports its progress. */
  private async commitBatch(b: BatchToCommit): Promise<void> {
    const { checkpoint, sources, plan } = this.deps;
    const t4 = this.now();
    this.checkNotAbandoned(`commit batch ${b.batchId}`);
    this.activity = `committing batch ${b.batchId}`;
    await this.stage!.durable();
    this.watermarkMovedLastBatch = this.tracker.update(b.out.eventTime);
    await this.addLogEntry(checkpoint.commits, b.batchId, { nextBatchWatermarkMs: this.tracker.current });
    crashPoint("afterCommit", b.batchId);
    sources.forEach((s, i) => s.commit(b.end[i]));
    const oldestKept = b.batchId + 1 - this.deps.minBatchesToRetain;
    await Promise.all([checkpoint.offsets.purge(oldestKept), checkpoint.commits.purge(oldestKept)]);
    b.timings.commitOffsets = this.now() - t4;

    this.committed = b.end;
    this.nextBatchId = b.batchId + 1;
    this.previousBatchWatermarkMs = b.watermarkMs;
    b.timings.triggerEnd = this.now();
    this.deps.onProgress(
      buildProgress({
        id: this.deps.id,
        runId: this.deps.runId,
        name: this.deps.name,
        batchId: b.batchId,
        timings: b.timings,
        out: b.out,
        sources,
        startOffsets: b.start,
        endOffsets: b.end,
        latestOffsets: b.latestOffsets,
        watermarkMs: plan.watermarks.length ? b.watermarkMs ?? 0 : null,
        stateOperators: b.stateOperators,
        sink: this.deps.sink,
        numOutputRows: b.numOutputRows,
        batchSizing: b.sizing ?? undefined,
      }),
    );
  }

  /** What a batch's tasks and operators know of it: complete mode keeps every group forever, so nothing is late and nothing is dropped. */
  private batchInfo(batchId: number, watermarkMs: number | null, lateBy: number | null, batchTimestampMs: number): BatchInfo {
    const complete = this.deps.outputMode === "complete";
    return { batchId, watermarkMs: complete ? null : watermarkMs, watermarkForLateEventsMs: complete ? null : lateBy, batchTimestampMs };
  }

  /** Runs a batch's splits as tasks in the pool; an availableNow drain's bar hears of each. */
  private startTasks(splits: readonly (readonly InputSplit[])[], info: BatchInfo): Promise<PipelineOutput> {
    const drain = this.drain;
    const tally = drain && new SplitProgress(splits.flat());
    const onTaskDone = tally ? (split: InputSplit, rows: number) => drain!.advance(tally.completed(split, rows)) : undefined;
    const { pool, plan, outputMode, staticTables } = this.deps;
    return runPipelines(pool, plan.inputs, splits, info, outputMode, staticTables, plan.watermarks.length, onTaskDone);
  }

  /** Writes a log entry only this run may write (runtime/own-log-entry.ts), unless the run was abandoned. */
  private async addLogEntry<T>(log: BatchLog<T>, batchId: number, entry: T): Promise<void> {
    this.checkNotAbandoned(`write ${log.fileOf(batchId)}`);
    await addOwnLogEntry({ lock: this.deps.lock, checkpointRoot: this.deps.checkpoint.root, queryId: this.deps.id, runId: this.deps.runId }, log, batchId, entry);
  }

  private releaseIdleWaiters(): void {
    const ready = this.idleWaiters.filter((w) => w.generation <= this.triggerGeneration);
    this.idleWaiters = this.idleWaiters.filter((w) => w.generation > this.triggerGeneration);
    for (const w of ready) w.resolve("idle");
  }

  private releaseAllWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w.resolve("stopped");
  }

  /** The wait before the next trigger, cut short so a processing-time timer or TTL due sooner is not late. */
  private untilDue(waitMs: number): number {
    const due = this.stage?.nextDueMs() ?? null;
    if (due === null || this.deps.trigger.kind === "processingTime") return waitMs;
    return Math.min(waitMs, Math.max(0, due - this.now()));
  }

  private async sleep(ms: number): Promise<void> {
    if (this.stopping) return;
    const wait = this.clock.sleep(ms);
    this.wake = () => wait.cancel();
    try {
      await wait.done;
    } finally {
      this.wake = null;
    }
  }

}

/** A batch's row cap shared evenly among the sources that take one (start() refuses sized batches of any other source). */
function readLimit(maxRows: number, sources: readonly StreamSource[]): ReadLimit {
  const limited = sources.filter((s) => s.limitsRows === true).length;
  return { maxRows: Math.max(1, Math.floor(maxRows / Math.max(1, limited))) };
}
