import type * as arrow from "apache-arrow";
import { type Batch, columnIndex, emptyColumn, makeBatch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { InternalError } from "../errors/errors.js";
import type { Expr } from "../expr/ast.js";
import { compileExpr } from "../expr/compile.js";
import { asBool, type Compiled, dataOf } from "../expr/eval-vec.js";
import { gatherColumn, gatherOrNull } from "../kernels/gather.js";
import { keyViewOf } from "../kernels/hash-table-columns.js";
import { KeyEncoder } from "../kernels/hash-table-keys.js";
import { isLate } from "../kernels/window.js";
import type { JoinStateWatermark, StreamJoinSpec } from "../planner/physical.js";
import type { Field, Fields } from "../types/dtype.js";
import { BaseExec, type ExecContext, type StatefulExec } from "./exec.js";
import { JoinSideState } from "./join-side-state.js";
import { eventTimesAt } from "./late-rows.js";
import type { StateOperatorMetrics } from "./state-metrics.js";

export type JoinSide = 0 | 1;
const LEFT: JoinSide = 0;
const RIGHT: JoinSide = 1;

/** The operator name in progress and in state (Spark's). */
const OPERATOR_NAME = "symmetricHashJoin";

/**
 * Spark's StreamingSymmetricHashJoinExec: a join of two inputs that both arrive over time. Each
 * side's rows are kept in state (`JoinSideState`, two stores: partition 0 left, 1 right). In a
 * micro-batch the left input comes first, then the right: a new row is matched with the rows the
 * other side holds (those of earlier batches, and for the right input the left rows of this
 * batch too), so every pair meets exactly once, then it is stored. When the batch ends, rows the
 * watermark has made unmatchable leave state; an outer join emits each of those that never met a
 * row, with nulls for the other side.
 *
 * - A row at or before the late-events watermark (by its side's event-time column) is dropped and
 *   counted; it is never stored, matched, or emitted with nulls.
 * - A row failing its side's own condition, or with a null key, can never match: it is not stored,
 *   and the preserved side of an outer join emits it with nulls at once.
 * - left semi: a left row is emitted once, when it first meets a right row.
 * - A static query (both sides static) ends its input with its one batch: every row still
 *   unmatched on a preserved side is emitted then.
 */
export class StreamJoinExec extends BaseExec implements StatefulExec {
  readonly operatorName = OPERATOR_NAME;
  private readonly sides: [SideRuntime, SideRuntime];
  private readonly outputFields: Fields;
  private states: [JoinSideState, JoinSideState] | null = null;
  private metrics: StateOperatorMetrics | null = null;
  private batchFigures = { dropped: 0, updated: 0, updateMs: 0 };

  constructor(
    readonly operatorId: number,
    readonly spec: StreamJoinSpec,
  ) {
    super();
    if (spec.joinType === "leftAnti") throw new InternalError("a left anti join is planned as a probe of its static right side, and refused at start() between two streams");
    const rightPairFields = spec.rightFields.map((f, i): Field => ({ ...f, name: spec.rightPairNames[i]! }));
    this.sides = [
      sideRuntime(spec.leftFields, spec.leftKeys, spec.leftCondition, spec.leftEventTime, spec.leftState, spec.joinType === "left" || spec.joinType === "full"),
      sideRuntime(spec.rightFields, spec.rightKeys, spec.rightCondition, spec.rightEventTime, spec.rightState, spec.joinType === "right" || spec.joinType === "full"),
    ];
    const leftNullable = spec.joinType === "right" || spec.joinType === "full";
    const rightNullable = spec.joinType === "left" || spec.joinType === "full";
    this.outputFields =
      spec.joinType === "leftSemi"
        ? spec.leftFields
        : [
            ...spec.leftFields.map((f) => (leftNullable ? { ...f, nullable: true } : f)),
            ...rightPairFields.map((f) => (rightNullable ? { ...f, nullable: true } : f)),
          ];
    this.pairFields = [...spec.leftFields, ...rightPairFields];
  }

  private readonly pairFields: Fields;
  /** The pair condition, compiled for the pair rows' fields when a pair first comes. */
  private pairCondition: LazyExprs | null = null;
  private readonly scratch = new JoinScratch();

  override open(ctx: ExecContext): void {
    super.open(ctx);
    this.states = [
      new JoinSideState(ctx.stateStore(this.operatorId, LEFT), this.spec.leftFields, `${OPERATOR_NAME}.left`),
      new JoinSideState(ctx.stateStore(this.operatorId, RIGHT), this.spec.rightFields, `${OPERATOR_NAME}.right`),
    ];
  }

  /** Rows reach a join through `processSide`, which knows their side. */
  process(_batch: Batch): Batch | null {
    throw new InternalError("a stream-stream join takes its input through processSide(side, batch)");
  }

  /** Matches one input batch of `side` with the other side's state and stores its rows. */
  processSide(side: JoinSide, batch: Batch): Batch | null {
    const start = performance.now();
    try {
      return this.join(side, batch);
    } finally {
      this.batchFigures.updateMs += performance.now() - start;
    }
  }

  /** Evicts what the watermark made unmatchable; emits the outer rows among it. */
  override onWatermark(watermarkMs: number | null): Batch | null {
    const states = this.opened();
    const start = performance.now();
    const out: Batch[] = [];
    let removed = 0;
    const endOfInput = this.ctx.batch.endOfInput === true;
    for (const side of [LEFT, RIGHT] as const) {
      const rt = this.sides[side];
      const state = states[side];
      const slots = endOfInput ? state.liveSlots() : this.evictable(side, watermarkMs);
      if (slots.length === 0) continue;
      if (rt.preserved) {
        const unmatched = slots.filter((s) => !state.isMatched(s));
        if (unmatched.length > 0) out.push(this.outerRows(side, state.columns(unmatched), unmatched.length));
      }
      state.remove(slots);
      removed += slots.length;
    }
    const removalMs = performance.now() - start;
    const memory = states.reduce((n, s) => n + s.memoryBytes(), 0);
    this.metrics = {
      operatorName: OPERATOR_NAME,
      numRowsTotal: states[0].size + states[1].size,
      numRowsUpdated: this.batchFigures.updated,
      numRowsRemoved: removed,
      numRowsDroppedByWatermark: this.batchFigures.dropped,
      memoryUsedBytes: memory,
      commitTimeMs: 0,
      allUpdatesTimeMs: Math.round(this.batchFigures.updateMs),
      allRemovalsTimeMs: Math.round(removalMs),
    };
    this.batchFigures = { dropped: 0, updated: 0, updateMs: 0 };
    if (out.length === 0) return null;
    return out.length === 1 ? out[0]! : concatBatches(out, this.outputFields);
  }

  override commit(version: number): void {
    const start = performance.now();
    this.ctx.stateStore(this.operatorId, LEFT).commit(version);
    this.ctx.stateStore(this.operatorId, RIGHT).commit(version);
    if (this.metrics) this.metrics = { ...this.metrics, commitTimeMs: Math.round(performance.now() - start) };
  }

  lastMetrics(): StateOperatorMetrics | null {
    return this.metrics;
  }

  private opened(): [JoinSideState, JoinSideState] {
    if (this.states === null) throw new InternalError(`${OPERATOR_NAME} was used before open()`);
    return this.states;
  }

  private join(side: JoinSide, batch: Batch): Batch | null {
    const states = this.opened();
    const rt = this.sides[side];
    const own = states[side];
    const other = states[1 - side]!;
    const n = batch.numRows;
    if (n === 0) return null;

    // Late rows go; rows failing this side's condition or with a null key can never match.
    const lateBy = this.ctx.batch.watermarkForLateEventsMs;
    const times = rt.eventTimeIndex >= 0 ? eventTimesAt(batch, rt.eventTimeIndex) : null;
    const exprs = rt.exprs.of(batch.fields);
    const passes = exprs.condition ? conditionMask(exprs.condition, batch) : null;
    const keyViews = exprs.keys.map((c, k) => keyViewOf(columnOf(c, batch), c.type.type, rt.keyNames[k]!));
    const keys = rt.encoder.encode(keyViews.map((view) => ({ view, rows: null })), n);
    const { candidates, neverMatch, pairRows, pairSlots, selection } = this.scratch.reset();
    for (let i = 0; i < n; i++) {
      if (times !== null && isLate(times[i]!, lateBy)) {
        this.batchFigures.dropped++;
        continue;
      }
      const nullKey = keyViews.some((v) => v.kind !== "window" && v.valid !== null && v.valid[i] === 0);
      if (nullKey || (passes !== null && passes[i] === 0)) neverMatch.push(i);
      else candidates.push(i);
    }
    const rows = candidates.view();

    // Pairs of (input row, other side's slot) with equal keys, then the pair condition.
    other.forEachMatch(keys, rows, (i, s) => {
      pairRows.push(i);
      pairSlots.push(s);
    });
    let pr = pairRows.view();
    let ps = pairSlots.view();
    let pairBatch = pr.length > 0 ? this.pairBatch(side, batch, pr, other.columns(ps)) : null;
    if (pairBatch !== null && this.spec.pairCondition !== null) {
      this.pairCondition ??= new LazyExprs([], this.spec.pairCondition);
      const mask = conditionMask(this.pairCondition.of(pairBatch.fields).condition!, pairBatch);
      // Kept pairs move down in place: the scratch lists are this batch's alone.
      for (let j = 0; j < mask.length; j++) {
        if (mask[j] !== 1) continue;
        pr[selection.length] = pr[j]!;
        ps[selection.length] = ps[j]!;
        selection.push(j);
      }
      if (selection.length < mask.length) {
        const sel = selection.view();
        pr = pr.subarray(0, sel.length);
        ps = ps.subarray(0, sel.length);
        pairBatch = sel.length > 0 ? makeBatch(pairBatch.fields, pairBatch.columns.map((c) => gatherColumn(c, sel)), sel.length) : null;
      }
    }

    const matchedRow = new Uint8Array(n);
    for (const i of pr) matchedRow[i] = 1;
    const out: Batch[] = [];
    if (this.spec.joinType === "leftSemi") {
      if (side === LEFT) {
        const firsts = rows.filter((i) => matchedRow[i] === 1);
        if (firsts.length > 0) out.push(takeInput(batch, firsts, this.outputFields));
      } else {
        // A left row is emitted the first time it meets a right row.
        const fresh = [...new Set(ps)].filter((s) => !other.isMatched(s));
        if (fresh.length > 0) out.push(makeBatch(this.outputFields, other.columns(Int32Array.from(fresh)), fresh.length));
      }
    } else if (pairBatch !== null) {
      out.push(makeBatch(this.outputFields, pairBatch.columns, pairBatch.numRows));
    }
    for (const s of ps) other.markMatched(s);

    if (rt.preserved && neverMatch.length > 0) {
      const never = neverMatch.view();
      out.push(this.outerRows(side, batch.columns.map((c) => gatherColumn(c, never)), never.length));
    }

    const stored = this.rowsToStore(side, batch, rows, matchedRow);
    const matchedFlags = new Uint8Array(stored.length);
    for (let j = 0; j < stored.length; j++) matchedFlags[j] = matchedRow[stored[j]!]!;
    own.add(batch, keys, stored, matchedFlags);
    this.batchFigures.updated += stored.length;

    if (out.length === 0) return null;
    return out.length === 1 ? out[0]! : concatBatches(out, this.outputFields);
  }

  /**
   * Which rows of an input batch join the side's state (Spark 4's rule): a left semi join's left
   * row that matched is done; every other left row is kept, since this batch's right rows have
   * still to meet it; a right row is kept unless the watermark would evict it at the end of this
   * very batch, when only the NULL row of a right or full outer join still needs it.
   */
  private rowsToStore(side: JoinSide, batch: Batch, rows: Int32Array, matchedRow: Uint8Array): Int32Array {
    if (side === LEFT) return this.spec.joinType === "leftSemi" ? rows.filter((i) => matchedRow[i] === 0) : rows;
    const bound = this.stateLimit(RIGHT, this.ctx.batch.watermarkMs);
    if (bound === null) return rows;
    const preserved = this.sides[RIGHT].preserved;
    const times = eventTimesAt(batch, bound.field);
    return rows.filter((i) => !(times[i]! <= bound.limit) || (preserved && matchedRow[i] === 0));
  }

  /** Pairs laid out as the join's rows: left columns then right ones, whichever side is the input. */
  private pairBatch(side: JoinSide, batch: Batch, inputRows: Int32Array, stored: arrow.Data[]): Batch {
    const input = batch.columns.map((c) => gatherColumn(c, inputRows));
    const columns = side === LEFT ? [...input, ...stored] : [...stored, ...input];
    return makeBatch(this.pairFields, columns, inputRows.length);
  }

  /** Rows of `side` with nulls for the other side (a semi join has no other side's columns). */
  private outerRows(side: JoinSide, columns: arrow.Data[], n: number): Batch {
    if (this.spec.joinType === "leftSemi") return makeBatch(this.outputFields, [], 0);
    const otherFields = side === LEFT ? this.pairFields.slice(this.spec.leftFields.length) : this.spec.leftFields;
    const missing = new Int32Array(n).fill(-1);
    const nulls = otherFields.map((f) => gatherOrNull(emptyColumn(f.type), missing));
    return makeBatch(this.outputFields, side === LEFT ? [...columns, ...nulls] : [...nulls, ...columns], n);
  }

  private evictable(side: JoinSide, watermarkMs: number | null): Int32Array {
    const bound = this.stateLimit(side, watermarkMs);
    return bound === null ? new Int32Array(0) : this.opened()[side].slotsAtOrBelow(bound.field, bound.limit);
  }

  /**
   * Which of the side's fields bounds its state, and the limit at or below which a row can no
   * longer match (null: the side's state is not bounded): the event-time key at the watermark,
   * or the event-time value at the watermark plus the range condition's offset.
   */
  private stateLimit(side: JoinSide, watermarkMs: number | null): { readonly field: number; readonly limit: number } | null {
    const rt = this.sides[side];
    if (watermarkMs === null || rt.stateWatermark === null) return null;
    return rt.stateWatermark.kind === "key"
      ? { field: rt.keyFieldIndex, limit: watermarkMs }
      : { field: rt.valueFieldIndex, limit: watermarkMs + rt.stateWatermark.offsetMs };
  }
}

/** What a side needs at run time, resolved once from the spec. */
interface SideRuntime {
  readonly exprs: LazyExprs;
  readonly keyNames: readonly string[];
  readonly eventTimeIndex: number;
  readonly stateWatermark: JoinStateWatermark | null;
  /** For a key watermark: the side's field that is the event-time key (a column key). */
  readonly keyFieldIndex: number;
  /** For a value watermark: the side's event-time field. */
  readonly valueFieldIndex: number;
  /** Whether an outer join emits this side's unmatched rows. */
  readonly preserved: boolean;
  readonly encoder: KeyEncoder;
}

function sideRuntime(
  fields: Fields,
  keys: readonly Expr[],
  condition: Expr | null,
  eventTime: string | null,
  stateWatermark: JoinStateWatermark | null,
  preserved: boolean,
): SideRuntime {
  let keyFieldIndex = -1;
  let bound = stateWatermark;
  if (stateWatermark?.kind === "key") {
    // State keeps the side's columns: a key that is a plain column is evicted by that column.
    const key = keys[stateWatermark.keyIndex]!;
    const u = key.kind === "alias" ? key.child : key;
    keyFieldIndex = u.kind === "col" ? fields.findIndex((f) => f.name === u.name) : -1;
    if (keyFieldIndex < 0) bound = null;
  }
  return {
    exprs: new LazyExprs(keys, condition),
    keyNames: keys.map((k, i) => (k.kind === "col" ? k.name : `join key ${i + 1}`)),
    eventTimeIndex: eventTime === null ? -1 : columnIndex(fields, eventTime),
    stateWatermark: bound,
    keyFieldIndex,
    valueFieldIndex: stateWatermark?.kind === "value" ? columnIndex(fields, stateWatermark.column) : -1,
    preserved,
    encoder: new KeyEncoder(),
  };
}

/**
 * Key expressions and a condition compiled for the schema their batches have, once: every batch
 * of one input shares its fields, so compilation (and the cache lookup behind it) is paid when
 * the schema first comes, not per batch.
 */
class LazyExprs {
  private fields: Fields | null = null;
  private compiled: { readonly keys: readonly Compiled[]; readonly condition: Compiled | null } | null = null;

  constructor(
    private readonly keys: readonly Expr[],
    private readonly condition: Expr | null,
  ) {}

  of(fields: Fields): { readonly keys: readonly Compiled[]; readonly condition: Compiled | null } {
    if (this.compiled === null || fields !== this.fields) {
      this.compiled = { keys: this.keys.map((k) => compileExpr(k, fields)), condition: this.condition === null ? null : compileExpr(this.condition, fields) };
      this.fields = fields;
    }
    return this.compiled;
  }
}

/** A compiled expression's column over a batch, as `evaluate` gives it. */
function columnOf(compiled: Compiled, batch: Batch): arrow.Data {
  return compiled.passThrough?.(batch) ?? dataOf(compiled.run(batch), compiled.type.type, batch.numRows);
}

/**
 * Row and slot lists a batch fills, kept by the operator across batches: typed arrays that grow
 * by doubling and are handed out as views, so a batch neither builds JS arrays nor copies them.
 */
class Int32List {
  private data = new Int32Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }

  /** The values so far, as a view of the list's buffer: valid until the list is reset. */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

class JoinScratch {
  readonly candidates = new Int32List();
  readonly neverMatch = new Int32List();
  readonly pairRows = new Int32List();
  readonly pairSlots = new Int32List();
  /** Pairs the pair condition keeps. */
  readonly selection = new Int32List();

  reset(): this {
    this.candidates.length = this.neverMatch.length = this.pairRows.length = this.pairSlots.length = this.selection.length = 0;
    return this;
  }
}

function conditionMask(condition: Compiled, batch: Batch): Uint8Array {
  const mask = asBool(condition.run(batch));
  const out = new Uint8Array(batch.numRows);
  for (let i = 0; i < out.length; i++) out[i] = mask.values[i] === 1 && (mask.valid === null || mask.valid[i] === 1) ? 1 : 0;
  return out;
}

function takeInput(batch: Batch, rows: Int32Array, fields: Fields): Batch {
  return makeBatch(fields, batch.columns.map((c) => gatherColumn(c, rows)), rows.length);
}

