/**
 * Sluice's column types. One small closed set, mapped once to Arrow (see `schema/arrow-types.ts`):
 * every operator, kernel and type-level helper speaks in these names.
 *
 * - `timestamp` is Arrow Timestamp(ms); kernels read it as float64 milliseconds.
 * - `window` is the struct `{ start: timestamp, end: timestamp }` produced by `window()` and
 *   `session_window()`, as in Spark.
 * - `int64` values surface in JavaScript as `number`, so rows stay plain data; beyond ±(2^53 - 1)
 *   rows may hand them in as bigint, and `collect()` raises NumericRangeError (toArrow() keeps them:
 *   see batch/numeric-columns.ts).
 * - `binary` is Arrow Binary: bytes as they are, a `Uint8Array` in rows, as Spark's BinaryType
 *   (Kafka keys and values). Kernels read it as offsets + bytes, like strings, but no step assumes
 *   the bytes are UTF-8: `cast("string")` decodes them.
 * - `headers` is a Kafka record's headers, Spark's `array<struct<key: string, value: binary>>`:
 *   Arrow List<Struct<key: Utf8, value: Binary>> (kernels/headers.ts), `{ key, value }[]` in rows.
 *   Like `window` it is a named compound type: it passes through queries (select, filter, union,
 *   joins, sorts and deduplication carry it), tests for null, and is written by sinks; it is no
 *   key, aggregate input or operand.
 */
export const DTYPES = ["string", "float64", "int32", "int64", "boolean", "timestamp", "window", "binary", "headers"] as const;
export type DType = (typeof DTYPES)[number];

/** A column's type and nullability, at type level and at run time alike. */
export interface ColType<T extends DType = DType, N extends boolean = boolean> {
  readonly type: T;
  readonly nullable: N;
}

/** Type-level schema: column name -> type. */
export type SchemaShape = { readonly [name: string]: ColType };

export interface WindowValue {
  readonly start: Date;
  readonly end: Date;
}

/** One Kafka record header: a text key and a value of bytes (null: a header without a value). */
export interface Header {
  key: string;
  value: Uint8Array | null;
}

/** The JavaScript value a column of type T holds in collected rows. */
export type JsValue<T extends DType> = T extends "string"
  ? string
  : T extends "float64" | "int32" | "int64"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "timestamp"
        ? Date
        : T extends "window"
          ? WindowValue
          : T extends "binary"
            ? Uint8Array
            : T extends "headers"
              ? Header[]
              : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The row type of a schema: what `collect()` returns and what memory sources accept. */
export type RowOf<S extends SchemaShape> = Simplify<{
  -readonly [K in keyof S]: S[K]["nullable"] extends true ? JsValue<S[K]["type"]> | null : JsValue<S[K]["type"]>;
}>;

export const NUMERIC_TYPES: ReadonlySet<DType> = new Set<DType>(["float64", "int32", "int64"]);

export function isNumeric(t: DType): boolean {
  return NUMERIC_TYPES.has(t);
}

/** A runtime field: the schema of a column as plans and operators see it. */
export interface Field {
  readonly name: string;
  readonly type: DType;
  readonly nullable: boolean;
}

export type Fields = readonly Field[];
