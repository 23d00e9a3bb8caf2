import type { AvroSchema } from "./avro-schema-types.js";

/**
 * Parsing Canonical Form and the 64-bit Rabin fingerprint (CRC-64-AVRO) of a schema, as the
 * specification defines them: two schemas with the same canonical form read every datum alike, so
 * the fingerprint identifies a writer schema (Avro's single-object encoding carries it).
 *
 * The form is built from the parsed tree, where names are already full and attributes other than
 * name, type, fields, symbols, items, values and size are gone: primitives are bare names,
 * attributes come in the specification's order, no whitespace, and a named type appears in full
 * once and by its full name after that.
 */
export function canonicalForm(schema: AvroSchema): string {
  return write(schema, new Set());
}

function write(schema: AvroSchema, written: Set<string>): string {
  switch (schema.type) {
    case "record":
    case "enum":
    case "fixed": {
      const name = JSON.stringify(schema.name);
      if (written.has(schema.name)) return name;
      written.add(schema.name);
      const head = `{"name":${name},"type":"${schema.type}"`;
      if (schema.type === "fixed") return `${head},"size":${schema.size}}`;
      if (schema.type === "enum") return `${head},"symbols":[${schema.symbols.map((s) => JSON.stringify(s)).join(",")}]}`;
      const fields = schema.fields.map((f) => `{"name":${JSON.stringify(f.name)},"type":${write(f.type, written)}}`);
      return `${head},"fields":[${fields.join(",")}]}`;
    }
    case "array":
      return `{"type":"array","items":${write(schema.items, written)}}`;
    case "map":
      return `{"type":"map","values":${write(schema.values, written)}}`;
    case "union":
      return `[${schema.branches.map((b) => write(b, written)).join(",")}]`;
    default:
      return `"${schema.type}"`;
  }
}

/** The fingerprint of the empty input, and the polynomial's reflected form the table is built from. */
const EMPTY = 0xc15d213aa4d7a795n;
const MASK_64 = (1n << 64n) - 1n;

let table: BigUint64Array | null = null;

function fingerprintTable(): BigUint64Array {
  if (table !== null) return table;
  table = new BigUint64Array(256);
  for (let i = 0; i < 256; i++) {
    let fp = BigInt(i);
    for (let bit = 0; bit < 8; bit++) fp = (fp >> 1n) ^ (fp & 1n ? EMPTY : 0n);
    table[i] = fp;
  }
  return table;
}

/** CRC-64-AVRO of `bytes`, as an unsigned 64-bit bigint. Schema handling only, so BigInt is fine here. */
export function rabinFingerprint64(bytes: Uint8Array): bigint {
  const t = fingerprintTable();
  let fp = EMPTY;
  for (const b of bytes) fp = ((fp >> 8n) ^ t[Number((fp ^ BigInt(b)) & 0xffn)]!) & MASK_64;
  return fp;
}

/** The Rabin fingerprint of a schema's Parsing Canonical Form (UTF-8). */
export function schemaFingerprint64(schema: AvroSchema): bigint {
  return rabinFingerprint64(new TextEncoder().encode(canonicalForm(schema)));
}
