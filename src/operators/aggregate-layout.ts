import type { AggFn } from "../expr/ast.js";
import { assertNever } from "../expr/ast.js";
import { viewKindOf, type ViewKind } from "../kernels/hash-table-columns.js";
import type { AggregateCall, AggregateSpec } from "../planner/physical.js";
import type { StateColumnSpec, StateSchema } from "../state/state-table.js";
import type { DType, Field, Fields } from "../types/dtype.js";

/**
 * How a grouped aggregation is laid out between its two halves. Workers emit a *partial* batch:
 *
 *   [...spec.keyFields, "#rows", ...accumulator columns of each aggregate, in `aggs` order]
 *
 * and the driver keeps the same accumulators per group in its state table:
 *
 *   ["#rows", "#eventTime", ...accumulator columns]
 *
 * Accumulators per aggregate (`name` is the aggregate's output name):
 *
 *   count           name#count  float64, non-null   rows (count(*)) or non-null values
 *   sum, avg        name#sum    float64, non-null   sum of the non-null values (0 when none)
 *                   name#count  float64, non-null   how many values were summed; 0 means null
 *   min, max,       name#value  input type, null    null: no non-null value (min / max) or the
 *   first, last                                     first / last value itself was null
 *
 * "#rows" counts the input rows of a group (a partial group always has at least one, so first and
 * last always have a value to offer); "#eventTime" is the group's event-time key as epoch ms (a
 * window's end, a timestamp key) for watermark eviction, null when the group has none.
 * Integer sums are carried as float64: exact up to 2^53, like every int64 in Sluice.
 */

export const ROWS_COLUMN = "#rows";
export const EVENT_TIME_COLUMN = "#eventTime";
export const STATE_ROWS = 0;
export const STATE_EVENT_TIME = 1;
const STATE_FIRST_ACCUMULATOR = 2;

export type AccumulatorKind = "count" | "sumCount" | "value";

function accumulatorKind(fn: AggFn): AccumulatorKind {
  switch (fn) {
    case "count":
      return "count";
    case "sum":
    case "avg":
      return "sumCount";
    case "min":
    case "max":
    case "first":
    case "last":
      return "value";
    default:
      return assertNever(fn, "aggregate function");
  }
}

export interface AccumulatorLayout {
  readonly call: AggregateCall;
  readonly kind: AccumulatorKind;
  /** Output field of the aggregate (final type). */
  readonly output: Field;
  /** Position of the first accumulator column among the accumulator columns. */
  readonly offset: number;
  /** Type of `name#value` (the argument's type); unused for other kinds. */
  readonly valueType: DType;
}

export interface AggregateLayout {
  readonly spec: AggregateSpec;
  /** `keyFields` indices in the order keys are encoded: plain keys, then the window key. */
  readonly stateKeyOrder: readonly number[];
  readonly keyKinds: readonly ViewKind[];
  /** Position in `stateKeyOrder` of the event-time key; -1 when none. */
  readonly eventTimeKeyPosition: number;
  readonly accumulators: readonly AccumulatorLayout[];
  readonly accumulatorFields: Fields;
  /** Index in a partial batch of "#rows"; accumulator column c is at `partialRows + 1 + c`. */
  readonly partialRows: number;
  readonly stateSchema: StateSchema;
}

/** State column of accumulator column c. */
export function stateColumnOf(c: number): number {
  return STATE_FIRST_ACCUMULATOR + c;
}

export function aggregateLayout(spec: AggregateSpec): AggregateLayout {
  const windowKey = spec.window?.keyIndex ?? -1;
  const expectedKeys = spec.numPlainKeys + (spec.window ? 1 : 0);
  if (spec.keyFields.length !== expectedKeys) {
    throw new Error(`aggregate spec has ${spec.keyFields.length} key fields but ${spec.numPlainKeys} plain keys${spec.window ? " and a window" : ""}`);
  }
  const stateKeyOrder = spec.keyFields.map((_, i) => i).filter((i) => i !== windowKey);
  if (windowKey >= 0) stateKeyOrder.push(windowKey);
  const accumulators: AccumulatorLayout[] = [];
  const accumulatorFields: Field[] = [];
  spec.aggs.forEach((call, i) => {
    const output = spec.aggFields[i]!;
    const kind = accumulatorKind(call.fn);
    accumulators.push({ call, kind, output, offset: accumulatorFields.length, valueType: output.type });
    accumulatorFields.push(...accumulatorColumns(call.name, kind, output.type));
  });
  const stateSchema: StateColumnSpec[] = [
    { name: ROWS_COLUMN, kind: "f64" },
    { name: EVENT_TIME_COLUMN, kind: "f64" },
    ...accumulatorFields.map((f): StateColumnSpec => ({ name: f.name, kind: f.type === "string" ? "bytes" : "f64" })),
  ];
  return {
    spec,
    stateKeyOrder,
    keyKinds: stateKeyOrder.map((k) => viewKindOf(spec.keyFields[k]!.type)),
    eventTimeKeyPosition: spec.eventTimeKey ? stateKeyOrder.indexOf(spec.eventTimeKey.index) : -1,
    accumulators,
    accumulatorFields,
    partialRows: spec.keyFields.length,
    stateSchema,
  };
}

function accumulatorColumns(name: string, kind: AccumulatorKind, valueType: DType): Field[] {
  const f64 = (suffix: string): Field => ({ name: `${name}#${suffix}`, type: "float64", nullable: false });
  switch (kind) {
    case "count":
      return [f64("count")];
    case "sumCount":
      return [f64("sum"), f64("count")];
    case "value":
      return [{ name: `${name}#value`, type: valueType, nullable: true }];
  }
}

/** The fields of the partial batch that `partialAggregate` emits for `spec`. */
export function partialFields(spec: AggregateSpec): Fields {
  return [...spec.keyFields, { name: ROWS_COLUMN, type: "float64", nullable: false }, ...aggregateLayout(spec).accumulatorFields];
}

/** Fields of the final output: keys, then aggregate results. */
export function outputFields(spec: AggregateSpec): Fields {
  return [...spec.keyFields, ...spec.aggFields];
}
