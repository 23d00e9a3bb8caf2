import { MAX_TIMESTAMP_MS } from "../batch/numeric-columns.js";
import { AnalysisError } from "../errors/errors.js";
import { formatDouble, formatIntegral, parseBoolean, parseDouble, parseIntegral } from "../kernels/number-text.js";
import { parseTimestamp } from "../kernels/temporal.js";
import type { DType } from "../types/dtype.js";
import { assertNever, type Literal } from "./ast.js";
import type { Constant } from "./eval-vec.js";

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_LIMIT = 2 ** 63;

/**
 * A literal's value in the representation of a column of type `type`: numbers for numeric types,
 * epoch milliseconds for timestamps (a timestamp literal holds epoch ms, a fraction floored as
 * batch/numeric-columns.ts floors times; text is read as ISO-8601), strings and booleans as
 * themselves. A value that does not convert is null, as
 * Spark's implicit casts give.
 */
export function literalValue(value: Literal, type: DType): Constant["value"] {
  if (value === null) return null;
  switch (type) {
    case "float64":
      return typeof value === "number" ? value : typeof value === "boolean" ? +value : parseDouble(value);
    case "int32":
      return integral(value, INT32_MIN, INT32_MAX);
    case "int64":
      return integral(value, -INT64_LIMIT, INT64_LIMIT - 1);
    case "timestamp":
      return typeof value === "number" ? (Math.abs(value) <= MAX_TIMESTAMP_MS ? Math.floor(value) : null) : typeof value === "string" ? parseTimestamp(value) : null;
    case "boolean":
      return typeof value === "boolean" ? value : typeof value === "number" ? value !== 0 : parseBoolean(value);
    case "string":
      return typeof value === "string" ? value : typeof value === "boolean" ? String(value) : numberText(value);
    case "binary":
      // Text stands for its UTF-8 bytes (Spark casts a string compared with binary to binary).
      if (typeof value !== "string") throw new AnalysisError(`a ${typeof value} literal cannot be binary; compare binary with text, which stands for its UTF-8 bytes`);
      return value;
    case "window":
    case "headers":
      throw new AnalysisError(`a ${type} value cannot be written as a literal`);
    default:
      return assertNever(type, "type");
  }
}

function integral(value: string | number | boolean, min: number, max: number): number | null {
  if (typeof value === "boolean") return +value;
  if (typeof value === "string") return parseIntegral(value, min, max);
  if (value !== value) return 0;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

/** A JavaScript number literal as Spark prints it: integers plainly, other values as doubles. */
function numberText(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? formatIntegral(value) : formatDouble(value);
}
