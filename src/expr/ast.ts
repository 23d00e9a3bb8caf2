import type { ValueEncoding } from "../formats/value-encoding.js";
import type { ValueFormat } from "../formats/value-format.js";
import type { SchemaRegistryOptions } from "../schema-registry/registry-options.js";
import type { DType, Fields } from "../types/dtype.js";

/**
 * The expression tree. Expressions are plain, serializable data (never closures) so that a plan
 * fragment can travel to a worker and a checkpoint can record what it ran.
 */
export type Literal = string | number | boolean | null;

/** A value that survives JSON: what a UDF's bound `args` may hold. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * A `transformWithState` processor as plan data: the class a module exports, constructed with
 * `args` (JSON) where the operator runs.
 */
export interface ProcessorRef {
  readonly kind: "processorRef";
  /** The name errors use (the export's name unless given). */
  readonly name: string;
  readonly module: string;
  readonly exportName: string;
  readonly args: JsonValue | null;
  /** UDFs handed to the processor (its context's `udfs`), by the name it calls them by. */
  readonly udfs: Readonly<Record<string, UdfRef>>;
}

/**
 * A user-defined function, as plan data: the module that exports it (a `file:` URL, or a package
 * specifier resolved as Sluice's own imports are) and the export's name, never a closure. Every
 * process that runs it (workers, the driver) imports the module itself (expr/udf-modules.ts); the
 * constants it needs travel as `args`, JSON data bound when the UDF was made. Another operator
 * (a stateful processor, say) may hold a reference and call it through `udfFunction`.
 */
export interface UdfRef {
  readonly kind: "udfRef";
  /** The name errors and output columns use (the export's name unless given). */
  readonly name: string;
  readonly module: string;
  readonly exportName: string;
  /** "row": called once per row with JavaScript values; "vector": once per batch with Arrow vectors. */
  readonly form: "row" | "vector";
  readonly returnType: { readonly type: DType; readonly nullable: boolean };
  /** Passed to the function after its column arguments; null when the UDF was made without args. */
  readonly args: JsonValue | null;
}

export type ArithOp = "+" | "-" | "*" | "/" | "%";
export type CmpOp = "=" | "!=" | "<" | "<=" | ">" | ">=";
export type LogicOp = "and" | "or";

/** Scalar functions with a fixed argument list. */
export type ScalarFn =
  | "lower"
  | "upper"
  | "length"
  | "concat"
  | "substring"
  | "to_timestamp"
  | "date_trunc"
  | "hour"
  | "unix_seconds"
  | "unix_millis"
  | "unix_micros"
  | "negate"
  | "base64"
  | "unbase64"
  | "hex"
  | "timestamp_seconds"
  | "window_time"
  | "split";

export type AggFn = "count" | "sum" | "avg" | "min" | "max" | "first" | "last";

export type Expr =
  /**
   * A column by name. `qualifier` is set by `df.col(name)`: it names the DataFrame the column
   * belongs to, which only a join condition reads (to tell the sides apart); elsewhere the name alone counts.
   */
  | { readonly kind: "col"; readonly name: string; readonly qualifier?: number }
  | { readonly kind: "lit"; readonly value: Literal; readonly type: DType }
  | { readonly kind: "arith"; readonly op: ArithOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: "cmp"; readonly op: CmpOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: "logic"; readonly op: LogicOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: "not"; readonly child: Expr }
  | { readonly kind: "isNull"; readonly child: Expr; readonly negated: boolean }
  | { readonly kind: "in"; readonly child: Expr; readonly values: readonly Literal[] }
  | {
      readonly kind: "case";
      readonly branches: readonly { readonly when: Expr; readonly then: Expr }[];
      readonly otherwise: Expr | null;
    }
  | { readonly kind: "cast"; readonly child: Expr; readonly to: DType }
  /**
   * Scalar function call. `args` are expressions; constant parameters (a substring position, a
   * date_trunc unit, a timestamp format) are literal expressions too, so the tree stays uniform.
   */
  | { readonly kind: "call"; readonly fn: ScalarFn; readonly args: readonly Expr[] }
  /** Tumbling (slideMs === sizeMs) or sliding event-time window, as Spark's `window()`. */
  | {
      readonly kind: "window";
      readonly time: Expr;
      readonly sizeMs: number;
      readonly slideMs: number;
      readonly startMs: number;
    }
  /** Session window, as Spark's `session_window()`: a gap of inactivity closes a session. */
  | { readonly kind: "sessionWindow"; readonly time: Expr; readonly gapMs: number }
  | { readonly kind: "alias"; readonly child: Expr; readonly name: string }
  /**
   * A day-time interval literal (`interval("10 minutes")`, `expr("interval 10 minutes")`) in
   * milliseconds, `text` as written. Sluice has no interval column type: an interval stands only
   * beside a timestamp in `+` / `-` (expr/interval.ts).
   */
  | { readonly kind: "interval"; readonly ms: number; readonly text: string }
  /**
   * `explode(split(...))`: one output row per element, as Spark's Generate. Sluice has no array
   * column type, so the generator's child is a `split` call and it stands only at the top level
   * of `select` (plan/generate.ts).
   */
  | { readonly kind: "explode"; readonly child: Expr }
  /** An aggregate; `child` is null for `count(*)`. */
  | { readonly kind: "agg"; readonly fn: AggFn; readonly child: Expr | null }
  /**
   * `from_json`, `from_avro` or `from_protobuf(col, schema)`: decodes each value of a string or
   * binary column into the schema's columns. It yields several columns, so it may only stand at the
   * top level of `select`, whose output it extends by those columns. With `registry`, values are in
   * the Confluent wire format and their writer schemas are fetched from that registry by id.
   */
  | {
      readonly kind: "decodeValues";
      readonly child: Expr;
      readonly fields: Fields;
      readonly mode: "PERMISSIVE" | "FAILFAST";
      readonly format: ValueFormat;
      readonly registry: SchemaRegistryOptions | null;
    }
  /**
   * `to_avro` / `to_protobuf(struct or column)`: each row encoded as one binary value; with
   * `registry`, in the Confluent wire format under the id the registry gives the schema.
   */
  | { readonly kind: "encodeValues"; readonly child: Expr; readonly encoding: ValueEncoding; readonly registry: RegistryTarget | null }
  /**
   * `struct(...cols)`: Spark's `CreateNamedStruct`. Sluice has no struct column type, so a struct
   * may only stand as the argument of `to_json` (or inside another struct there); field names are
   * `structFieldName`'s.
   */
  | { readonly kind: "struct"; readonly fields: readonly Expr[] }
  /** `to_json(struct or window)`: one JSON object per row, as Spark's `StructsToJson`. */
  | { readonly kind: "toJson"; readonly child: Expr }
  /** A user-defined function applied to columns (`udf(...)` / `vectorUdf(...)`, api/udf.ts). */
  | { readonly kind: "udf"; readonly fn: UdfRef; readonly inputs: readonly Expr[] };

