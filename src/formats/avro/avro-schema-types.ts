/**
 * A parsed Avro schema (https://avro.apache.org/docs/1.12.0/specification/): plain data, one node
 * per type, with every name already resolved. A named type referenced again (or recursively, as a
 * linked list's `next`) is the same node object, so the graph may contain cycles: walk it with a
 * set of visited named types.
 *
 * Names are full names ("com.acme.Order"); aliases are full names too, qualified by the namespace
 * of the type they belong to, as the specification says.
 */

export type AvroPrimitiveName = "null" | "boolean" | "int" | "long" | "float" | "double" | "bytes" | "string";

export const AVRO_PRIMITIVES: ReadonlySet<string> = new Set<AvroPrimitiveName>(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);

/** Logical types whose only attribute is their name. */
export type SimpleLogicalName =
  | "uuid"
  | "date"
  | "time-millis"
  | "time-micros"
  | "timestamp-millis"
  | "timestamp-micros"
  | "timestamp-nanos"
  | "local-timestamp-millis"
  | "local-timestamp-micros"
  | "local-timestamp-nanos"
  | "big-decimal"
  | "duration";

/**
 * A logical type the parser recognized on a valid underlying type. Unknown or invalid ones (a
 * decimal whose scale exceeds its precision, timestamp-millis on an int) are dropped, leaving the
 * underlying type, as the specification requires of readers.
 */
export type AvroLogicalType = { readonly name: SimpleLogicalName } | { readonly name: "decimal"; readonly precision: number; readonly scale: number };

export interface AvroPrimitive {
  readonly type: AvroPrimitiveName;
  readonly logicalType: AvroLogicalType | null;
}

export interface AvroField {
  readonly name: string;
  readonly type: AvroSchema;
  readonly aliases: readonly string[];
  /** The default as JSON (`{ value }`, so that a default of null differs from none), checked against the type. */
  readonly default: { readonly value: unknown } | null;
  readonly order: "ascending" | "descending" | "ignore";
}

export interface AvroRecord {
  readonly type: "record";
  readonly name: string;
  readonly aliases: readonly string[];
  readonly fields: readonly AvroField[];
}

export interface AvroEnum {
  readonly type: "enum";
  readonly name: string;
  readonly aliases: readonly string[];
  readonly symbols: readonly string[];
  /** The symbol a reader uses for a writer's symbol it lacks; null when there is none. */
  readonly default: string | null;
}

export interface AvroFixed {
  readonly type: "fixed";
  readonly name: string;
  readonly aliases: readonly string[];
  readonly size: number;
  readonly logicalType: AvroLogicalType | null;
}

export interface AvroArray {
  readonly type: "array";
  readonly items: AvroSchema;
}

export interface AvroMap {
  readonly type: "map";
  readonly values: AvroSchema;
}

export interface AvroUnion {
  readonly type: "union";
  readonly branches: readonly AvroSchema[];
}

export type AvroNamed = AvroRecord | AvroEnum | AvroFixed;
export type AvroSchema = AvroPrimitive | AvroNamed | AvroArray | AvroMap | AvroUnion;

export function isNamed(schema: AvroSchema): schema is AvroNamed {
  return schema.type === "record" || schema.type === "enum" || schema.type === "fixed";
}

/** The part of a full name after its last dot. */
export function simpleName(fullName: string): string {
  return fullName.slice(fullName.lastIndexOf(".") + 1);
}

/** How messages name a type: its full name for named types, else its kind ("long", "array", "union"). */
export function typeLabel(schema: AvroSchema): string {
  if (isNamed(schema)) return `${schema.type} ${schema.name}`;
  if (schema.type === "union") return `union [${schema.branches.map(typeLabel).join(", ")}]`;
  if (schema.type === "array" || schema.type === "map") return schema.type;
  return schema.logicalType === null ? schema.type : `${schema.type} (${schema.logicalType.name})`;
}

/** `typeLabel` after "a" or "an", as English wants: "an int", "a record com.acme.Order". */
export function aTypeLabel(schema: AvroSchema): string {
  const label = typeLabel(schema);
  // Every label starting with a vowel letter but "union" (said "yoo-") takes "an".
  return `${/^[aeio]/.test(label) ? "an" : "a"} ${label}`;
}
