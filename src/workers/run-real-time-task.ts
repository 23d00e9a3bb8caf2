import { emptyBatch, readNumbers, type Batch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { addLatencies, addLatency, emptyLatencies } from "../batch/latency-histogram.js";
import { emptyMetrics, mergeStats, type EventTimeStats } from "../batch/task-metrics.js";
import { InternalError } from "../errors/errors.js";
import { OperatorChain } from "../operators/run-operators.js";
import type { InputPipeline } from "../planner/physical.js";
import { KafkaSink } from "../sinks/kafka-sink.js";
import { keepIdleClient, takeIdleClient } from "../sources/kafka/idle-clients.js";
import type { InputSplit } from "../sources/input-split.js";
import { openSplitTail } from "../sources/source-runtimes.js";
import type { Fields } from "../types/dtype.js";
import { runPrepared } from "./run-prepared.js";
import { WritesInFlight } from "./writes-in-flight.js";
import type { RealTimeLatencies, RealTimeSinkSpec, RealTimeSplitResult, RealTimeTask, RealTimeTaskResult } from "./protocol.js";

/**
 * The longest a fetch waits at the broker for new records. The broker answers as soon as one
 * arrives, so this does not delay records: it bounds how long a stop, a failure elsewhere or the
 * batch's deadline waits for the task to notice.
 */
export const REAL_TIME_FETCH_WAIT_MS = 100;

/**
 * Runs a real-time task: every split it owns is read in its own loop, each loop fetching (a long
 * poll), running the split's pipeline over what arrived and writing the output before it moves
 * its position on; the next fetch is already out while a batch is processed and written. The
 * loops share one sink writer, which sends what several of them produced together when they
 * produce at once. The task ends at its deadline, when the driver sets its stop flag, or when a
 * loop fails (then the others stop too, and the task fails with that error).
 */
export async function runRealTimeTask(task: RealTimeTask): Promise<RealTimeTaskResult> {
  let failed = false;
  const ending = () => failed || Atomics.load(task.stop, 0) !== 0 || Date.now() >= task.deadlineMs;
  const writer = new OutputWriter(task.sink, task.context.batchId, task.outputFields);
  const latency: RealTimeLatencies = { endToEnd: emptyLatencies(), fetched: emptyLatencies(), written: emptyLatencies() };
  const eventTime: (EventTimeStats | null)[] = Array.from({ length: task.numWatermarks }, () => null);
  try {
    const splits = await Promise.all(
      task.splits.map((owned) =>
        readSplit(task, owned, writer, latency, eventTime, ending).catch((e: unknown) => {
          failed = true;
          throw e;
        }),
      ),
    );
    return { kind: "realTime", batch: writer.collected(), splits, eventTime, numOutputRows: writer.rowsWritten, latency };
  } finally {
    await writer.close();
  }
}

async function readSplit(
  task: RealTimeTask,
  owned: { readonly pipeline: InputPipeline; readonly split: InputSplit },
  writer: OutputWriter,
  latency: RealTimeLatencies,
  eventTime: (EventTimeStats | null)[],
  ending: () => boolean,
): Promise<RealTimeSplitResult> {
  const metrics = emptyMetrics(task.numWatermarks);
  const tail = openSplitTail(owned.pipeline.source, owned.split, metrics);
  const chain = new OperatorChain(owned.pipeline.operators);
  chain.open({
    batch: task.context,
    outputMode: task.outputMode,
    staticTables: task.staticTables,
    metrics,
    stateStore: (operatorId) => {
      throw new InternalError(`stateful operator ${operatorId} reached a real-time task; real-time mode refuses stateful queries at start()`);
    },
    processorTasks: null,
  });
  const waitMs = () => Math.max(1, Math.min(REAL_TIME_FETCH_WAIT_MS, task.deadlineMs - Date.now()));
  const writes = new WritesInFlight(tail.position());
  let rows = 0;
  try {
    let next = tail.next(waitMs());
    for (;;) {
      const input = await next;
      const reached = tail.position();
      const more = !ending();
      if (more) {
        next = tail.next(waitMs());
        // Its failure is the loop's once awaited; a loop that ends first leaves it unobserved.
        next.catch(() => undefined);
      }
      if (input !== null && input.numRows > 0) {
        rows += input.numRows;
        const ts = input.fields.findIndex((f) => f.name === "timestamp" && f.type === "timestamp");
        const stamped = ts >= 0 ? readNumbers(input.columns[ts]!) : null;
        if (stamped !== null) addLatencies(latency.fetched, stamped, input.numRows, Date.now());
        const out = await runPrepared(() => chain.process(input).filter((b) => b.numRows > 0));
        const outRows = out.reduce((n, b) => n + b.numRows, 0);
        const handedMs = Date.now();
        await writes.add(out.length > 0 ? writer.write(out) : null, reached, () => {
          const doneMs = Date.now();
          if (stamped !== null) addLatencies(latency.endToEnd, stamped, input.numRows, doneMs);
          if (outRows > 0) addLatency(latency.written, doneMs - handedMs, outRows);
        });
      } else {
        await writes.add(null, reached, () => undefined);
      }
      if (!more) break;
    }
    await writes.drain();
  } finally {
    await tail.close();
    chain.close();
  }
  metrics.eventTime.forEach((s, w) => {
    eventTime[w] = mergeStats(eventTime[w] ?? null, s);
  });
  return { position: writes.written, numInputRows: rows, numMalformedRecords: metrics.numMalformedRecords };
}

/**
 * Where a real-time task's output goes. Kafka: written at once through the Kafka sink's own
 * writer (an idempotent producer, acks=all); while a write is out, what the task's loops produce
 * meanwhile is queued and sent as one write when it returns, so records wait for at most one
 * write ahead of them and a partition's records keep their order. Collect: kept for the driver,
 * which hands them to its sink when the batch ends (memory and console, as Spark's).
 */
class OutputWriter {
  rowsWritten = 0;
  private readonly kafka: KafkaSink | null;
  private readonly kept: Batch[] = [];
  private inflight: Promise<void> | null = null;
  private queued: { batches: readonly Batch[]; done: (error?: unknown) => void }[] = [];
  /** Set when a write failed: the producer is closed at the end rather than kept for the next batch. */
  private failed = false;

  constructor(
    private readonly sink: RealTimeSinkSpec,
    private readonly batchId: number,
    private readonly fields: Fields,
  ) {
    this.kafka = sink.kind === "kafka" ? (takeIdleClient<KafkaSink>(sinkKey(sink)) ?? new KafkaSink(sink.options)) : null;
  }

  write(batches: readonly Batch[]): Promise<void> {
    this.rowsWritten += batches.reduce((n, b) => n + b.numRows, 0);
    if (this.kafka === null) {
      this.kept.push(...batches);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.queued.push({ batches, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (this.inflight === null) this.sendQueued();
    });
  }

  private sendQueued(): void {
    const group = this.queued;
    this.queued = [];
    const batches = group.flatMap((g) => g.batches);
    const send = async () => this.kafka!.addBatch(this.batchId, batches.length === 1 ? batches[0]! : concatBatches(batches, this.fields));
    this.inflight = send().then(
      () => group.forEach((g) => g.done()),
      (error: unknown) => {
        this.failed = true;
        group.forEach((g) => g.done(error ?? new InternalError("the Kafka write failed without an error")));
      },
    );
    void this.inflight.finally(() => {
      this.inflight = null;
      if (this.queued.length > 0) this.sendQueued();
    });
  }

  collected(): Batch {
    if (this.kept.length === 1) return this.kept[0]!;
    return this.kept.length === 0 ? emptyBatch(this.fields) : concatBatches(this.kept, this.fields);
  }

  /** Waits for the write out; the producer is kept idle for the next batch's task (the same sink), or closed after a failure. */
  async close(): Promise<void> {
    await this.inflight?.catch(() => undefined);
    if (this.kafka === null) return;
    if (this.failed) await this.kafka.close();
    else await keepIdleClient(sinkKey(this.sink), this.kafka, (k) => k.close());
  }
}

function sinkKey(sink: RealTimeSinkSpec): string {
  return `real-time output ${JSON.stringify(sink)}`;
}
