import type { BatchLog } from "../checkpoint/batch-log.js";
import type { OffsetsEntry } from "../checkpoint/checkpoint.js";
import { emptyBatch, type Batch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { emptyLatencies, latencyPercentile, mergeLatencies, type LatencyCounts } from "../batch/latency-histogram.js";
import { mergeStats, type EventTimeStats } from "../batch/task-metrics.js";
import { CheckpointError, InternalError, SluiceError } from "../errors/errors.js";
import type { BatchInfo } from "../operators/exec.js";
import type { InputSplit } from "../sources/input-split.js";
import { type Offset, sameOffset } from "../sources/source.js";
import type { RealTimeLatencies, RealTimeSinkSpec, RealTimeTask, RealTimeTaskResult } from "../workers/protocol.js";
import type { InputFigures } from "./batch-runner.js";
import type { ExecutionDeps } from "./execution-deps.js";
import { buildProgress, type BatchTimings } from "./progress-builder.js";
import type { StreamingQueryStatus } from "./progress.js";
import type { RelayedConf } from "./relayed-conf.js";
import { addOwnLogEntry } from "./own-log-entry.js";
import { populateStartOffsets } from "./start-offsets.js";
import type { QueryExecution } from "./streaming-query.js";

export interface RealTimeDeps extends ExecutionDeps {
  readonly trigger: { readonly kind: "realTime"; readonly batchDurationMs: number };
  /** Where the tasks send their output: straight to Kafka, or collected for `sink` at each batch's end. */
  readonly taskSink: RealTimeSinkSpec;
}

/** A batch whose tasks are running. */
interface RunningBatch {
  readonly batchId: number;
  readonly start: readonly Offset[];
  readonly splits: readonly (readonly InputSplit[])[];
  readonly groups: readonly (readonly OwnedSplit[])[];
  readonly stop: Int32Array;
  readonly timings: BatchTimings;
  readonly tasksStartMs: number;
  readonly results: Promise<RealTimeTaskResult[]>;
}

/** A batch whose tasks have ended, with what they reported. */
interface EndedBatch extends Omit<RunningBatch, "results"> {
  readonly results: readonly RealTimeTaskResult[];
  readonly perInput: readonly InputFigures[];
  readonly eventTime: readonly (EventTimeStats | null)[];
  readonly latency: RealTimeLatencies;
  readonly end: readonly Offset[];
}

/** A split a real-time task reads, with the input pipeline (and source) it belongs to. */
interface OwnedSplit {
  readonly input: number;
  readonly split: InputSplit;
}

/**
 * Spark's real-time mode: a batch is one checkpoint interval long, and its tasks (one per worker,
 * each owning some of the sources' partitions; workers/run-real-time-task.ts) run for all of it,
 * reading records as they arrive and writing each one's output at once. When the interval ends
 * (or the query stops) every task reports where it read to, all output before that being in the
 * sink; the next batch's tasks start there at once, and meanwhile `offsets/N` records those
 * offsets (flagged `realTime`), `commits/N` follows, and progress is reported.
 *
 * A restart resumes from the last commit: records written after it are written again
 * (at-least-once, as Spark's real-time mode with its Kafka sink). An `offsets/N` of a real-time
 * batch without its commit (a crash between the two writes) is committed as it stands, since its
 * output is in the sink. A task that fails stops the others and fails the query with its error.
 */
export class RealTimeExecution implements QueryExecution {
  private stopping = false;
  private abandoned = false;
  private activity = "starting";
  private statusValue: StreamingQueryStatus = { message: "Initializing sources", isDataAvailable: false, isTriggerActive: false };
  /** The running batch's stop flag, shared with its tasks. */
  private stopFlag: Int32Array | null = null;
  private idleWaiters: ((why: "idle" | "stopped") => void)[] = [];
  private nextBatchId = 0;
  /** Where the next batch starts: the last batch's end (logged or not yet), or the last commit at start. */
  private nextStart: readonly Offset[] = [];
  private relayedConf: RelayedConf;

  constructor(private readonly deps: RealTimeDeps) {
    this.relayedConf = deps.relayedConf;
  }

  get status(): StreamingQueryStatus {
    return this.statusValue;
  }

  requestStop(): void {
    this.stopping = true;
    if (this.stopFlag) Atomics.store(this.stopFlag, 0, 1);
  }

  abandon(): string {
    this.abandoned = true;
    this.requestStop();
    return this.activity;
  }

  /** Resolves at the first batch end at which every partition was read up to its latest offset. */
  waitUntilIdle(): Promise<"idle" | "stopped"> {
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async run(): Promise<void> {
    const { deps } = this;
    try {
      await deps.sink.open?.({ queryId: deps.id, checkpointLocation: deps.checkpoint.root, outputMode: deps.outputMode });
      const start = await populateStartOffsets(deps.checkpoint, deps.sources, deps.plan, deps.relayedConf);
      this.nextBatchId = start.nextBatchId;
      this.nextStart = start.committed;
      this.relayedConf = start.conf;
      if (start.pending) await this.commitPending(start.pending);
      await this.runBatches();
    } finally {
      this.statusValue = { message: "Stopped", isDataAvailable: false, isTriggerActive: false };
      this.releaseWaiters("stopped");
      await Promise.all([...deps.sources.map((s) => s.stop()), deps.sink.close?.()].map((p) => Promise.resolve(p).catch(() => undefined)));
    }
  }

  /**
   * Batches back to back, with no pause between them: batch N+1's tasks start from where batch
   * N's stopped as soon as N's tasks end, and N's checkpoint (a collected output's write,
   * `offsets/N`, `commits/N`) and progress are written while they run. The logs keep their order
   * (a batch's are written only after the previous batch's), and a crash before `commits/N`
   * replays from `commits/N-1`: the output of N and N+1 is written again, as at-least-once allows.
   * A failed checkpoint stops the running batch and fails the query.
   */
  private async runBatches(): Promise<void> {
    let checkpointing: Promise<void> = Promise.resolve();
    try {
      while (!this.stopping) {
        const running = await this.startBatch();
        try {
          await checkpointing;
        } catch (e) {
          Atomics.store(running.stop, 0, 1);
          await running.results.catch(() => undefined);
          throw e;
        }
        const ended = await this.endBatch(running);
        checkpointing = this.checkpointBatch(ended);
        // Observed at the next batch's start, or below when the loop ends.
        checkpointing.catch(() => undefined);
      }
    } finally {
      await checkpointing;
    }
  }

  /**
   * A batch whose offsets are logged but not committed. A real-time batch logged its offsets after
   * its output reached the sink: it only lacks the commit. A micro-batch's may be half written:
   * only the micro-batch loop can re-run it as logged.
   */
  private async commitPending(entry: OffsetsEntry): Promise<void> {
    const batchId = this.nextBatchId;
    const file = this.deps.checkpoint.offsets.fileOf(batchId);
    if (!entry.realTime) {
      throw new CheckpointError(
        `checkpoint file ${file} plans micro-batch ${batchId}, which was not committed: real-time mode cannot re-run a micro-batch with its logged offsets. ` +
          "Run the query once with a micro-batch trigger (e.g. { availableNow: true }) to finish it, then start it again in real-time mode",
      );
    }
    await this.addLogEntry(this.deps.checkpoint.commits, batchId, { nextBatchWatermarkMs: null });
    this.nextStart = entry.sources;
    this.nextBatchId = batchId + 1;
  }

  /** Plans the next batch's splits from where the last one stopped and starts its tasks. */
  private async startBatch(): Promise<RunningBatch> {
    const { deps } = this;
    const { sources, plan, pool } = deps;
    const batchId = this.nextBatchId;
    this.nextBatchId = batchId + 1;
    const timings: BatchTimings = { triggerStart: Date.now() };
    const start = this.nextStart;
    this.activity = `planning real-time batch ${batchId}`;
    this.statusValue = { message: "Getting offsets from sources", isDataAvailable: false, isTriggerActive: true };
    const splits = await Promise.all(
      sources.map((s, i) => {
        if (!s.realTimeSplits || !s.realTimeEnd) throw new InternalError(`${s.description} has no real-time reader; start() should have refused it`);
        return s.realTimeSplits(start[i]);
      }),
    );
    timings.latestOffset = Date.now() - timings.triggerStart;

    const stop = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    this.stopFlag = stop;
    if (this.stopping) Atomics.store(stop, 0, 1);
    const owned: OwnedSplit[] = splits.flatMap((ss, input) => ss.map((split) => ({ input, split })));
    const context: BatchInfo = { batchId, watermarkMs: null, watermarkForLateEventsMs: null, batchTimestampMs: timings.triggerStart };
    const groups = assign(owned, Math.max(1, pool.size));
    const deadlineMs = timings.triggerStart + deps.trigger.batchDurationMs;
    const tasks: RealTimeTask[] = groups.map((group) => ({
      kind: "realTime",
      splits: group.map((o) => ({ pipeline: plan.inputs[o.input]!, split: o.split })),
      context,
      outputMode: deps.outputMode,
      staticTables: deps.staticTables,
      deadlineMs,
      stop,
      numWatermarks: plan.watermarks.length,
      sink: deps.taskSink,
      outputFields: plan.outputFields,
    }));
    this.activity = `running real-time batch ${batchId}'s ${tasks.length} task(s)`;
    this.statusValue = { message: "Processing new data", isDataAvailable: true, isTriggerActive: true };
    const tasksStartMs = Date.now();
    const results = tasks.length > 0 ? this.runTasks(tasks, stop) : this.waitOut(stop, deadlineMs);
    // Awaited by endBatch, or dropped after a failed checkpoint once the tasks stopped.
    results.catch(() => undefined);
    return { batchId, start, splits, groups, stop, timings, tasksStartMs, results };
  }

  /** Waits for a batch's tasks: where each split stopped, the batch's figures and its end offsets. */
  private async endBatch(running: RunningBatch): Promise<EndedBatch> {
    const { sources, plan } = this.deps;
    const { splits, groups } = running;
    const results = await running.results;
    if (this.stopFlag === running.stop) this.stopFlag = null;

    // Positions and figures back in split order, per input.
    const positions = splits.map((ss) => ss.map(() => undefined as unknown));
    const perInput: InputFigures[] = plan.inputs.map(() => ({ numInputRows: 0, numMalformedRecords: 0, numRowsDroppedByWatermark: 0 }));
    let eventTime: (EventTimeStats | null)[] = Array.from({ length: plan.watermarks.length }, () => null);
    const latency: RealTimeLatencies = { endToEnd: emptyLatencies(), fetched: emptyLatencies(), written: emptyLatencies() };
    groups.forEach((group, t) => {
      const r = results[t]!;
      group.forEach((o, k) => {
        const s = r.splits[k]!;
        positions[o.input]![splits[o.input]!.indexOf(o.split)] = s.position;
        perInput[o.input]!.numInputRows += s.numInputRows;
        perInput[o.input]!.numMalformedRecords += s.numMalformedRecords;
      });
      eventTime = eventTime.map((e, w) => mergeStats(e, r.eventTime[w] ?? null));
      mergeLatencies(latency.endToEnd, r.latency.endToEnd);
      mergeLatencies(latency.fetched, r.latency.fetched);
      mergeLatencies(latency.written, r.latency.written);
    });
    const end = sources.map((s, i) => s.realTimeEnd!(running.start[i], splits[i]!, positions[i]!));
    this.nextStart = end;
    return { ...running, results, perInput, eventTime, latency, end };
  }

  /** A batch's checkpoint and progress: its collected output to the sink, `offsets/N`, `commits/N`. */
  private async checkpointBatch(batch: EndedBatch): Promise<void> {
    const { deps } = this;
    const { sources, plan, checkpoint } = deps;
    const { batchId, results, timings, end } = batch;
    const numOutputRows = results.reduce((n, r) => n + r.numOutputRows, 0);
    if (deps.taskSink.kind === "collect") {
      this.checkNotAbandoned(`write batch ${batchId} to the sink`);
      await deps.sink.addBatch(batchId, collected(results.map((r) => r.batch), plan.outputFields), deps.outputMode);
    }
    timings.addBatch = Date.now() - batch.tasksStartMs;

    const t2 = Date.now();
    await this.addLogEntry(checkpoint.offsets, batchId, { sources: end, batchWatermarkMs: null, batchTimestampMs: timings.triggerStart, conf: this.relayedConf, realTime: true });
    timings.walCommit = Date.now() - t2;
    const t3 = Date.now();
    await this.addLogEntry(checkpoint.commits, batchId, { nextBatchWatermarkMs: null });
    sources.forEach((s, i) => s.commit(end[i]));
    const oldestKept = batchId + 1 - deps.minBatchesToRetain;
    await Promise.all([checkpoint.offsets.purge(oldestKept), checkpoint.commits.purge(oldestKept)]);
    timings.commitOffsets = Date.now() - t3;

    // The latest offsets now: the progress's `latestOffset`, and whether the query has caught up.
    const latest = await Promise.all(sources.map((s, i) => s.latestOffset(end[i])));
    timings.triggerEnd = Date.now();
    const progress = buildProgress({
      id: deps.id,
      runId: deps.runId,
      name: deps.name,
      batchId,
      timings,
      out: { batches: [], perInput: batch.perInput, eventTime: batch.eventTime },
      sources,
      startOffsets: batch.start,
      endOffsets: end,
      latestOffsets: latest,
      watermarkMs: null,
      stateOperators: [],
      sink: deps.sink,
      numOutputRows,
    });
    deps.onProgress({
      ...progress,
      sink: { ...progress.sink, metrics: { ...progress.sink.metrics, ...latencyMetrics(batch.latency) } },
    });
    if (latest.every((o, i) => sameOffset(o, end[i]))) this.releaseWaiters("idle");
  }

  /** Runs the batch's tasks; the first failure stops the others, and is thrown once all have ended. */
  private async runTasks(tasks: readonly RealTimeTask[], stop: Int32Array): Promise<RealTimeTaskResult[]> {
    const settled = await Promise.allSettled(
      tasks.map((t) =>
        this.deps.pool.run(t).catch((e: unknown) => {
          Atomics.store(stop, 0, 1);
          throw e;
        }),
      ),
    );
    const failure = settled.find((r) => r.status === "rejected");
    if (failure) throw (failure as PromiseRejectedResult).reason;
    return settled.map((r) => (r as PromiseFulfilledResult<RealTimeTaskResult>).value);
  }

  /** A batch without partitions to read (a subscribePattern matching no topic yet): the interval passes, or a stop ends it. */
  private async waitOut(stop: Int32Array, deadlineMs: number): Promise<RealTimeTaskResult[]> {
    while (Atomics.load(stop, 0) === 0 && Date.now() < deadlineMs) await new Promise((r) => setTimeout(r, Math.min(100, deadlineMs - Date.now())));
    return [];
  }

  private checkNotAbandoned(step: string): void {
    if (this.abandoned) throw new SluiceError(`the run was abandoned by stop() before it could ${step}`);
  }

  /** Writes a log entry only this run may write (runtime/own-log-entry.ts), unless the run was abandoned. */
  private async addLogEntry<T>(log: BatchLog<T>, batchId: number, entry: T): Promise<void> {
    this.checkNotAbandoned(`write ${log.fileOf(batchId)}`);
    await addOwnLogEntry({ lock: this.deps.lock, checkpointRoot: this.deps.checkpoint.root, queryId: this.deps.id, runId: this.deps.runId }, log, batchId, entry);
  }

  private releaseWaiters(why: "idle" | "stopped"): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w(why);
  }
}

/**
 * Sluice's own sink metrics in real-time mode, in ms per input record (Kafka timestamp on):
 * `latencyMs.*` from its timestamp to its output acknowledged by the sink (filtered-out records:
 * to their processing); `fetchLatencyMs.*`, the part until its processing started (the broker's
 * delivery of the fetch and the decode); `writeLatencyMs.*`, from its output handed to the sink to
 * the acknowledgement. What is left between the two is the processing.
 */
export function latencyMetrics(latency: RealTimeLatencies): Record<string, string> {
  const figures = (name: string, h: LatencyCounts): [string, string][] => [
    [`${name}.p50`, String(latencyPercentile(h, 50) ?? 0)],
    [`${name}.p99`, String(latencyPercentile(h, 99) ?? 0)],
    [`${name}.max`, String(h.maxMs)],
  ];
  return Object.fromEntries([
    ...figures("latencyMs", latency.endToEnd),
    ["latencyMs.count", String(latency.endToEnd.count)],
    ...figures("fetchLatencyMs", latency.fetched),
    ...figures("writeLatencyMs", latency.written),
  ]);
}

/** Splits dealt round-robin to at most `n` tasks (one per worker: a task holds its worker for the whole batch). */
function assign(owned: readonly OwnedSplit[], n: number): OwnedSplit[][] {
  const groups: OwnedSplit[][] = Array.from({ length: Math.min(n, owned.length) }, () => []);
  owned.forEach((o, i) => groups[i % groups.length]!.push(o));
  return groups;
}

function collected(batches: readonly Batch[], fields: Batch["fields"]): Batch {
  const rows = batches.filter((b) => b.numRows > 0);
  if (rows.length === 1) return rows[0]!;
  return rows.length === 0 ? emptyBatch(fields) : concatBatches(rows, fields);
}
