import { assertNever } from "../expr/ast.js";
import { parseTimestamp } from "../kernels/temporal.js";
import { PgError, SQLSTATE } from "./error-response.js";
import { PG } from "./pg-types.js";

/**
 * Bind parameters (`$1`, `$2`...) of the extended query protocol, bound as SQL literals of their
 * types: the value the client sent (text or binary format) is checked against the parameter's
 * type, as Postgres's input functions check it, and written as a Spark SQL literal in place of
 * the placeholder. A parameter whose type the client left open (OID 0, what the pg package sends)
 * has several readings, tried in turn, as Postgres infers such a type from where it stands.
 */

/** A parameter's value, decoded. */
export type ParameterValue =
  | { readonly kind: "null" }
  | { readonly kind: "integer"; readonly digits: string; readonly wide: boolean }
  | { readonly kind: "double"; readonly value: number }
  | { readonly kind: "boolean"; readonly value: boolean }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "bytes"; readonly value: Uint8Array }
  | { readonly kind: "timestamp"; readonly ms: number }
  /** Text whose type the client left open: see `parameterReadings`. */
  | { readonly kind: "untyped"; readonly text: string };

const INTEGER_TYPES = new Map<number, { bits: 16 | 32 | 64; name: string }>([
  [PG.int2.oid, { bits: 16, name: "smallint" }],
  [PG.int4.oid, { bits: 32, name: "integer" }],
  [PG.int8.oid, { bits: 64, name: "bigint" }],
]);
const INTEGER_RANGE = { 16: [-32768n, 32767n], 32: [-2147483648n, 2147483647n], 64: [-(2n ** 63n), 2n ** 63n - 1n] } as const;
const TIME_TYPES = new Set<number>([PG.timestamptz.oid, PG.timestamp.oid, PG.date.oid]);
const POSTGRES_EPOCH_MS = 946_684_800_000;

/** Decodes parameter `index` (0-based) of a Bind. */
export function decodeParameter(bytes: Uint8Array | null, typeOid: number, format: number, index: number): ParameterValue {
  if (bytes === null) return { kind: "null" };
  if (format === 1) return decodeBinary(bytes, typeOid, index);
  if (format !== 0) throw new PgError(SQLSTATE.protocolViolation, `invalid format code ${format} for parameter $${index + 1}`);
  return decodeText(utf8(bytes), typeOid);
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function utf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new PgError("22021", 'invalid byte sequence for encoding "UTF8"');
  }
}

function decodeText(value: string, typeOid: number): ParameterValue {
  const integer = INTEGER_TYPES.get(typeOid);
  if (integer) return integerValue(value.trim(), integer.bits, integer.name);
  switch (typeOid) {
    case PG.float4.oid:
    case PG.float8.oid:
    case PG.numeric.oid:
      return doubleValue(value, typeOid === PG.numeric.oid ? "numeric" : "double precision");
    case PG.bool.oid:
      return booleanValue(value);
    case PG.bytea.oid:
      return { kind: "bytes", value: byteaInput(value) };
    case 0:
    case PG.unknown.oid:
      return { kind: "untyped", text: value };
  }
  if (TIME_TYPES.has(typeOid)) {
    const ms = parseTimestamp(value);
    if (ms === null) throw new PgError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type timestamp with time zone: "${value}"`);
    return { kind: "timestamp", ms };
  }
  return { kind: "string", value };
}

function decodeBinary(bytes: Uint8Array, typeOid: number, index: number): ParameterValue {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  /** A fixed-size value of `n` bytes, read by `read` once its size is checked. */
  const fixed = (n: number, read: () => ParameterValue): ParameterValue => {
    if (bytes.length !== n) throw new PgError(SQLSTATE.protocolViolation, `incorrect binary data format in bind parameter ${index + 1}`);
    return read();
  };
  switch (typeOid) {
    case PG.int2.oid:
      return fixed(2, () => ({ kind: "integer", digits: String(view.getInt16(0)), wide: false }));
    case PG.int4.oid:
      return fixed(4, () => ({ kind: "integer", digits: String(view.getInt32(0)), wide: false }));
    case PG.int8.oid:
      return fixed(8, () => ({ kind: "integer", digits: String(view.getBigInt64(0)), wide: true }));
    case PG.float4.oid:
      return fixed(4, () => ({ kind: "double", value: view.getFloat32(0) }));
    case PG.float8.oid:
      return fixed(8, () => ({ kind: "double", value: view.getFloat64(0) }));
    case PG.bool.oid:
      return fixed(1, () => ({ kind: "boolean", value: bytes[0] !== 0 }));
    // Binary without a type: bytes (the pg package sends a Buffer so).
    case 0:
    case PG.bytea.oid:
      return { kind: "bytes", value: bytes.slice() };
    // Microseconds since 2000-01-01 UTC; a date in days since then.
    case PG.timestamptz.oid:
    case PG.timestamp.oid:
      return fixed(8, () => ({ kind: "timestamp", ms: Number(view.getBigInt64(0) / 1000n) + POSTGRES_EPOCH_MS }));
    case PG.date.oid:
      return fixed(4, () => ({ kind: "timestamp", ms: view.getInt32(0) * 86_400_000 + POSTGRES_EPOCH_MS }));
    case PG.unknown.oid:
    case PG.text.oid:
    case PG.varchar.oid:
    case PG.json.oid:
      return { kind: "string", value: utf8(bytes) };
    default:
      throw new PgError(SQLSTATE.featureNotSupported, `binary format of parameter $${index + 1} (type OID ${typeOid}) is not supported; send it in text format`);
  }
}

function integerValue(value: string, bits: 16 | 32 | 64, name: string): ParameterValue {
  if (!/^[+-]?\d+$/.test(value)) throw new PgError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type ${name}: "${value}"`);
  const n = BigInt(value);
  const [min, max] = INTEGER_RANGE[bits];
  if (n < min || n > max) throw new PgError("22003", `value "${value}" is out of range for type ${name}`);
  return { kind: "integer", digits: n.toString(), wide: n < INTEGER_RANGE[32][0] || n > INTEGER_RANGE[32][1] || bits === 64 };
}