/** Where `to_avro` / `to_protobuf` register the schema their values are written in. */
export interface RegistryTarget {
  readonly registry: SchemaRegistryOptions;
  readonly subject: string;
  /**
   * Protobuf: the .proto text to register; null to write with the id of the subject's latest version.
   * Avro registers the schema of the columns (avroSchemaOfFields); this is null.
   */
  readonly schema: string | null;
}

export type ExprKind = Expr["kind"];
export type ExprOf<K extends ExprKind> = Extract<Expr, { kind: K }>;

/** Fails to compile when a switch over expression kinds misses one. */
export function assertNever(x: never, what = "value"): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(x)}`);
}

/** The direct sub-expressions of an expression, in evaluation order. */
export function children(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case "col":
    case "lit":
    case "interval":
      return [];
    case "arith":
    case "cmp":
    case "logic":
      return [e.left, e.right];
    case "not":
    case "isNull":
    case "in":
    case "cast":
    case "alias":
    case "decodeValues":
    case "encodeValues":
    case "toJson":
    case "explode":
      return [e.child];
    case "struct":
      return e.fields;
    case "case":
      return [...e.branches.flatMap((b) => [b.when, b.then]), ...(e.otherwise ? [e.otherwise] : [])];
    case "call":
      return e.args;
    case "udf":
      return e.inputs;
    case "window":
    case "sessionWindow":
      return [e.time];
    case "agg":
      return e.child ? [e.child] : [];
    default:
      return assertNever(e, "expression");
  }
}

/** `e` with its direct sub-expressions replaced by `next` (in `children` order). */
export function withChildren(e: Expr, next: readonly Expr[]): Expr {
  switch (e.kind) {
    case "col":
    case "lit":
    case "interval":
      return e;
    case "arith":
    case "cmp":
    case "logic":
      return { ...e, left: next[0]!, right: next[1]! };
    case "not":
    case "isNull":
    case "in":
    case "cast":
    case "alias":
    case "decodeValues":
    case "encodeValues":
    case "toJson":
    case "explode":
      return { ...e, child: next[0]! };
    case "struct":
      return { ...e, fields: next };
    case "case": {
      const branches = e.branches.map((_, i) => ({ when: next[2 * i]!, then: next[2 * i + 1]! }));
      return { ...e, branches, otherwise: e.otherwise ? next[2 * e.branches.length]! : e.otherwise };
    }
    case "call":
      return { ...e, args: next };
    case "udf":
      return { ...e, inputs: next };
    case "window":
    case "sessionWindow":
      return { ...e, time: next[0]! };
    case "agg":
      return e.child ? { ...e, child: next[0]! } : e;
    default:
      return assertNever(e, "expression");
  }
}

/** `e` with every column reference replaced by what `f` gives for it. */
export function mapColumns(e: Expr, f: (c: Expr & { kind: "col" }) => Expr): Expr {
  if (e.kind === "col") return f(e);
  const kids = children(e);
  if (kids.length === 0) return e;
  return withChildren(e, kids.map((c) => mapColumns(c, f)));
}

/** Every column name an expression reads. */
export function referencedColumns(e: Expr, into: Set<string> = new Set()): Set<string> {
  if (e.kind === "col") into.add(e.name);
  for (const c of children(e)) referencedColumns(c, into);
  return into;
}

/** True when the tree holds a node of the given kind. */
export function containsKind(e: Expr, kind: ExprKind): boolean {
  return e.kind === kind || children(e).some((c) => containsKind(c, kind));
}

/** Strips a top-level alias. */
export function unalias(e: Expr): Expr {
  return e.kind === "alias" ? unalias(e.child) : e;
}
