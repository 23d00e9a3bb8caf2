import { create } from "@bufbuild/protobuf";
import { InternalError } from "../../errors/errors.js";
import type { Literal } from "../../expr/ast.js";
import type { DType } from "../../types/dtype.js";
import { type Expression, ExpressionSchema } from "../gen/spark/connect/expressions_pb.js";
import { DataTypeSchema } from "../gen/spark/connect/types_pb.js";
import { sparkDataType } from "./spark-types.js";

/**
 * Literals as Spark Connect carries them, typed from Sluice's DType: int64 as a long (bigint),
 * timestamps as microseconds since the epoch, a null with its type (or Spark's NullType where the
 * other operands should decide, as in when()/otherwise() and IN lists).
 */

type LiteralValue = Extract<Expression["exprType"], { case: "literal" }>["value"]["literalType"];

function literal(literalType: LiteralValue): Expression {
  return create(ExpressionSchema, { exprType: { case: "literal", value: { literalType } } });
}

const MS_TO_MICROS = 1000n;

/** A literal of Sluice type `type`; a null keeps the type (`CAST(NULL AS type)` in Spark's terms). */
export function typedLiteral(value: Literal, type: DType): Expression {
  if (value === null) return literal({ case: "null", value: sparkDataType(type) });
  switch (type) {
    case "string":
      return literal({ case: "string", value: String(value) });
    case "float64":
      return literal({ case: "double", value: Number(value) });
    case "int32":
      return literal({ case: "integer", value: Number(value) });
    case "int64":
      return literal({ case: "long", value: BigInt(Math.trunc(Number(value))) });
    case "boolean":
      return literal({ case: "boolean", value: Boolean(value) });
    case "timestamp":
      // Plans hold times as epoch milliseconds (expr/literal.ts).
      return literal({ case: "timestamp", value: BigInt(Math.floor(Number(value))) * MS_TO_MICROS });
    case "binary":
      return literal({ case: "binary", value: new TextEncoder().encode(String(value)) });
    case "window":
    case "headers":
      throw new InternalError(`a ${type} literal has no Spark form (only a null one)`);
  }
}

/** A null of Spark's NullType, which takes the type of the expressions beside it. */
export function untypedNull(): Expression {
  return literal({ case: "null", value: create(DataTypeSchema, { kind: { case: "null", value: {} } }) });
}

export function stringLiteral(s: string): Expression {
  return literal({ case: "string", value: s });
}

/** A day-time interval literal (Spark's INTERVAL '...' DAY TO SECOND), in microseconds. */
export function dayTimeIntervalLiteral(ms: number): Expression {
  return literal({ case: "dayTimeInterval", value: BigInt(Math.round(ms * 1000)) });
}

const UNITS: readonly [string, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1_000],
  ["millisecond", 1],
];

/**
 * A duration as the interval text Spark's window(), session_window() and withWatermark parse,
 * in the largest unit that holds it exactly: 10000 → "10 seconds", 90000 → "90 seconds".
 */
export function intervalText(ms: number): string {
  if (!Number.isInteger(ms)) throw new InternalError(`interval of ${ms} ms has no Spark text`);
  if (ms === 0) return "0 seconds";
  // A window's start time may be negative (an offset back in time): the text is signed.
  const [unit, size] = UNITS.find(([, size]) => ms % size === 0)!;
  const n = ms / size;
  return `${n} ${unit}${Math.abs(n) === 1 ? "" : "s"}`;
}
