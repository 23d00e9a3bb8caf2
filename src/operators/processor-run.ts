import { type Batch, emptyBatch } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { parseDuration } from "../config/duration.js";
import { AnalysisError, SluiceError, StatefulProcessorError } from "../errors/errors.js";
import { describeProcessor, importProcessor, processorClass } from "../expr/udf-modules.js";
import type { TransformWithStateSpec } from "../planner/physical.js";
import { decodeKey } from "./canonical-key.js";
import { ProcessorState, type ProcessorRowStore, type StateKind } from "./processor-state.js";
import type { DeclaredVariable, ProcessorTask, ProcessorTaskResult } from "./processor-task.js";
import { figure, rowBytes, rowCount, StateRowsBuilder, type StateRows } from "./state-rows.js";
import type { StatefulProcessor, StatefulProcessorClass, StatefulProcessorHandle, StateOptions, TimerValues } from "./stateful-processor.js";
import { processorUdfs } from "./processor-udfs.js";

type Row = Record<string, unknown>;

/**
 * Runs a `transformWithState` task where it was sent (a worker, or the driver with `workers: 0`),
 * in Spark's order for a partition: the processor is constructed with its `args` and `init`
 * declares its state; then, in the query's first batch, one `handleInitialState` per key of the
 * initial state; one `handleInputRows` per key with rows; every timer of these keys that is due
 * (processing time: before the batch's timestamp; event time: before the operator's watermark),
 * earliest first, one `handleExpiredTimer` each, the timer deleted after; `close` last. State is
 * read from the rows the task carries, and what the processor writes goes back to the driver.
 */
export async function runProcessorTask(task: ProcessorTask): Promise<ProcessorTaskResult> {
  await importProcessor(task.spec.processor);
  const udfs = await processorUdfs(task.spec.processor);
  const rows = new TaskRows(task.state);
  const run = new ProcessorRun(task.spec, new ProcessorState(rows, task.batchTimestampMs));
  const out: Row[] = [];
  const timerValues: TimerValues = { currentProcessingTimeMs: task.batchTimestampMs, currentWatermarkMs: task.watermarkMs };
  run.init(udfs);
  try {
    if (task.initialState !== null) run.initialState(task.keys, task.initialRows, task.initialState, timerValues);
    if (task.input !== null) run.input(task.keys, task.inputCounts, task.input, timerValues, out);
    if (task.timerThresholdMs !== null) run.timers(task.keys, task.timerThresholdMs, timerValues, out);
  } finally {
    run.close();
  }
  return {
    kind: "processor",
    batch: run.toBatch(out),
    writes: rows.writes(),
    deletedVariables: run.deleted,
    declared: [...run.declared.values()],
    counters: run.state.counters,
  };
}

type RowWrite = readonly [bytes: Uint8Array | null, expiresAt: number | null, timer: number | null];

/** The rows a task carries, and what the processor wrote over them. */
class TaskRows implements ProcessorRowStore {
  private readonly rows = new Map<string, Map<string, Uint8Array>>();
  /** The last write of each row, by key and name. */
  private readonly written = new Map<string, Map<string, RowWrite>>();

  constructor(carried: StateRows) {
    for (let i = 0; i < rowCount(carried); i++) {
      const key = carried.keys[i]!;
      let byName = this.rows.get(key);
      if (byName === undefined) this.rows.set(key, (byName = new Map()));
      byName.set(carried.names[i]!, rowBytes(carried, i)!);
    }
  }

  read(name: string, key: string): Uint8Array | undefined {
    return this.rows.get(key)?.get(name);
  }

  write(name: string, key: string, bytes: Uint8Array | null, expiresAt: number | null, timer: number | null): void {
    let byName = this.rows.get(key);
    if (byName === undefined) this.rows.set(key, (byName = new Map()));
    if (bytes === null) byName.delete(name);
    else byName.set(name, bytes);
    let writes = this.written.get(key);
    if (writes === undefined) this.written.set(key, (writes = new Map()));
    writes.set(name, [bytes, expiresAt, timer]);
  }

  writes(): StateRows {
    const out = new StateRowsBuilder();
    for (const [key, byName] of this.written) for (const [name, [bytes, expiresAt, timer]] of byName) out.add(key, name, bytes, expiresAt, timer);
    return out.finish();
  }
}

