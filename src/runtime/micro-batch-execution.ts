import type { OffsetsEntry } from "../checkpoint/checkpoint.js";
import { MULTIPLE_WATERMARK_POLICY } from "../config/sql-conf.js";
import type { BatchLog } from "../checkpoint/batch-log.js";
import { mergeAllStats } from "../batch/task-metrics.js";
import { SluiceError } from "../errors/errors.js";
import type { BatchInfo } from "../operators/exec.js";
import type { InputSplit } from "../sources/input-split.js";
import { type Offset, type ReadLimit, type StreamSource, sameOffset } from "../sources/source.js";
import { BatchAhead, type BatchStartedAhead } from "./batch-ahead.js";
import { BatchCompletion } from "./batch-completion.js";
import { type PipelineOutput, runPipelines } from "./batch-runner.js";
import { BatchSizer, type BatchSizingProgress } from "./batch-sizer.js";
import type { ProgressWork } from "./console-progress.js";
import { backlogTotals, SplitProgress } from "./input-progress.js";
import { DriverStage, processorTaskRunner } from "./driver-stage.js";
import type { ExecutionDeps } from "./execution-deps.js";
import { FollowingNoDataBatches } from "./following-no-data-batch.js";
import { operatorsWantNoDataBatches } from "./no-data-batch.js";
import type { BatchTimings } from "./progress-builder.js";
import type { StreamingQueryStatus } from "./progress.js";
import type { RelayedConf } from "./relayed-conf.js";
import { addOwnLogEntry } from "./own-log-entry.js";
import { populateStartOffsets } from "./start-offsets.js";
import { type Clock, systemClock } from "./clock.js";
import { triggerPolicy, type TriggerPolicy } from "./trigger-policy.js";
import { WatermarkTracker } from "./watermark-tracker.js";

/** A batch whose offsets, watermark and timestamp are fixed in `offsets/<batchId>`. */
interface PlannedBatch {
  readonly batchId: number;
  readonly entry: OffsetsEntry;
  /**
   * Settles once `offsets/<batchId>` is durable: its write runs while the batch's splits are
   * planned and its tasks read, and is awaited before the driver's operators, state or sink see
   * the batch (runBatch). Already settled for a batch a previous run logged.
   */
  readonly logged: Promise<void>;
  readonly start: readonly Offset[];
  readonly timings: BatchTimings;
  /** How a latencyTarget trigger sized it; null otherwise, and for a batch a previous run planned. */
  readonly sizing: BatchSizingProgress | null;
  /** Its splits and running tasks, when they were started during the batch before (runtime/batch-ahead.ts). */
  readonly ahead: BatchStartedAhead | null;
}

