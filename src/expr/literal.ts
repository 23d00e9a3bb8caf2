import type { DType } from "../types/dtype.js";
import type { Expr, Literal } from "./ast.js";

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The type Spark's `lit` gives a JavaScript value: integers in int32 range are int32. */
export function literalType(value: Literal | Date): DType {
  if (value === null) return "string";
  if (value instanceof Date) return "timestamp";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
      return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX ? "int32" : "float64";
    default:
      throw new TypeError(`lit() takes a string, number, boolean, Date or null, not ${typeof value}`);
  }
}

/** A literal expression; dates are stored as epoch milliseconds so plans stay plain data. */
export function literalExpr(value: Literal | Date): Expr {
  const type = literalType(value);
  return { kind: "lit", value: value instanceof Date ? value.getTime() : value, type };
}