/** One task's processor instance, its handle and the calls into it. */
class ProcessorRun {
  readonly declared = new Map<string, DeclaredVariable>();
  readonly deleted: string[] = [];
  private processor: StatefulProcessor<unknown, Row, Row> | null = null;
  /** What the processor is running, for the handle's rules. */
  private phase: "init" | "keys" | "closed" = "init";

  constructor(
    private readonly spec: TransformWithStateSpec,
    readonly state: ProcessorState,
  ) {}

  init(udfs: Readonly<Record<string, (...args: any[]) => unknown>>): void {
    const Processor = processorClass(this.spec.processor) as StatefulProcessorClass;
    const processor = this.call("its constructor", () => new Processor(this.spec.processor.args)) as StatefulProcessor<unknown, Row, Row>;
    for (const method of ["init", "handleInputRows"] as const) {
      if (typeof processor[method] !== "function") {
        throw new AnalysisError(`${describeProcessor(this.spec.processor)} has no ${method} method: a stateful processor implements init and handleInputRows`);
      }
    }
    this.processor = processor;
    this.call("init", () => processor.init(this.handle(), { timeMode: this.spec.timeMode, outputMode: this.spec.outputMode, udfs }));
    this.phase = "keys";
  }

  initialState(keys: readonly string[], initialRows: Int32Array, initial: Batch, timerValues: TimerValues): void {
    const processor = this.processor!;
    if (initial.numRows === 0) return;
    if (typeof processor.handleInitialState !== "function") {
      throw new AnalysisError(`${describeProcessor(this.spec.processor)} was given an initial state but has no handleInitialState method`);
    }
    const rows = batchToRows(initial);
    keys.forEach((encoded, k) => {
      const row = initialRows[k]!;
      if (row < 0) return;
      this.withKey(encoded, "handleInitialState", (key) => {
        processor.handleInitialState!(key, rows[row]!, timerValues);
        return [];
      }, null);
    });
  }

  input(keys: readonly string[], inputCounts: Int32Array, input: Batch, timerValues: TimerValues, out: Row[]): void {
    const processor = this.processor!;
    const rows = batchToRows(input);
    let next = 0;
    keys.forEach((encoded, k) => {
      const count = inputCounts[k]!;
      if (count === 0) return;
      const keyRows = rows.slice(next, (next += count));
      this.withKey(encoded, "handleInputRows", (key) => processor.handleInputRows(key, keyRows, timerValues), out);
    });
  }

  /** Fires the timers of these keys that are before `thresholdMs`, earliest first (ties by key). */
  timers(keys: readonly string[], thresholdMs: number, timerValues: TimerValues, out: Row[]): void {
    const processor = this.processor!;
    const due = keys.flatMap((key) => this.state.timersOf(key).flatMap((t) => (t < thresholdMs ? [{ key, t }] : [])));
    due.sort((a, b) => a.t - b.t || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const { key: encoded, t } of due) {
      this.state.counters.numExpiredTimers++;
      this.withKey(encoded, "handleExpiredTimer", (key) => {
        const emitted = [...(processor.handleExpiredTimer?.(key, timerValues, { expiryTimeMs: t }) ?? [])];
        this.state.deleteTimer(t);
        return emitted;
      }, out);
    }
  }

  close(): void {
    const processor = this.processor;
    this.phase = "closed";
    this.processor = null;
    if (processor?.close) this.call("close", () => processor.close!());
  }

  toBatch(rows: readonly Row[]): Batch {
    if (rows.length === 0) return emptyBatch(this.spec.outputFields);
    try {
      return rowsToBatch(rows, this.spec.outputFields);
    } catch (error) {
      throw new StatefulProcessorError(
        `${describeProcessor(this.spec.processor)} emitted a row that does not fit its output schema: ${(error as Error).message}`,
        this.spec.processor.name,
        "output",
        null,
        { cause: error },
      );
    }
  }

