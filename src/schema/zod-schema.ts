import { z } from "zod";
import { OptionError } from "../errors/errors.js";
import { type ColType, DTYPES, type DType, type Field, type Fields, type Header } from "../types/dtype.js";

/**
 * The one place zod schemas become Sluice fields, at type level (`SchemaOfZod`) and at run time
 * (`fieldsFromZod`). Mapping, as DESIGN §2:
 *   z.string(), z.enum()                 -> string
 *   z.number()                           -> float64
 *   z.int() (and z.number().int())       -> int64
 *   z.int32()                            -> int32
 *   z.boolean()                          -> boolean
 *   z.date(), z.iso.datetime()           -> timestamp (JSON input: ISO-8601 text or epoch ms)
 *   z.instanceof(Uint8Array)             -> binary (Buffer too: it is a Uint8Array)
 *   z.array(z.object({ key: z.string(), value: z.instanceof(Uint8Array).nullable() }))
 *                                        -> headers (Kafka record headers)
 *   .optional() / .nullable()            -> nullable
 * Binary is declared by class rather than with `z.custom<Uint8Array>()`, because a custom schema
 * carries no class at run time: only `instanceof` says the same thing to the compiler and to
 * `fieldsFromZod`.
 * A schema can override the type with metadata: `z.number().meta({ sluiceType: "int32" })`.
 */

type Unwrap<Z> = Z extends z.ZodOptional<infer I> | z.ZodNullable<infer I> | z.ZodDefault<infer I> ? Unwrap<I> : Z;
type IsNullable<Z> = Z extends z.ZodOptional<any> | z.ZodNullable<any> ? true : Z extends z.ZodDefault<infer I> ? IsNullable<I> : false;

type DTypeOfZod<Z> = Z extends z.ZodCustom<infer T, any>
  ? [T] extends [Uint8Array]
    ? "binary"
    : never
  : Z extends z.ZodArray<infer I>
    ? [z.output<I>] extends [Header]
      ? "headers"
      : never
  : Z extends z.ZodInt32
  ? "int32"
  : Z extends z.ZodInt
    ? "int64"
    : Z extends z.ZodNumber
      ? "float64"
      : Z extends z.ZodISODateTime | z.ZodDate
        ? "timestamp"
        : Z extends z.ZodString | z.ZodEnum<any>
          ? "string"
          : Z extends z.ZodBoolean
            ? "boolean"
            : never;

/** The Sluice schema shape of a zod object schema. */
export type SchemaOfZod<Z extends z.ZodObject<any>> = {
  readonly [K in keyof Z["shape"] & string]: ColType<DTypeOfZod<Unwrap<Z["shape"][K]>>, IsNullable<Z["shape"][K]>>;
};

type AnyZod = z.ZodType;

function unwrap(schema: AnyZod): { inner: AnyZod; nullable: boolean } {
  let nullable = false;
  let s: any = schema;
  for (;;) {
    const t = s._zod.def.type;
    if (t === "optional" || t === "nullable") {
      nullable = true;
      s = s._zod.def.innerType;
    } else if (t === "default" || t === "prefault") {
      s = s._zod.def.innerType;
    } else {
      return { inner: s, nullable };
    }
  }
}

function metaType(schema: AnyZod): DType | undefined {
  const meta = (schema as any).meta?.() as { sluiceType?: unknown } | undefined;
  const t = meta?.sluiceType;
  if (t === undefined) return undefined;
  if (!(DTYPES as readonly unknown[]).includes(t)) {
    throw new OptionError(`schema metadata sluiceType must be one of ${DTYPES.join(", ")}, got ${JSON.stringify(t)}`);
  }
  return t as DType;
}

function dtypeOf(name: string, schema: AnyZod): DType {
  const s: any = schema;
  const def = s._zod.def;
  switch (def.type) {
    case "string":
      return def.format === "datetime" ? "timestamp" : "string";
    case "enum":
      return "string";
    case "number":
      if (s.format === "int32") return "int32";
      if (s.isInt || s.format === "safeint") return "int64";
      return "float64";
    case "boolean":
      return "boolean";
    case "date":
      return "timestamp";
    case "array":
      if (isHeadersElement(def.element)) return "headers";
      throw new OptionError(
        `schema field "${name}": the only array Sluice has is Kafka headers, z.array(z.object({ key: z.string(), value: z.instanceof(Uint8Array).nullable() }))`,
      );
    case "custom":
      if (isBytesClass(s._zod.bag?.Class)) return "binary";
      throw new OptionError(`schema field "${name}": a custom zod type has no column type; for bytes declare z.instanceof(Uint8Array)`);
    default:
      throw new OptionError(
        `schema field "${name}": zod type "${def.type}" has no column type; use z.string(), z.number(), z.int(), z.int32(), z.boolean(), z.date(), z.iso.datetime(), z.enum() or z.instanceof(Uint8Array)`,
      );
  }
}

/** An object schema of exactly `key` (a string) and `value` (binary, nullable or not): one header. */
function isHeadersElement(element: AnyZod): boolean {
  if ((element as any)?._zod?.def?.type !== "object") return false;
  try {
    const [key, value, ...rest] = fieldsFromZod(element as z.ZodObject<any>);
    return rest.length === 0 && key?.name === "key" && key.type === "string" && !key.nullable && value?.name === "value" && value.type === "binary";
  } catch {
    return false;
  }
}

/** Uint8Array or a subclass of it (Node's Buffer). */
function isBytesClass(c: unknown): boolean {
  return c === Uint8Array || (typeof c === "function" && c.prototype instanceof Uint8Array);
}

/**
 * A zod 4 object schema, from whichever copy of zod 4 the application loaded (zod is a peer
 * dependency, but a bundle or a nested install may hold another): recognised by zod 4's `_zod`
 * internals, not by `instanceof`. A zod 3 schema is named as such, with the fix.
 */
function checkZodObject(schema: unknown): asserts schema is z.ZodObject<any> {
  const s = schema as { _zod?: { def?: { type?: unknown } }; _def?: { typeName?: unknown } } | null;
  if (s && typeof s === "object" && s._zod === undefined && typeof s._def?.typeName === "string") {
    throw new OptionError(
      'schema: this is a zod 3 schema, and Sluice reads zod 4 schemas: install zod 4 (npm install zod@^4) and import { z } from "zod", or with zod 3.25 import { z } from "zod/v4"',
    );
  }
  if (!s || typeof s !== "object" || s._zod?.def?.type !== "object") {
    throw new OptionError("schema: expected a zod object schema such as z.object({ word: z.string() })");
  }
}

/** Runtime fields of a zod object schema, in declaration order. */
export function fieldsFromZod(schema: z.ZodObject<any>): Field[] {
  checkZodObject(schema);
  return Object.entries(schema._zod.def.shape as Record<string, AnyZod>).map(([name, member]) => {
    const { inner, nullable } = unwrap(member);
    const type = metaType(member) ?? metaType(inner) ?? dtypeOf(name, inner);
    return { name, type, nullable };
  });
}

/** Field list -> readable one-line schema, for errors and `printSchema`. */
export function describeFields(fields: Fields): string {
  return fields.map((f) => `${f.name}: ${f.type}${f.nullable ? " (nullable)" : ""}`).join(", ");
}
