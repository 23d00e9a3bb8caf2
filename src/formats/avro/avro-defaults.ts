import type { AvroSchema } from "./avro-schema-types.js";
import { aTypeLabel, typeLabel } from "./avro-schema-types.js";

/**
 * Checks a field's default value (JSON, as the schema holds it) against the field's type, by the
 * specification's table: null for null, true / false for boolean, numbers for the numeric types
 * (integers within range for int and long), strings for string, for bytes and fixed (one
 * character per byte, code points 0-255, exactly `size` of them for fixed) and for enums (one of
 * the symbols), arrays, objects for maps and records (a record's fields each given or defaulted).
 * A union's default may match any of its branches; the first one it matches is the one it holds
 * (Avro 1.12; earlier versions required the first branch).
 *
 * Returns why the value does not fit, or null when it does. Schema parsing only: never per record.
 */

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
/** A long default beyond 2^63 in magnitude cannot be held; JSON numbers there are already rounded. */
const LONG_LIMIT = 2 ** 63;
const MAX_BYTE_CODE = 0xff;

export function defaultProblem(schema: AvroSchema, value: unknown): string | null {
  const bad = (what: string) => `${shown(value)} is not ${what}`;
  switch (schema.type) {
    case "null":
      return value === null ? null : bad("null");
    case "boolean":
      return typeof value === "boolean" ? null : bad("a boolean");
    case "int":
      return Number.isInteger(value) && (value as number) >= INT_MIN && (value as number) <= INT_MAX ? null : bad("an int (a whole number within 32 bits)");
    case "long":
      return Number.isInteger(value) && Math.abs(value as number) < LONG_LIMIT ? null : bad("a long (a whole number within 64 bits)");
    case "float":
    case "double":
      return typeof value === "number" ? null : bad(`a ${schema.type} (a JSON number)`);
    case "string":
      return typeof value === "string" ? null : bad("a string");
    case "bytes":
      return isByteString(value) ? null : bad("bytes (a string of characters \\u0000 to \\u00ff, one per byte)");
    case "fixed":
      return isByteString(value) && value.length === schema.size ? null : bad(`a fixed of ${schema.size} bytes (a string of ${schema.size} characters \\u0000 to \\u00ff)`);
    case "enum":
      return typeof value === "string" && schema.symbols.includes(value) ? null : bad(`a symbol of ${typeLabel(schema)} (${schema.symbols.join(", ")})`);
    case "array": {
      if (!Array.isArray(value)) return bad("an array");
      return firstProblem(value.map((item, i) => prefixed(`item ${i}`, defaultProblem(schema.items, item))));
    }
    case "map": {
      if (!isObject(value)) return bad("a map (a JSON object)");
      return firstProblem(Object.entries(value).map(([k, v]) => prefixed(`key ${JSON.stringify(k)}`, defaultProblem(schema.values, v))));
    }
    case "record": {
      if (!isObject(value)) return bad(`${aTypeLabel(schema)} (a JSON object)`);
      return firstProblem(
        schema.fields.map((f) => {
          if (Object.hasOwn(value, f.name)) return prefixed(`field ${JSON.stringify(f.name)}`, defaultProblem(f.type, value[f.name]));
          return f.default === null ? `field ${JSON.stringify(f.name)} is missing and has no default` : null;
        }),
      );
    }
    case "union":
      return unionBranchOfDefault(schema.branches, value) >= 0 ? null : bad(`any branch of ${typeLabel(schema)}`);
  }
}

/** The first branch of a union that `value` fits, or -1. */
export function unionBranchOfDefault(branches: readonly AvroSchema[], value: unknown): number {
  return branches.findIndex((b) => defaultProblem(b, value) === null);
}

function isByteString(value: unknown): value is string {
  if (typeof value !== "string") return false;
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > MAX_BYTE_CODE) return false;
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function prefixed(where: string, problem: string | null): string | null {
  return problem === null ? null : `${where}: ${problem}`;
}

function firstProblem(problems: readonly (string | null)[]): string | null {
  return problems.find((p) => p !== null) ?? null;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}
