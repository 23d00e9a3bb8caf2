import { AnalysisError } from "../errors/errors.js";
import { type DType, type Field, type Fields, isNumeric } from "../types/dtype.js";

/**
 * The column types of a union, as Spark's `WidenSetOperationTypes` finds them with its default
 * (non-ANSI) coercion, which Sluice follows as it follows Spark's non-ANSI CAST:
 * - equal types stay;
 * - numbers widen along int32 < int64 < float64 (int with double gives double, losing int64
 *   digits beyond 2^53 as Spark's long-to-double does);
 * - a string with a number or a timestamp gives a string (Spark's `stringPromotion`); a string
 *   with a boolean or binary has no common type;
 * - nothing else (a timestamp with a number, a boolean with a number, windows or headers with
 *   anything but themselves) has one.
 * A column is nullable when it is in any input. The narrower side is cast where the union runs
 * (planner/planner.ts), so every input reaches the union with these types.
 */
export function widerType(a: DType, b: DType): DType | null {
  if (a === b) return a;
  if (isNumeric(a) && isNumeric(b)) return NUMERIC_ORDER[Math.max(NUMERIC_ORDER.indexOf(a), NUMERIC_ORDER.indexOf(b))]!;
  if (a === "string") return promotesToString(b) ? "string" : null;
  if (b === "string") return promotesToString(a) ? "string" : null;
  return null;
}

const NUMERIC_ORDER: readonly DType[] = ["int32", "int64", "float64"];

const promotesToString = (t: DType): boolean => isNumeric(t) || t === "timestamp";

/**
 * The output fields of a union of `inputs`: the first input's names, each column's widest type.
 * Strings are taken first, as Spark does, so the result does not depend on the inputs' order
 * (int64, timestamp, string gives string, though int64 and timestamp alone have no common type).
 */
export function unionFields(inputs: readonly Fields[]): Fields {
  const [head, ...rest] = inputs;
  rest.forEach((other, i) => {
    if (other.length !== head!.length) {
      throw new AnalysisError(
        `UNION can only be performed on inputs with the same number of columns, but the first input has ${head!.length} columns and the ${ordinal(i + 2)} input has ${other.length} columns`,
      );
    }
  });
  return head!.map((first, column): Field => {
    const types = inputs.map((fields) => fields[column]!.type);
    const ordered = [...new Set(types.filter((t) => t === "string")), ...types.filter((t) => t !== "string")];
    let type = ordered[0]!;
    for (const t of ordered.slice(1)) {
      const wider = widerType(type, t);
      if (wider === null) throw incompatible(inputs, column);
      type = wider;
    }
    return { name: first.name, type, nullable: inputs.some((fields) => fields[column]!.nullable) };
  });
}

/** Spark's INCOMPATIBLE_COLUMN_TYPE: the first input that cannot join the first one's column. */
function incompatible(inputs: readonly Fields[], column: number): AnalysisError {
  const first = inputs[0]![column]!;
  let widened = first.type;
  let table = 1;
  let other = first.type;
  for (let i = 1; i < inputs.length; i++) {
    const t = inputs[i]![column]!.type;
    const wider = widerType(widened, t);
    if (wider === null) {
      table = i;
      other = t;
      break;
    }
    widened = wider;
  }
  return new AnalysisError(
    `UNION can only be performed on inputs with compatible column types: the ${ordinal(column + 1)} column ("${inputs[table]![column]!.name}") of the ${ordinal(table + 1)} input is ${other}, ` +
      `which is not compatible with ${widened} at the same column of the first input; cast one side first`,
  );
}

function ordinal(n: number): string {
  const words = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
  return words[n - 1] ?? `${n}th`;
}
