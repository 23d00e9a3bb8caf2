import { AnalysisError } from "../errors/errors.js";

/**
 * A canonical text for key values (grouping keys, map state keys): equal values give equal text,
 * whatever their in-memory representation (V8's structured-clone bytes are not canonical: the
 * same string may be stored one-byte or two-byte), and the text decodes back to the values.
 * Each value is a tagged tuple: strings, finite and non-finite numbers, booleans, null, bigints,
 * Dates, byte arrays, arrays and plain objects (properties in name order).
 */
type Tagged =
  | ["z"]
  | ["s", string]
  | ["n", number | string]
  | ["b", boolean]
  | ["i", string]
  | ["d", number]
  | ["u", string]
  | ["a", Tagged[]]
  | ["o", [string, Tagged][]];

export function encodeKey(value: unknown, what: string): string {
  return JSON.stringify(tag(value, what));
}

export function decodeKey(text: string): unknown {
  return untag(JSON.parse(text) as Tagged);
}

function tag(v: unknown, what: string, depth = 0): Tagged {
  if (depth > 32) throw new AnalysisError(`${what}: a key nests deeper than 32 levels`);
  if (v === null || v === undefined) return ["z"];
  switch (typeof v) {
    case "string":
      return ["s", v];
    case "number":
      return ["n", Number.isFinite(v) ? (Object.is(v, -0) ? 0 : v) : String(v)];
    case "boolean":
      return ["b", v];
    case "bigint":
      return ["i", v.toString()];
    case "object":
      if (v instanceof Date) return ["d", v.getTime()];
      if (v instanceof Uint8Array) return ["u", Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64")];
      if (Array.isArray(v)) return ["a", v.map((x) => tag(x, what, depth + 1))];
      if (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null) {
        return ["o", Object.keys(v).sort().map((k): [string, Tagged] => [k, tag((v as Record<string, unknown>)[k], what, depth + 1)])];
      }
  }
  throw new AnalysisError(`${what}: a key must be data (strings, numbers, booleans, bigints, Dates, byte arrays, arrays or plain objects of these); got ${describe(v)}`);
}

function untag(t: Tagged): unknown {
  switch (t[0]) {
    case "z":
      return null;
    case "s":
    case "b":
      return t[1];
    case "n":
      return typeof t[1] === "number" ? t[1] : Number(t[1]);
    case "i":
      return BigInt(t[1]);
    case "d":
      return new Date(t[1]);
    case "u":
      return new Uint8Array(Buffer.from(t[1], "base64"));
    case "a":
      return t[1].map(untag);
    case "o":
      return Object.fromEntries(t[1].map(([k, x]) => [k, untag(x)]));
  }
}

function describe(v: unknown): string {
  if (typeof v === "object" && v !== null) return `an instance of ${(v as object).constructor?.name ?? "a class"}`;
  return `a ${typeof v}`;
}
