import { type Batch, columnIndex, emptyBatch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import { parseDuration } from "../config/duration.js";
import { AnalysisError, InternalError, SluiceError, StatefulProcessorError } from "../errors/errors.js";
import { describeProcessor, processorClass } from "../expr/udf-modules.js";
import { keyViewOf } from "../kernels/hash-table-columns.js";
import { KeyEncoder } from "../kernels/hash-table-keys.js";
import { KeyHashTable } from "../kernels/hash-table.js";
import type { TransformWithStateSpec } from "../planner/physical.js";
import type { StateStore } from "../state/state-store.js";
import { BaseExec, type ExecContext, type StatefulExec } from "./exec.js";
import { withoutLateRows } from "./late-rows.js";
import { PROCESSOR_STATE_SCHEMA, ProcessorState } from "./processor-state.js";
import type { StatefulProcessor, StatefulProcessorClass, StatefulProcessorHandle, StateOptions, TimerValues } from "./stateful-processor.js";
import { StateBatchAccounting, type StateOperatorMetrics } from "./state-metrics.js";

/** Spark's operator name in progress (`stateOperators[].operatorName`). */
const OPERATOR_NAME = "transformWithStateExec";

type Row = Record<string, unknown>;

/**
 * `groupByKey(...).transformWithState(processor, timeMode, outputMode)` (Spark 4's
 * TransformWithStateExec). A micro-batch's input is collected as it comes (`process`), and its
 * work happens once the input is done (`onWatermark`), in Spark's order:
 *
 * 1. in the query's first batch, the initial state's rows, one `handleInitialState` per key;
 * 2. the batch's rows, late ones dropped, one `handleInputRows` per grouping key;
 * 3. every timer due (processing time: before the batch's timestamp; event time: before the
 *    operator's watermark), earliest first, one `handleExpiredTimer` each, the timer deleted after;
 * 4. values whose TTL passed leave state.
 *
 * The processor instance lives for the run of the query: it is constructed from its module's
 * class with its `args`, and `init` declares its state variables once.
 */
export class TransformWithStateExec extends BaseExec implements StatefulExec {
  readonly operatorName = OPERATOR_NAME;
  private readonly keyIndexes: readonly number[];
  private readonly pending: Batch[] = [];
  private readonly encoder = new KeyEncoder();
  private processor: StatefulProcessor<unknown, Row, Row> | null = null;
  private store: StateStore | null = null;
  private state: ProcessorState | null = null;
  private accounting: StateBatchAccounting | null = null;
  private metrics: StateOperatorMetrics | null = null;
  private readonly declared = new Map<string, { readonly kind: "value" | "list" | "map"; readonly ttlMs: number | null }>();
  /** The next processing-time timer or TTL expiry (see nextDueMs). */
  private due: number | null = null;
  /** What the processor is running, for errors. */
  private phase = "init";

  constructor(
    readonly operatorId: number,
    readonly spec: TransformWithStateSpec,
  ) {
    super();
    this.keyIndexes = spec.keyColumns.map((c) => columnIndex(spec.inputFields, c));
  }

  override open(ctx: ExecContext): void {
    super.open(ctx);
    const store = ctx.stateStore(this.operatorId);
    store.open(PROCESSOR_STATE_SCHEMA, OPERATOR_NAME);
    this.store = store;
    this.accounting = new StateBatchAccounting(store, OPERATOR_NAME);
    this.state = new ProcessorState(store);
    const Processor = processorClass(this.spec.processor) as StatefulProcessorClass;
    this.processor = this.call("its constructor", () => new Processor(this.spec.processor.args)) as StatefulProcessor<unknown, Row, Row>;
    for (const method of ["init", "handleInputRows"] as const) {
      if (typeof this.processor[method] !== "function") {
        throw new AnalysisError(`${describeProcessor(this.spec.processor)} has no ${method} method: a stateful processor implements init and handleInputRows`);
      }
    }
    this.call("init", () => this.processor!.init(this.handle(), { timeMode: this.spec.timeMode, outputMode: this.spec.outputMode }));
    this.phase = "batch";
    this.due = this.findNextDue();
  }

  /** Collects the batch's rows: the processor sees each key's rows of the whole micro-batch at once. */
  process(batch: Batch): null {
    const { accounting } = this.opened();
    accounting.update(() => {
      const { batch: onTime, dropped } = withoutLateRows(batch, this.spec.eventTimeColumn, this.ctx.batch.watermarkForLateEventsMs);
      accounting.addDropped(dropped);
      if (onTime.numRows > 0) this.pending.push(onTime);
    });
    return null;
  }

  override onWatermark(watermarkMs: number | null): Batch {
    const { accounting, state } = this.opened();
    const info = this.ctx.batch;
    const out: Row[] = [];
    const timerValues: TimerValues = { currentProcessingTimeMs: info.batchTimestampMs, currentWatermarkMs: watermarkMs };
    accounting.update(() => {
      state.startBatch(info.batchTimestampMs);
      if (this.spec.initialState !== null && info.batchId === 0) this.handleInitialState(timerValues);
      const input = this.pending.length === 0 ? null : this.pending.length === 1 ? this.pending[0]! : concatBatches(this.pending, this.spec.inputFields);
      this.pending.length = 0;
      if (input !== null) this.handleInput(input, timerValues, out);
      this.fireTimers(watermarkMs, timerValues, out);
      state.removeExpired();
      this.due = this.findNextDue();
    });
    const table = this.opened().store.table;
    const removed = table.removedSlots().length;
    const base = accounting.finish(null, watermarkMs, undefined);
    this.metrics = { ...base, numRowsRemoved: removed, customMetrics: this.customMetrics() };
    return this.toBatch(out);
  }

  override commit(version: number): void {
    const commitTimeMs = this.opened().accounting.commit(version);
    if (this.metrics) this.metrics = { ...this.metrics, commitTimeMs: Math.round(commitTimeMs) };
  }

  override close(): void {
    if (this.processor?.close) this.call("close", () => this.processor!.close!());
    this.processor = null;
  }

  lastMetrics(): StateOperatorMetrics | null {
    return this.metrics;
  }

  /**
   * When the next processing-time timer fires or value expires (epoch ms), null when none is
   * waiting: the driver runs a batch without input then (Spark runs such batches all the time in
   * processing-time mode; Sluice runs them when there is something to fire or expire). Found once
   * per batch, since only a batch changes state, and read by every trigger of the loop.
   */
  nextDueMs(): number | null {
    return this.due;
  }

  /** The earliest timer (fired once a batch's timestamp is past it) or TTL expiry in state. */
  private findNextDue(): number | null {
    if (this.spec.timeMode !== "processingTime" || this.state === null) return null;
    const timer = this.state.earliestTimerMs();
    const expiry = this.state.earliestExpiryMs();
    const candidates = [timer === null ? null : timer + 1, expiry].filter((t): t is number => t !== null);
    return candidates.length === 0 ? null : Math.min(...candidates);
  }

  private handleInput(input: Batch, timerValues: TimerValues, out: Row[]): void {
    const processor = this.processor!;
    const rows = batchToRows(input);
    for (const group of this.groups(input)) {
      const first = rows[group[0]!]!;
      const keyValues = this.spec.keyColumns.map((c) => first[c]);
      const groupRows = Array.from(group, (r) => rows[r]!);
      this.withKey(keyValues, "handleInputRows", (key) => processor.handleInputRows(key, groupRows, timerValues), out);
    }
  }

  private handleInitialState(timerValues: TimerValues): void {
    const { tableId, keyColumns } = this.spec.initialState!;
    const initial = this.ctx.staticTables[tableId] as Batch | undefined;
    if (initial === undefined) throw new InternalError(`the initial state table ${tableId} was not built`);
    const processor = this.processor!;
    if (initial.numRows > 0 && typeof processor.handleInitialState !== "function") {
      throw new AnalysisError(`${describeProcessor(this.spec.processor)} was given an initial state but has no handleInitialState method`);
    }
    const seen = new Set<string>();
    for (const row of batchToRows(initial)) {
      const keyValues = keyColumns.map((c) => row[c]);
      const id = JSON.stringify(keyValues.map((v) => (v instanceof Date ? v.getTime() : typeof v === "bigint" ? String(v) : v)));
      if (seen.has(id)) {
        throw new AnalysisError(
          `Cannot re-initialize state on the same grouping key during initial state handling for stateful processor. Invalid grouping key=${id}: the initial state has one row per key`,
        );
      }
      seen.add(id);
      this.withKey(keyValues, "handleInitialState", (key) => {
        processor.handleInitialState!(key, row, timerValues);
        return [];
      }, null);
    }
  }

  private fireTimers(watermarkMs: number | null, timerValues: TimerValues, out: Row[]): void {
    const { state } = this.opened();
    const threshold = this.spec.timeMode === "processingTime" ? timerValues.currentProcessingTimeMs : this.spec.timeMode === "eventTime" ? watermarkMs : null;
    if (threshold === null) return;
    const processor = this.processor!;
    for (const timer of state.dueTimers(threshold)) {
      state.counters.numExpiredTimers++;
      this.withKey(timer.keyValues, "handleExpiredTimer", (key) => {
        const rows = processor.handleExpiredTimer?.(key, timerValues, { expiryTimeMs: timer.expiryTimeMs }) ?? [];
        const emitted = [...rows];
        state.deleteTimer(timer.expiryTimeMs);
        return emitted;
      }, out);
    }
  }

  /** Runs a handler with `keyValues` as the current key; its rows (an iterable, maybe lazy) are drained while the key is set. */
  private withKey(keyValues: readonly unknown[], method: string, handler: (key: Row) => Iterable<Row>, out: Row[] | null): void {
    const key: Row = {};
    this.spec.keyColumns.forEach((c, i) => (key[c] = keyValues[i]));
    this.opened().state.withKey(keyValues, () =>
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

  /** Each grouping key's row indexes in arrival order, keys in order of first arrival. */
  private groups(batch: Batch): Int32Array[] {
    const n = batch.numRows;
    const keys = this.encoder.encode(
      this.keyIndexes.map((c) => ({ view: keyViewOf(batch.columns[c]!, batch.fields[c]!.type, batch.fields[c]!.name), rows: null })),
      n,
    );
    const table = new KeyHashTable(Math.max(16, n));
    const groupOf = new Int32Array(n);
    table.findOrInsert(keys, groupOf);
    const counts = new Int32Array(table.groupCount);
    for (let r = 0; r < n; r++) counts[groupOf[r]!]!++;
    const groups = Array.from(counts, (c) => new Int32Array(c));
    const filled = new Int32Array(table.groupCount);
    for (let r = 0; r < n; r++) {
      const g = groupOf[r]!;
      groups[g]![filled[g]!++] = r;
    }
    return groups;
  }

  private toBatch(rows: readonly Row[]): Batch {
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

  private handle(): StatefulProcessorHandle {
    const exec = this;
    const declare = (kind: "value" | "list" | "map", name: string, options: StateOptions | undefined) => {
      if (exec.phase !== "init") throw new AnalysisError(`state variable "${name}" is declared in init only (Spark's handle state: INITIALIZED)`);
      if (typeof name !== "string" || name.length === 0 || name.startsWith("#")) {
        throw new AnalysisError(`state variable names are non-empty strings not starting with "#"; got ${JSON.stringify(name)}`);
      }
      if (exec.declared.has(name)) throw new AnalysisError(`state variable "${name}" is declared twice in init; each name is declared once`);
      const ttlMs = exec.ttlOf(name, options);
      exec.declared.set(name, { kind, ttlMs });
      return ttlMs;
    };
    const state = () => exec.opened().state;
    const timers = (what: string) => {
      if (exec.spec.timeMode === "none") {
        throw new AnalysisError(`${what} needs a time mode: transformWithState(processor, "processingTime" | "eventTime", ...); the query runs with "none"`);
      }
      return state();
    };
    return {
      getValueState: (name, options) => {
        const ttl = declare("value", name, options);
        return state().valueState(name, ttl);
      },
      getListState: (name, options) => {
        const ttl = declare("list", name, options);
        return state().listState(name, ttl);
      },
      getMapState: (name, options) => {
        const ttl = declare("map", name, options);
        return state().mapState(name, ttl);
      },
      registerTimer: (ms) => timers("registerTimer").registerTimer(checkTime(ms, "registerTimer")),
      deleteTimer: (ms) => timers("deleteTimer").deleteTimer(checkTime(ms, "deleteTimer")),
      listTimers: () => timers("listTimers").listTimers(),
      deleteIfExists: (name) => {
        if (exec.declared.has(name)) throw new AnalysisError(`deleteIfExists("${name}"): the variable is declared by this processor; delete former variables only`);
        state().deleteVariable(name);
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

  private customMetrics(): Record<string, number> {
    const kinds = [...this.declared.values()];
    const count = (kind: string, ttl: boolean) => kinds.filter((d) => d.kind === kind && (d.ttlMs !== null) === ttl).length;
    return {
      numValueStateVars: count("value", false),
      numListStateVars: count("list", false),
      numMapStateVars: count("map", false),
      numValueStateWithTTLVars: count("value", true),
      numListStateWithTTLVars: count("list", true),
      numMapStateWithTTLVars: count("map", true),
      ...this.opened().state.counters,
    };
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

  private opened(): { store: StateStore; state: ProcessorState; accounting: StateBatchAccounting } {
    const { store, state, accounting } = this;
    if (store === null || state === null || accounting === null) throw new InternalError(`${OPERATOR_NAME} was used before open()`);
    return { store, state, accounting };
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
