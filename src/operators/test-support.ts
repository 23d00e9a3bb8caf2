import type { Batch } from "../batch/batch.js";
import { batchToRows, rowsToBatch } from "../batch/rows.js";
import type { AggFn } from "../expr/ast.js";
import type { AggregateSpec } from "../planner/physical.js";
import { InMemoryStateStoreProvider } from "../state/in-memory-provider.js";
import type { StateStore } from "../state/state-store.js";
import type { DType, Field, Fields } from "../types/dtype.js";
import { emptyMetrics } from "../batch/task-metrics.js";
import type { OutputMode } from "../config/options.js";
import type { AggregateStateExec } from "./aggregate-state-exec.js";
import type { BatchInfo, ExecContext } from "./exec.js";
import { FinalAggregateExec } from "./final-aggregate-exec.js";
import { partialAggregate } from "./partial-aggregate-exec.js";
import { SessionMergeExec } from "./session-merge-exec.js";

export type AggregateOutputMode = OutputMode;

/**
 * Small builders for operator tests: batches from rows, rows with plain values (epoch ms for
 * timestamps, [start, end] for windows) so expected outputs read at a glance, aggregate specs
 * laid out the way the planner lays them out, and a driver loop for aggregations.
 */

export function field(name: string, type: DType, nullable = true): Field {
  return { name, type, nullable };
}

export function batchOf(fields: Fields, rows: readonly Record<string, unknown>[]): Batch {
  return rowsToBatch(rows, fields);
}

export function plainRows(batch: Batch): Record<string, unknown>[] {
  return batchToRows(batch).map((row) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) {
      if (v instanceof Date) out[k] = v.getTime();
      else if (v !== null && typeof v === "object" && "start" in v && "end" in v) {
        const w = v as { start: Date; end: Date };
        out[k] = [w.start.getTime(), w.end.getTime()];
      } else out[k] = v;
    }
    return out;
  });
}

export interface AggregateSpecInput {
  /** Plain key fields, in the order of the input batch's first columns. */
  readonly keys: Fields;
  readonly window?:
    | { readonly kind: "tumbling" | "sliding"; readonly sizeMs: number; readonly slideMs?: number; readonly startMs?: number }
    | { readonly kind: "session"; readonly gapMs: number };
  /** Where the window key goes among the output keys (default: first). */
  readonly windowKeyIndex?: number;
  /** Aggregates: function, input column index (-1 for count(*)), output name, argument type. */
  readonly aggs: readonly { readonly fn: AggFn; readonly input: number; readonly name: string; readonly type?: DType }[];
  /** "window", a plain key name, or none. */
  readonly eventTimeKey?: string;
}

export function aggregateSpec(input: AggregateSpecInput): AggregateSpec {
  const w = input.window;
  const windowKeyIndex = w ? (input.windowKeyIndex ?? 0) : -1;
  const keyFields = [...input.keys];
  if (w) keyFields.splice(windowKeyIndex, 0, field("window", "window", false));
  const window: AggregateSpec["window"] =
    w === undefined
      ? null
      : w.kind === "session"
        ? { kind: "session", gapMs: w.gapMs, keyIndex: windowKeyIndex }
        : { kind: w.kind, sizeMs: w.sizeMs, slideMs: w.slideMs ?? w.sizeMs, startMs: w.startMs ?? 0, keyIndex: windowKeyIndex };
  const eventTimeKey =
    input.eventTimeKey === undefined
      ? null
      : input.eventTimeKey === "window"
        ? { index: windowKeyIndex, isWindow: true }
        : { index: keyFields.findIndex((f) => f.name === input.eventTimeKey), isWindow: false };
  return {
    keyFields,
    numPlainKeys: input.keys.length,
    window,
    aggs: input.aggs.map(({ fn, input: i, name }) => ({ fn, input: i, name })),
    aggFields: input.aggs.map(({ fn, name, type }) => aggField(fn, name, type ?? "float64")),
    eventTimeKey,
  };
}

function aggField(fn: AggFn, name: string, type: DType): Field {
  switch (fn) {
    case "count":
      return field(name, "int64", false);
    case "sum":
      return field(name, type === "float64" ? "float64" : "int64");
    case "avg":
      return field(name, "float64");
    case "min":
    case "max":
    case "first":
    case "last":
      return field(name, type);
  }
}

/**
 * The context the runtime opens operators with, for tests that drive operators by hand: one state
 * store for every stateful operator, and a batch the test moves on by assigning to `batch`.
 */
export function testContext(options: { store?: StateStore; mode?: OutputMode; staticTables?: Readonly<Record<string, unknown>> } = {}) {
  const store = options.store ?? new InMemoryStateStoreProvider().load(0, -1);
  const ctx = {
    batch: { batchId: 0, watermarkMs: null, watermarkForLateEventsMs: null, batchTimestampMs: 0 } as BatchInfo,
    outputMode: options.mode ?? "append",
    staticTables: options.staticTables ?? {},
    metrics: emptyMetrics(0),
    stateStore: () => store,
    processorTasks: null,
  };
  return ctx satisfies ExecContext;
}

/** The driver operator of an aggregation, as the planner picks it. */
export function aggregateExec(spec: AggregateSpec, operatorId = 0): AggregateStateExec {
  return spec.window?.kind === "session" ? new SessionMergeExec(operatorId, spec) : new FinalAggregateExec(operatorId, spec);
}

/** Drives an aggregation the way the runtime does: partials in "workers", then the driver operator. */
export function aggregateRunner(spec: AggregateSpec, mode: AggregateOutputMode, store: StateStore = new InMemoryStateStoreProvider().load(0, -1)) {
  const exec = aggregateExec(spec, store.operatorId);
  const ctx = testContext({ store, mode });
  exec.open(ctx);
  let version = store.version;
  let previous: number | null = null;
  return {
    exec,
    store,
    /**
     * One micro-batch: each input batch is one task's split. As in the runtime, rows are judged
     * late by the previous batch's watermark (the first batch's own) and state is emitted and
     * evicted by `watermarkMs`.
     */
    batch(inputs: readonly Batch[], watermarkMs: number | null) {
      const late = previous ?? watermarkMs;
      ctx.batch = { ...ctx.batch, watermarkMs, watermarkForLateEventsMs: late };
      const partials = inputs.map((b) => partialAggregate(b, spec, late));
      for (const p of partials) exec.process(p.batch);
      const output = exec.onWatermark(watermarkMs);
      exec.commit(++version);
      previous = watermarkMs;
      const workerDropped = partials.reduce((n, p) => n + p.numRowsDroppedByWatermark, 0);
      ctx.batch = { ...ctx.batch, batchId: ctx.batch.batchId + 1 };
      return { rows: plainRows(output), metrics: exec.lastMetrics()!, workerDropped };
    },
  };
}