/**
 * Spark's MicroBatchExecution: the loop that turns triggers into batches, in Spark's steps.
 *
 *   populateStartOffsets   read the checkpoint: the next batch id, the committed offsets and
 *                          watermark, and a batch that was planned but not committed
 *   constructNextBatch     plan end offsets (rate limits included) or decide on a no-data
 *                          batch; start writing offsets/N (write-ahead)
 *   runBatch               tasks (while offsets/N is written) -> offsets/N durable -> driver
 *                          operators -> state version N+1 -> sink.addBatch(N)
 *                          -> commits/N -> watermark for N+1 -> progress; under the default
 *                          trigger, a batch N that moves the watermark has its no-data batch N+1
 *                          run and written to the sink before commits/N, and logged after it
 *
 * A batch with offsets but no commit is re-run with exactly the logged offsets, so the sink sees
 * the same batch id with the same data. Tasks only read their splits and leave no trace, so they
 * need not wait for offsets/N: a run that dies before it is durable has written nothing of
 * batch N, and its restart plans the batch afresh (as a batch started ahead, runtime/batch-ahead.ts). When the next trigger fires is the trigger policy's call.
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
  /** Whether a batch that moves the watermark is followed at once by its no-data batch (runtime/following-no-data-batch.ts). */
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
  /** A batch's state commit, sink write, commit and progress; set once the run has its start point. */
  private completion: BatchCompletion | null = null;
  /** The no-data batch that follows a batch at once; null unless `noDataBatchFollowsAtOnce`. */
  private following: FollowingNoDataBatches | null = null;
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
      const stage = new DriverStage(deps.plan, deps.outputMode, deps.stateStores, start.nextBatchId, processorTaskRunner(deps.pool), deps.staticTables);
      this.stage = stage;
      this.openBatchSteps(stage);
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

  /** The steps that end every batch, and the no-data batch that may follow one, over this run's stage and watermark. */
  private openBatchSteps(stage: DriverStage): void {
    const { deps, tracker, now } = this;
    const addLogEntry = <T>(log: BatchLog<T>, batchId: number, entry: T) => this.addLogEntry(log, batchId, entry);
    const setActivity = (activity: string) => {
      this.activity = activity;
    };
    const completion = new BatchCompletion({
      query: deps,
      stage,
      tracker,
      now,
      addLogEntry,
      setActivity,
      checkNotAbandoned: (step) => this.checkNotAbandoned(step),
      advancePast: (b, watermarkMoved) => {
        this.watermarkMovedLastBatch = watermarkMoved;
        this.committed = b.end;
        this.nextBatchId = b.batchId + 1;
        this.previousBatchWatermarkMs = b.watermarkMs;
      },
    });
    this.completion = completion;
    if (!this.noDataBatchFollowsAtOnce) return;
    this.following = new FollowingNoDataBatches({
      sourceCount: deps.sources.length,
      stage,
      tracker,
      completion,
      conf: this.relayedConf,
      now,
      batchInfo: (...args) => this.batchInfo(...args),
      startTasks: (splits, info) => this.startTasks(splits, info),
      setActivity,
    });
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
    const { sources } = this.deps;
    const timings: BatchTimings = { triggerStart };
    const batchId = this.nextBatchId;
    if (this.pending) {
      const entry = this.pending;
      this.pending = null;
      return { batchId, entry, logged: Promise.resolve(), start: this.committed, timings, sizing: null, ahead: null };
    }
    if (this.noDataBatchFollowsAtOnce && this.watermarkMovedLastBatch) {
      // The run stopped or died between a batch that moved the watermark and the no-data batch
      // that follows it (runtime/following-no-data-batch.ts): that batch comes first, as that run had it,
      // whatever data waits, so it writes exactly what that run may already have written.
      return this.logBatch(batchId, { sources: this.committed, batchWatermarkMs: this.tracker.current, batchTimestampMs: this.lastBatchTimestampMs ?? triggerStart, conf: this.relayedConf }, timings, null);
    }
    const ahead = (await this.ahead?.take(this.tracker.current)) ?? null;
    if (ahead) {
      const entry: OffsetsEntry = { sources: ahead.ends, batchWatermarkMs: ahead.watermarkMs, batchTimestampMs: ahead.batchTimestampMs, conf: this.relayedConf };
      return { batchId, entry, logged: this.startLog(batchId, entry, ahead.timings), start: this.committed, timings: ahead.timings, sizing: null, ahead };
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

  /** A batch planned from the committed offsets, its offsets/N write (write-ahead) started. */
  private logBatch(batchId: number, entry: OffsetsEntry, timings: BatchTimings, sizing: BatchSizingProgress | null): PlannedBatch {
    return { batchId, entry, logged: this.startLog(batchId, entry, timings), start: this.committed, timings, sizing, ahead: null };
  }

  /** Starts writing offsets/N; its outcome is runBatch's to await (never an unhandled rejection meanwhile). */
  private startLog(batchId: number, entry: OffsetsEntry, timings: BatchTimings): Promise<void> {
    const logged = this.completion!.logOffsets(batchId, entry, timings);
    logged.catch(() => undefined);
    return logged;
  }

  /**
   * Spark's runBatch: read, process, write to the sink, commit, report. A batch that moves the
   * watermark of a query whose operators emit or evict by it is followed at once by its no-data
   * batch (runtime/following-no-data-batch.ts), whose rows reach the sink before either commits.
   */
  private async runBatch({ batchId, entry, logged, start, timings, sizing, ahead }: PlannedBatch): Promise<void> {
    const { sources } = this.deps;
    const stage = this.stage!;
    const completion = this.completion!;
    const following = this.following;
    const end = entry.sources;
    const info = this.batchInfo(batchId, entry.batchWatermarkMs, this.previousBatchWatermarkMs ?? entry.batchWatermarkMs, entry.batchTimestampMs);
    let running: Promise<PipelineOutput>;
    if (ahead) {
      running = ahead.tasks;
    } else {
      const t2 = this.now();
      this.activity = `reading batch ${batchId} from its sources`;
      const splits = await Promise.all(sources.map((s, i) => s.planSplits(start[i], end[i], sizing?.minTasks))).catch(async (e: unknown) => {
        // As bothSettled: the log's write finishes first, and its error is the one reported.
        await logged;
        throw e;
      });
      timings.getBatch = this.now() - t2;
      running = this.startTasks(splits, info);
    }
    const t3 = this.now();
    this.activity = `running batch ${batchId}'s tasks`;
    const tasks = await bothSettled(running, logged);
    // What each source holds now, rate limits aside (the progress's `latestOffset`), read before the
    // next batch's planning moves a source's view on.
    const latestOffsets = await Promise.all(sources.map((s) => s.reportLatestOffset()));
    if (this.ahead && !this.stopping && !this.abandoned) {
      // `overlaps` leaves out plans whose driver observes event times: the tasks' are all there are.
      const next = this.tracker.peek(tasks.eventTime);
      if (following?.watermarkAfter(tasks.eventTime) == null) this.ahead.start(batchId + 1, end, next, entry.batchWatermarkMs);
      else this.ahead.start(batchId + 2, end, next, next);
    }
    const result = await stage.run(tasks.batches, info);
    // A withWatermark after a stateful operator observes its event times on the driver.
    const out = { ...tasks, eventTime: mergeAllStats(tasks.eventTime, stage.eventTimeStats()) };
    const followingWatermark = following?.watermarkAfter(out.eventTime) ?? null;
    const stateOperators = completion.commitState(batchId, out);
    await completion.writeToSink(batchId, result);
    timings.addBatch = this.now() - t3;
    const followingBatch = followingWatermark === null ? null : await following!.run(batchId + 1, entry, followingWatermark);

    await completion.commit({ batchId, start, end, timings, out, latestOffsets, watermarkMs: entry.batchWatermarkMs, stateOperators, numOutputRows: result.numRows, sizing });
    if (sizing) {
      const rows = out.perInput.reduce((n, f) => n + f.numInputRows, 0);
      // A source that stopped short of the newest offset it saw left rows waiting: the batch was capped.
      const capped = sources.some((s, i) => s.limitsRows === true && !sameOffset(latestOffsets[i], end[i]));
      this.sizer!.observe(rows, timings.triggerEnd! - timings.triggerStart, capped);
    }
    if (followingBatch) await following!.complete(followingBatch, end, latestOffsets);
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

/**
 * A batch's tasks once they and its offsets/N write are both done: whichever fails first is not
 * reported before the other finished, so no task still reads when the run closes its sources,
 * and no write is left half done. The log's error comes first: it is why the batch cannot go on.
 */
async function bothSettled(tasks: Promise<PipelineOutput>, logged: Promise<void>): Promise<PipelineOutput> {
  const [ran, log] = await Promise.allSettled([tasks, logged]);
  if (log.status === "rejected") throw log.reason;
  if (ran.status === "rejected") throw ran.reason;
  return ran.value;
}