  /** Runs a handler with key `encoded` as the current key; its rows (an iterable, maybe lazy) are drained while the key is set. */
  private withKey(encoded: string, method: string, handler: (key: Row) => Iterable<Row>, out: Row[] | null): void {
    const keyValues = decodeKey(encoded) as unknown[];
    const key: Row = {};
    this.spec.keyColumns.forEach((c, i) => (key[c] = keyValues[i]));
    this.state.withKey(encoded, keyValues, () =>
      this.call(method, () => {
        const rows = handler(key);
        if (out === null) return;
        if (rows === null || rows === undefined || typeof (rows as Iterable<Row>)[Symbol.iterator] !== "function") {
          throw new AnalysisError(`${method} must return an iterable of output rows (an array or a generator), got ${rows === null ? "null" : typeof rows}`);
        }
        for (const r of rows) out.push(r);
      }, key),
    );
  }

  private handle(): StatefulProcessorHandle {
    const declare = (kind: StateKind, name: string, options: StateOptions | undefined) => {
      if (this.phase !== "init") throw new AnalysisError(`state variable "${name}" is declared in init only (Spark's handle state: INITIALIZED)`);
      if (typeof name !== "string" || name.length === 0 || name.startsWith("#")) {
        throw new AnalysisError(`state variable names are non-empty strings not starting with "#"; got ${JSON.stringify(name)}`);
      }
      if (this.declared.has(name)) throw new AnalysisError(`state variable "${name}" is declared twice in init; each name is declared once`);
      const ttlMs = this.ttlOf(name, options);
      this.declared.set(name, { name, kind, ttlMs });
      return ttlMs;
    };
    const timers = (what: string) => {
      if (this.spec.timeMode === "none") {
        throw new AnalysisError(`${what} needs a time mode: transformWithState(processor, "processingTime" | "eventTime", ...); the query runs with "none"`);
      }
      return this.state;
    };
    return {
      getValueState: (name, options) => this.state.valueState(name, declare("value", name, options)),
      getListState: (name, options) => this.state.listState(name, declare("list", name, options)),
      getMapState: (name, options) => this.state.mapState(name, declare("map", name, options)),
      registerTimer: (ms) => timers("registerTimer").registerTimer(checkTime(ms, "registerTimer")),
      deleteTimer: (ms) => timers("deleteTimer").deleteTimer(checkTime(ms, "deleteTimer")),
      listTimers: () => timers("listTimers").listTimers(),
      deleteIfExists: (name) => {
        if (this.declared.has(name)) throw new AnalysisError(`deleteIfExists("${name}"): the variable is declared by this processor; delete former variables only`);
        if (this.phase !== "init") throw new AnalysisError(`deleteIfExists("${name}") drops a variable of every key: call it in init`);
        if (!this.deleted.includes(name)) this.deleted.push(name);
      },
    };
  }

  /** Spark's TTLConfig rules: a positive duration, in processing-time mode only. */
  private ttlOf(name: string, options: StateOptions | undefined): number | null {
    if (options?.ttl === undefined) return null;
    if (this.spec.timeMode !== "processingTime") {
      throw new AnalysisError(
        `Cannot provide TTLConfig for state variable "${name}" in time mode "${this.spec.timeMode}": TTL follows processing time; run transformWithState with "processingTime"`,
      );
    }
    const ms = parseDuration(options.ttl, `ttl of state variable "${name}"`);
    if (!(ms > 0)) throw new AnalysisError(`the ttl of state variable "${name}" must be positive, got ${String(options.ttl)}`);
    return ms;
  }

  /** Runs user code; what it throws becomes a StatefulProcessorError naming the processor, the method and the key. */
  private call<T>(method: string, work: () => T, key: Row | null = null): T {
    try {
      return work();
    } catch (error) {
      if (error instanceof SluiceError && !(error instanceof AnalysisError)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      const where = key === null ? "" : ` for key ${describeKey(key)}`;
      throw new StatefulProcessorError(`${describeProcessor(this.spec.processor)} failed in ${method}${where}: ${reason}`, this.spec.processor.name, method, key, { cause: error });
    }
  }
}

function checkTime(ms: number, what: string): number {
  if (!Number.isSafeInteger(ms)) throw new AnalysisError(`${what}(${String(ms)}): a timer's time is whole epoch milliseconds`);
  return ms;
}

function describeKey(key: Row): string {
  try {
    return JSON.stringify(key);
  } catch {
    return String(Object.keys(key));
  }
}