function doubleValue(value: string, name: string): ParameterValue {
  const t = value.trim();
  const special: Record<string, number> = { nan: NaN, infinity: Infinity, "+infinity": Infinity, "-infinity": -Infinity, inf: Infinity, "-inf": -Infinity };
  if (t.toLowerCase() in special) return { kind: "double", value: special[t.toLowerCase()]! };
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) throw new PgError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type ${name}: "${value}"`);
  return { kind: "double", value: Number(t) };
}

/** Postgres's boolean input: t/true/yes/on/1 and f/false/no/off/0 (any unique prefix of the words). */
function booleanValue(value: string): ParameterValue {
  const t = value.trim().toLowerCase();
  if (t === "1" || (t.length > 0 && ("true".startsWith(t) || "yes".startsWith(t))) || t === "on") return { kind: "boolean", value: true };
  if (t === "0" || (t.length > 0 && ("false".startsWith(t) || "no".startsWith(t))) || t === "of" || t === "off") return { kind: "boolean", value: false };
  throw new PgError(SQLSTATE.invalidTextRepresentation, `invalid input syntax for type boolean: "${value}"`);
}

/** bytea's text input: hex (`\x0a0b`), or the text's own bytes. */
function byteaInput(value: string): Uint8Array {
  if (!value.startsWith("\\x")) return new TextEncoder().encode(value);
  const hex = value.slice(2).replace(/\s/g, "");
  if (!/^([0-9a-f]{2})*$/i.test(hex)) throw new PgError(SQLSTATE.invalidTextRepresentation, `invalid hexadecimal data in bytea input "${value}"`);
  return Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
}

/**
 * The literals a parameter may stand for, in the order to try them: one for a typed parameter;
 * for text of no declared type, each type its text can be read as (a number, a timestamp, a
 * boolean), then the string itself. The statement is bound with the first reading under which it
 * analyzes, as Postgres gives an untyped parameter the type its context asks for.
 */
export function parameterReadings(value: ParameterValue): string[] {
  if (value.kind !== "untyped") return [sqlLiteral(value)];
  const t = value.text.trim();
  const readings: ParameterValue[] = [];
  if (/^[+-]?\d+$/.test(t) && BigInt(t) >= INTEGER_RANGE[64][0] && BigInt(t) <= INTEGER_RANGE[64][1]) readings.push(integerValue(t, 64, "bigint"));
  else if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) readings.push({ kind: "double", value: Number(t) });
  // A timestamp needs a full date: "2026-12-02", "2026-12-02 09:00:00+01" (not a bare year, which reads as a number).
  const ms = /^[+-]?\d{4,6}-\d{1,2}-\d{1,2}/.test(t) ? parseTimestamp(t) : null;
  if (ms !== null) readings.push({ kind: "timestamp", ms });
  if (/^(true|false)$/i.test(t)) readings.push({ kind: "boolean", value: t.toLowerCase() === "true" });
  readings.push({ kind: "string", value: value.text });
  return readings.map(sqlLiteral);
}

/**
 * A parameter as a Spark SQL literal. A negative number is parenthesized, so that `n-$1` cannot
 * become the comment `n--5`; strings escape backslashes and quotes as Spark's lexer reads them.
 */
export function sqlLiteral(value: ParameterValue): string {
  switch (value.kind) {
    case "null":
      return "NULL";
    case "integer":
      return signed(value.digits, value.wide ? "L" : "");
    case "double":
      return Number.isFinite(value.value) ? signed(String(value.value), "D") : `CAST('${String(value.value)}' AS DOUBLE)`;
    case "boolean":
      return value.value ? "TRUE" : "FALSE";
    case "string":
      return `'${value.value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
    // Bytes and times through functions Sluice's SQL has: it reads no X'..' or TIMESTAMP '..' literals.
    case "bytes":
      return `unbase64('${Buffer.from(value.value).toString("base64")}')`;
    case "timestamp":
      return `CAST('${new Date(value.ms).toISOString()}' AS TIMESTAMP)`;
    case "untyped":
      return sqlLiteral({ kind: "string", value: value.text });
    default:
      return assertNever(value, "parameter");
  }
}

function signed(text: string, suffix: string): string {
  return text.startsWith("-") ? `(${text}${suffix})` : `${text}${suffix}`;
}
