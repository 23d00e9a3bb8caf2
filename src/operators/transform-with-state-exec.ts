import { type Batch, columnIndex, emptyBatch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { columnValues } from "../batch/rows.js";
import { AnalysisError, InternalError } from "../errors/errors.js";
import { keyViewOf } from "../kernels/hash-table-columns.js";
import { KeyEncoder } from "../kernels/hash-table-keys.js";
import { KeyHashTable } from "../kernels/hash-table.js";
import { takeRows } from "../kernels/gather.js";
import type { TransformWithStateSpec } from "../planner/physical.js";
import type { StateStore } from "../state/state-store.js";
import { decodeKey, encodeKey } from "./canonical-key.js";
import { BaseExec, type ExecContext, type StatefulExec } from "./exec.js";
import { withoutLateRows } from "./late-rows.js";
import { addCounters, emptyCounters, ProcessorState, type ProcessorCounters } from "./processor-state.js";
import { PROCESSOR_STATE_SCHEMA, ProcessorStateTable } from "./processor-state-table.js";
import type { DeclaredVariable, ProcessorTask, ProcessorTaskResult, ProcessorTaskRunner } from "./processor-task.js";
import { figure, rowBytes, rowCount, StateRowsBuilder } from "./state-rows.js";
import { StateBatchAccounting, type StateOperatorMetrics } from "./state-metrics.js";

/** Spark's operator name in progress (`stateOperators[].operatorName`). */
const OPERATOR_NAME = "transformWithStateExec";

/** A key of the batch while tasks are planned: its rows in the input and in the initial state. */
interface PlannedKey {
  readonly key: string;
  inputRows: Int32Array | null;
  initialRow: number;
}

/**
 * `groupByKey(...).transformWithState(processor, timeMode, outputMode)` (Spark 4's
 * TransformWithStateExec), on the driver: it owns the operator's state and runs the processor, user
 * code, in the worker pool. A micro-batch's input is collected as it comes (`process`); once the
 * input is done (`onWatermark`) the batch's grouping keys (those with rows, with a timer due, or, in
 * the query's first batch, with an initial state) are split into at most one task per worker, each
 * carrying its keys' rows and stored state (processor-run.ts runs it), and what the tasks wrote is
 * applied to the state. Values whose TTL passed leave state last, as in Spark. Nothing is applied
 * before every task succeeded, so a task retried, or a batch failed, leaves the state as it was.
 */
export class TransformWithStateExec extends BaseExec implements StatefulExec {
  readonly operatorName = OPERATOR_NAME;
  private readonly keyIndexes: readonly number[];
  private readonly pending: Batch[] = [];
  private readonly encoder = new KeyEncoder();
  private store: StateStore | null = null;
  private table: ProcessorStateTable | null = null;
  private accounting: StateBatchAccounting | null = null;
  private metrics: StateOperatorMetrics | null = null;
  /** What the processor declared in `init`, as the last task reported; null before any task of this run. */
  private declared: readonly DeclaredVariable[] | null = null;
  /** The next processing-time timer or TTL expiry (see nextDueMs). */
  private due: number | null = null;

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
    this.table = new ProcessorStateTable(store);
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

  override async onWatermark(watermarkMs: number | null): Promise<Batch> {
    const { accounting, table } = this.opened();
    const runner = this.ctx.processorTasks;
    if (runner === null) throw new InternalError(`${OPERATOR_NAME} runs on the driver, which hands its processor tasks to the pool`);
    const info = this.ctx.batch;
    const started = performance.now();
    const tasks = accounting.update(() => this.planTasks(watermarkMs, runner.parallelism));
    const results = tasks.length === 0 ? [] : await runner.run(tasks);
    const counters = emptyCounters();
    const output = accounting.update(() => {
      const out = this.apply(results, counters);
      const ttl = new ProcessorState(table, info.batchTimestampMs);
      for (const [name, key] of table.rowsExpiredBy(info.batchTimestampMs)) ttl.withKey(key, [], () => ttl.removeExpired(name));
      addCounters(counters, ttl.counters);
      this.due = this.findNextDue();
      return out;
    });
    const removed = this.opened().store.table.removedSlots().length;
    const base = accounting.finish(null, watermarkMs, undefined);
    // The wait for the tasks is the processor's work: Spark counts it in allUpdatesTimeMs too.
    const allUpdatesTimeMs = Math.round(performance.now() - started);
    this.metrics = { ...base, allUpdatesTimeMs, numRowsRemoved: removed, customMetrics: this.customMetrics(counters) };
    return output;
  }

  override commit(version: number): void {
    const commitTimeMs = this.opened().accounting.commit(version);
    if (this.metrics) this.metrics = { ...this.metrics, commitTimeMs: Math.round(commitTimeMs) };
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
    if (this.spec.timeMode !== "processingTime" || this.table === null) return null;
    const timer = this.table.earliestTimerMs();
    const expiry = this.table.earliestExpiryMs();
    const candidates = [timer === null ? null : timer + 1, expiry].filter((t): t is number => t !== null);
    return candidates.length === 0 ? null : Math.min(...candidates);
  }

  /**
   * The batch's keys in Spark's order (initial state, then rows by first arrival, then timers due),
   * split into at most `parallelism` tasks of about equal work. A batch with no key runs no task,
   * unless no task has run yet in this run of the query: one then runs over no key, so the
   * processor's `init` is checked, and its variables known, from the first batch on.
   */
  private planTasks(watermarkMs: number | null, parallelism: number): ProcessorTask[] {
    const info = this.ctx.batch;
    const keys = new Map<string, PlannedKey>();
    const plannedKey = (key: string) => {
      let k = keys.get(key);
      if (k === undefined) keys.set(key, (k = { key, inputRows: null, initialRow: -1 }));
      return k;
    };
    const initial = this.spec.initialState !== null && info.batchId === 0 ? this.initialState() : null;
    if (initial !== null) this.keysOf(initial, this.spec.initialState!.keyColumns).forEach((rows, key) => (plannedKey(key).initialRow = rows[0]!));
    const input = this.pending.length === 0 ? null : this.pending.length === 1 ? this.pending[0]! : concatBatches(this.pending, this.spec.inputFields);
    this.pending.length = 0;
    if (input !== null) this.keysOf(input, this.spec.keyColumns).forEach((rows, key) => (plannedKey(key).inputRows = rows));
    const threshold = timerThreshold(this.spec, info.batchTimestampMs, watermarkMs);
    if (threshold !== null) for (const key of this.opened().table.keysWithTimersBefore(threshold)) plannedKey(key);
    if (keys.size === 0 && this.declared !== null) return [];
    return splitEvenly([...keys.values()], Math.max(1, parallelism)).map((share) => this.task(share, input, initial, watermarkMs, threshold));
  }

  private task(share: readonly PlannedKey[], input: Batch | null, initial: Batch | null, watermarkMs: number | null, threshold: number | null): ProcessorTask {
    const { table } = this.opened();
    const info = this.ctx.batch;
    const inputRows = share.flatMap((k) => (k.inputRows === null ? [] : [k.inputRows]));
    const seeded = share.filter((k) => k.initialRow >= 0);
    const state = new StateRowsBuilder();
    for (const k of share) table.addRowsOf(k.key, state);
    let nextSeeded = 0;
    return {
      kind: "processor",
      spec: this.spec,
      batchId: info.batchId,
      batchTimestampMs: info.batchTimestampMs,
      watermarkMs,
      timerThresholdMs: threshold,
      keys: share.map((k) => k.key),
      inputCounts: Int32Array.from(share, (k) => k.inputRows?.length ?? 0),
      // Each seeded key's row in the task's own initial-state batch, which holds those keys' rows in key order.
      initialRows: Int32Array.from(share, (k) => (k.initialRow < 0 ? -1 : nextSeeded++)),
      input: input === null || inputRows.length === 0 ? null : takeRows(input, concatIndexes(inputRows)),
      initialState: initial === null || seeded.length === 0 ? null : takeRows(initial, Int32Array.from(seeded, (k) => k.initialRow)),
      state: state.finish(),
    };
  }

  /** Applies the tasks' state writes and returns their rows; the operator's variables are those the tasks declared. */
  private apply(results: readonly ProcessorTaskResult[], counters: ProcessorCounters): Batch {
    const { table } = this.opened();
    for (const name of new Set(results.flatMap((r) => r.deletedVariables))) table.deleteVariable(name);
    for (const r of results) {
      const w = r.writes;
      for (let i = 0; i < rowCount(w); i++) table.write(w.names[i]!, w.keys[i]!, rowBytes(w, i), figure(w.expiresAt, i), figure(w.timers, i));
      addCounters(counters, r.counters);
    }
    if (results.length > 0) this.declared = results[0]!.declared;
    const batches = results.map((r) => r.batch).filter((b) => b.numRows > 0);
    if (batches.length === 0) return emptyBatch(this.spec.outputFields);
    return batches.length === 1 ? batches[0]! : concatBatches(batches, this.spec.outputFields);
  }

  /** The initial state's rows, built once per query run as a static table. */
  private initialState(): Batch {
    const { tableId } = this.spec.initialState!;
    const initial = this.ctx.staticTables[tableId] as Batch | undefined;
    if (initial === undefined) throw new InternalError(`the initial state table ${tableId} was not built`);
    const keys = this.keysOf(initial, this.spec.initialState!.keyColumns);
    for (const [key, rows] of keys) {
      if (rows.length > 1) {
        throw new AnalysisError(
          `Cannot re-initialize state on the same grouping key during initial state handling for stateful processor. Invalid grouping key=${JSON.stringify(decodeKey(key))}: the initial state has one row per key`,
        );
      }
    }
    return initial;
  }

  /** Each grouping key's row indexes (in arrival order) by the key's canonical text, keys in order of first arrival. */
  private keysOf(batch: Batch, keyColumns: readonly string[]): Map<string, Int32Array> {
    const n = batch.numRows;
    const indexes = keyColumns === this.spec.keyColumns ? this.keyIndexes : keyColumns.map((c) => columnIndex(batch.fields, c));
    const keys = this.encoder.encode(
      indexes.map((c) => ({ view: keyViewOf(batch.columns[c]!, batch.fields[c]!.type, batch.fields[c]!.name), rows: null })),
      n,
    );
    const hashed = new KeyHashTable(Math.max(16, n));
    const groupOf = new Int32Array(n);
    hashed.findOrInsert(keys, groupOf);
    const counts = new Int32Array(hashed.groupCount);
    const first = new Int32Array(hashed.groupCount).fill(-1);
    for (let r = 0; r < n; r++) {
      const g = groupOf[r]!;
      if (counts[g]!++ === 0) first[g] = r;
    }
    const groups = Array.from(counts, (c) => new Int32Array(c));
    const filled = new Int32Array(hashed.groupCount);
    for (let r = 0; r < n; r++) {
      const g = groupOf[r]!;
      groups[g]![filled[g]!++] = r;
    }
    // The key's values (as rows give them) of each group's first row: its canonical text.
    const firstRows = takeRows(batch, first);
    const values = indexes.map((c) => columnValues(firstRows.columns[c]!, firstRows.fields[c]!, firstRows.numRows));
    const out = new Map<string, Int32Array>();
    groups.forEach((rows, g) => out.set(encodeKey(values.map((v) => v[g]), "a grouping key"), rows));
    return out;
  }

  private customMetrics(counters: ProcessorCounters): Record<string, number> {
    const declared = this.declared ?? [];
    const count = (kind: string, ttl: boolean) => declared.filter((d) => d.kind === kind && (d.ttlMs !== null) === ttl).length;
    return {
      numValueStateVars: count("value", false),
      numListStateVars: count("list", false),
      numMapStateVars: count("map", false),
      numValueStateWithTTLVars: count("value", true),
      numListStateWithTTLVars: count("list", true),
      numMapStateWithTTLVars: count("map", true),
      ...counters,
    };
  }

  private opened(): { store: StateStore; table: ProcessorStateTable; accounting: StateBatchAccounting } {
    const { store, table, accounting } = this;
    if (store === null || table === null || accounting === null) throw new InternalError(`${OPERATOR_NAME} was used before open()`);
    return { store, table, accounting };
  }
}

/** Timers before this fire: the batch's timestamp in processing-time mode, the watermark in event-time mode. */
function timerThreshold(spec: TransformWithStateSpec, batchTimestampMs: number, watermarkMs: number | null): number | null {
  switch (spec.timeMode) {
    case "processingTime":
      return batchTimestampMs;
    case "eventTime":
      return watermarkMs;
    case "none":
      return null;
  }
}

/** Consecutive shares of `keys`, at most `n`, each about the same work (a key counts 1 plus its rows). */
function splitEvenly(keys: readonly PlannedKey[], n: number): PlannedKey[][] {
  if (keys.length <= 1 || n === 1) return [[...keys]];
  const weight = (k: PlannedKey) => 1 + (k.inputRows?.length ?? 0);
  const total = keys.reduce((s, k) => s + weight(k), 0);
  const shares: PlannedKey[][] = [[]];
  let done = 0;
  for (const k of keys) {
    const share = shares[shares.length - 1]!;
    // A new share starts once this one holds its part of the work, while shares are left.
    if (share.length > 0 && shares.length < n && done >= (total * shares.length) / n) shares.push([]);
    shares[shares.length - 1]!.push(k);
    done += weight(k);
  }
  return shares;
}

function concatIndexes(parts: readonly Int32Array[]): Int32Array {
  const out = new Int32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
