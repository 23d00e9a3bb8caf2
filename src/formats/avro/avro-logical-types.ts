import type { AvroLogicalType, AvroPrimitiveName, SimpleLogicalName } from "./avro-schema-types.js";

/**
 * Which logical types annotate which underlying types (the specification's "Logical Types"). A
 * logical type on any other type, or with invalid attributes, is ignored: readers then use the
 * underlying type, as the specification requires, so such a schema still parses.
 */

const ON_LONG: ReadonlySet<string> = new Set<SimpleLogicalName>([
  "time-micros",
  "timestamp-millis",
  "timestamp-micros",
  "timestamp-nanos",
  "local-timestamp-millis",
  "local-timestamp-micros",
  "local-timestamp-nanos",
]);
const ON_INT: ReadonlySet<string> = new Set<SimpleLogicalName>(["date", "time-millis"]);
/** A UUID held as fixed is its 16 raw bytes; a duration is three little-endian 32-bit counts. */
const UUID_BYTES = 16;
const DURATION_BYTES = 12;

/** The logical type of a primitive schema object, or null when it has none or an invalid one. */
export function primitiveLogicalType(underlying: AvroPrimitiveName, attributes: Readonly<Record<string, unknown>>): AvroLogicalType | null {
  const name = attributes.logicalType;
  if (typeof name !== "string") return null;
  if (underlying === "long" && ON_LONG.has(name)) return { name: name as SimpleLogicalName };
  if (underlying === "int" && ON_INT.has(name)) return { name: name as SimpleLogicalName };
  if (underlying === "string" && name === "uuid") return { name };
  if (underlying === "bytes" && name === "big-decimal") return { name };
  if (underlying === "bytes" && name === "decimal") return decimal(attributes, Infinity);
  return null;
}

/** The logical type of a fixed schema of `size` bytes, or null. */
export function fixedLogicalType(size: number, attributes: Readonly<Record<string, unknown>>): AvroLogicalType | null {
  const name = attributes.logicalType;
  if (name === "uuid" && size === UUID_BYTES) return { name };
  if (name === "duration" && size === DURATION_BYTES) return { name };
  if (name === "decimal") return decimal(attributes, maxDecimalDigits(size));
  return null;
}

function decimal(attributes: Readonly<Record<string, unknown>>, maxPrecision: number): AvroLogicalType | null {
  const precision = attributes.precision;
  const scale = attributes.scale ?? 0;
  if (!Number.isInteger(precision) || (precision as number) < 1 || (precision as number) > maxPrecision) return null;
  if (!Number.isInteger(scale) || (scale as number) < 0 || (scale as number) > (precision as number)) return null;
  return { name: "decimal", precision: precision as number, scale: scale as number };
}

/** floor(log10(2^(8n - 1) - 1)): the decimal digits an n-byte two's-complement integer always holds. */
function maxDecimalDigits(size: number): number {
  if (size === 0) return 0;
  // 2^(8n - 1) is never a power of ten, so subtracting one does not change the floor of its log.
  return Math.floor((8 * size - 1) * Math.log10(2));
}
