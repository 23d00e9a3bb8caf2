import { AnalysisError, messages } from "../errors/errors.js";
import { checkValueEncoding } from "../formats/value-encoding.js";
import { type ColType, type DType, type Field, type Fields, isNumeric } from "../types/dtype.js";
import { assertNever, type Expr, type ExprOf, unalias } from "./ast.js";
import { explodeOutsideSelect, splitOutsideExplode } from "./generator.js";
import { intervalOutsideTimeArithmetic } from "./interval.js";
import { intervalShift, shiftedTimeType } from "./time-arithmetic.js";

/** Looks a column up by name, including `window.start` / `window.end` on window columns. */
export function lookupColumn(name: string, fields: Fields): ColType {
  const direct = fields.find((f) => f.name === name);
  if (direct) return direct;
  const dot = name.lastIndexOf(".");
  if (dot > 0) {
    const parent = fields.find((f) => f.name === name.slice(0, dot));
    const member = name.slice(dot + 1);
    if (parent?.type === "window" && (member === "start" || member === "end")) {
      return { type: "timestamp", nullable: parent.nullable };
    }
  }
  throw new AnalysisError(messages.unresolvedColumn(name, fields.map((f) => f.name)));
}

function promote(a: DType, b: DType): DType {
  if (a === "float64" || b === "float64") return "float64";
  if (a === "int64" || b === "int64") return "int64";
  return a;
}

function need(ok: boolean, what: string, expected: string, got: DType): void {
  if (!ok) throw new AnalysisError(messages.typeMismatch(what, expected, got));
}

/** Windows and headers are compound: no operator, function or aggregate takes them as a value. */
function isScalar(t: DType): boolean {
  return t !== "window" && t !== "headers";
}

/** The result type of an expression over `fields`; throws `AnalysisError` on a bad tree. */
export function resolveType(e: Expr, fields: Fields): ColType {
  switch (e.kind) {
    case "col":
      return lookupColumn(e.name, fields);
    case "lit":
      return { type: e.type, nullable: e.value === null };
    case "alias":
      return resolveType(e.child, fields);
    case "arith": {
      const shift = intervalShift(e);
      if (shift) return shiftedTimeType(resolveType(shift.time, fields));
      const l = resolveType(e.left, fields);
      const r = resolveType(e.right, fields);
      const what = `arithmetic "${e.op}"`;
      need(isNumeric(l.type), what, "numbers", l.type);
      need(isNumeric(r.type), what, "numbers", r.type);
      if (e.op === "/") return { type: "float64", nullable: true };
      return { type: promote(l.type, r.type), nullable: l.nullable || r.nullable || e.op === "%" };
    }
    case "cmp": {
      const l = resolveType(e.left, fields);
      const r = resolveType(e.right, fields);
      const comparable = (isNumeric(l.type) && isNumeric(r.type)) || l.type === r.type || textLiteralWithBinary(e, l.type, r.type);
      if (!comparable) {
        throw new AnalysisError(`cannot compare ${l.type} with ${r.type} in "${e.op}"; cast one side first`);
      }
      // Windows compare for equality only (a join on window, as Spark's struct equality).
      const windowEquality = l.type === "window" && r.type === "window" && (e.op === "=" || e.op === "!=");
      if (!windowEquality) need(isScalar(l.type), `comparison "${e.op}"`, "scalar values", l.type);
      return { type: "boolean", nullable: l.nullable || r.nullable };
    }
    case "logic": {
      const l = resolveType(e.left, fields);
      const r = resolveType(e.right, fields);
      need(l.type === "boolean", `"${e.op}"`, "booleans", l.type);
      need(r.type === "boolean", `"${e.op}"`, "booleans", r.type);
      return { type: "boolean", nullable: l.nullable || r.nullable };
    }
    case "not": {
      const c = resolveType(e.child, fields);
      need(c.type === "boolean", "not", "a boolean", c.type);
      return c;
    }
    case "isNull":
      resolveType(e.child, fields);
      return { type: "boolean", nullable: false };
    case "in": {
      const c = resolveType(e.child, fields);
      need(isScalar(c.type), "IN", "scalar values", c.type);
      return { type: "boolean", nullable: c.nullable };
    }
    case "case": {
      // A null literal branch takes the type of the others, as Spark's NullType coercion does.
      let type: DType | null = null;
      const branchType = (x: Expr) => {
        if (x.kind === "lit" && x.value === null) return;
        const t = resolveType(x, fields).type;
        need(t !== "headers", "when()/otherwise()", "scalar values", t);
        type = type === null ? t : commonType(type, t);
      };
      for (const b of e.branches) {
        const w = resolveType(b.when, fields);
        need(w.type === "boolean", "when()", "a boolean condition", w.type);
        branchType(b.then);
      }
      if (e.otherwise) branchType(e.otherwise);
      return { type: type ?? "string", nullable: true };
    }
    case "cast": {
      const c = resolveType(e.child, fields);
      if (e.to === "window" || c.type === "window") {
        throw new AnalysisError(`cannot cast ${c.type} to ${e.to}`);
      }
      if (e.to === "headers" || c.type === "headers") {
        const fix = c.type === "headers" ? `; to_json(${outputName(e.child)}) writes headers as JSON text` : "";
        throw new AnalysisError(`cannot cast ${outputName(e.child)} (${c.type}) to ${e.to}${fix}`);
      }
      if (c.type !== e.to && (c.type === "binary" || e.to === "binary") && c.type !== "string" && e.to !== "string") {
        const fix = c.type === "binary" ? `; decode the bytes with ${outputName(e.child)}.cast("string") first` : `; cast it to string first`;
        throw new AnalysisError(`cannot cast ${outputName(e.child)} (${c.type}) to ${e.to}: binary casts to and from string only${fix}`);
      }
      return { type: e.to, nullable: true };
    }
    case "call":
      return resolveCall(e, fields);
    case "window":
    case "sessionWindow": {
      const t = resolveType(e.time, fields);
      need(t.type === "timestamp", e.kind === "window" ? "window()" : "session_window()", "a timestamp column", t.type);
      return { type: "window", nullable: false };
    }
    case "interval":
      throw intervalOutsideTimeArithmetic(e);
    case "explode":
      throw explodeOutsideSelect();
    case "decodeValues":
      throw severalColumns(e);
    case "encodeValues":
      return resolveEncodeValues(e, fields);
    case "struct":
      throw structOutsideToJson(e);
    case "toJson": {
      const child = unalias(e.child);
      if (child.kind === "struct") {
        resolveStructFields(child, fields);
        return { type: "string", nullable: false };
      }
      const c = resolveType(child, fields);
      if (c.type !== "window" && c.type !== "headers") {
        throw new AnalysisError(`to_json() needs a struct(...), a window or a headers column, but ${outputName(child)} is ${c.type}`);
      }
      return { type: "string", nullable: c.nullable };
    }
    case "udf":
      return resolveUdf(e, fields);
    case "agg": {
      if (e.fn === "count") {
        // Counting reads a column's nulls through the kernels' value views, which headers have none of.
        if (e.child && resolveType(e.child, fields).type === "headers") {
          const name = outputName(e.child);
          throw new AnalysisError(`count(${name}) is not supported on headers; count() counts rows, and count(when(col("${name}").isNotNull(), 1)) the rows with headers`);
        }
        return { type: "int64", nullable: false };
      }
      const c = resolveType(e.child!, fields);
      switch (e.fn) {
        case "sum":
          need(isNumeric(c.type), "sum()", "a numeric column", c.type);
          return { type: c.type === "float64" ? "float64" : "int64", nullable: true };
        case "avg":
          need(isNumeric(c.type), "avg()", "a numeric column", c.type);
          return { type: "float64", nullable: true };
        case "min":
        case "max":
        case "first":
        case "last":
          need(isScalar(c.type), `${e.fn}()`, "a scalar column", c.type);
          if (c.type === "binary") {
            // Aggregation state keeps a value accumulator as a number or as text (operators/aggregate-layout.ts).
            throw new AnalysisError(
              `${e.fn}(${outputName(e.child!)}) is not supported on binary: aggregation state keeps numbers and strings only; aggregate hex(${outputName(e.child!)}) or ${outputName(e.child!)}.cast("string") instead`,
            );
          }
          return { type: c.type, nullable: true };
        default:
          return assertNever(e.fn, "aggregate");
      }
    }
    default:
      return assertNever(e, "expression");
  }
}

/** A UDF's type is the one it was declared with; its arguments are checked, whatever their types. */
function resolveUdf(e: ExprOf<"udf">, fields: Fields): ColType {
  for (const input of e.inputs) resolveType(input, fields);
  if (e.fn.form === "vector" && e.inputs.length === 0) {
    throw new AnalysisError(`vectorUdf "${e.fn.name}" needs at least one column argument: it is called with the batch's vectors, whose length is the batch's`);
  }
  return { type: e.fn.returnType.type, nullable: e.fn.returnType.nullable };
}

export function severalColumns(e: ExprOf<"decodeValues">): AnalysisError {
  return new AnalysisError(`from_${e.format.kind}(...) gives several columns: use it as a top-level column of select()`);
}

/**
 * The columns `to_avro` / `to_protobuf` encode: a struct's fields by their struct names, or a lone
 * column as "value" (Avro's name for it does not matter: a record's encoding is its fields').
 */
export function encodedFields(e: ExprOf<"encodeValues">, fields: Fields): Fields {
  const fn = `to_${e.encoding.kind}()`;
  const child = unalias(e.child);
  if (child.kind !== "struct") {
    if (e.encoding.kind === "protobuf") throw new AnalysisError(`${fn} needs a struct(...) of the message's fields, but got ${outputName(child)}`);
    return [namedField("value", resolveType(child, fields))];
  }
  return child.fields.map((f, i): Field => {
    const inner = unalias(f);
    if (inner.kind === "struct") throw new AnalysisError(`${fn} writes flat records: ${outputName(inner)} is a nested struct, which Sluice has no ${e.encoding.kind === "avro" ? "Avro" : "Protobuf"} form for yet`);
    return namedField(structFieldName(f, i), resolveType(f, fields));
  });
}

/** A field of this name and type (a column's ColType is its Field, name and all: only type and nullability are taken). */
const namedField = (name: string, t: ColType): Field => ({ name, type: t.type, nullable: t.nullable });

/** A struct's value is never null; a lone column's is null where the column is (Spark's to_avro of null). */
function resolveEncodeValues(e: ExprOf<"encodeValues">, fields: Fields): ColType {
  const columns = encodedFields(e, fields);
  checkValueEncoding(e.encoding, columns, `to_${e.encoding.kind}()`);
  return { type: "binary", nullable: unalias(e.child).kind === "struct" ? false : columns[0]!.nullable };
}

/**
 * Checks a struct's fields (nested structs included). A struct is never null; its fields may be of
 * any type. Sluice has no struct column type, so this is only reached through to_json().
 */
export function resolveStructFields(e: ExprOf<"struct">, fields: Fields): void {
  for (const f of e.fields) {
    const inner = unalias(f);
    if (inner.kind === "struct") resolveStructFields(inner, fields);
    else resolveType(f, fields);
  }
}

export function structOutsideToJson(e: ExprOf<"struct">): AnalysisError {
  return new AnalysisError(
    `${outputName(e)} can only be used as the argument of to_json(), e.g. to_json(struct(...)).alias("value"): ` +
      "Sluice has no struct column type, so a struct cannot be selected, grouped by, compared or passed to other functions",
  );
}

/**
 * The name of field `index` of a struct, as Spark's `CreateStruct`: an alias or a column keeps its
 * name (`col("window.start")` gives "start"); any other expression is `col<index + 1>`.
 */
export function structFieldName(e: Expr, index: number): string {
  if (e.kind === "alias") return e.name;
  if (e.kind === "col") return outputName(e);
  return `col${index + 1}`;
}

function commonType(a: DType, b: DType): DType {
  if (a === b) return a;
  if (isNumeric(a) && isNumeric(b)) return promote(a, b);
  throw new AnalysisError(`when()/otherwise() branches have different types: ${a} and ${b}`);
}

/** A string literal compared with binary stands for its UTF-8 bytes, as Spark casts it to binary. */
function textLiteralWithBinary(e: ExprOf<"cmp">, l: DType, r: DType): boolean {
  const literal = (x: Expr) => x.kind === "lit" && typeof x.value === "string";
  return (l === "binary" && r === "string" && literal(e.right)) || (r === "binary" && l === "string" && literal(e.left));
}

/** A text function's argument must be a string; binary is named with the cast that decodes it. */
function needText(fn: string, arg: Expr, t: DType): void {
  if (t === "binary") throw new AnalysisError(`${fn}() needs a string, but ${outputName(arg)} is binary; decode it first with ${outputName(arg)}.cast("string")`);
  need(t === "string", `${fn}()`, "a string", t);
}

function resolveCall(e: Extract<Expr, { kind: "call" }>, fields: Fields): ColType {
  const args = e.args.map((a) => resolveType(a, fields));
  const nullable = args.some((a) => a.nullable);
  const first = args[0]!;
  switch (e.fn) {
    case "lower":
    case "upper":
      needText(e.fn, e.args[0]!, first.type);
      return { type: "string", nullable };
    case "length":
      // Characters of a string, bytes of binary, as Spark's length().
      need(first.type === "string" || first.type === "binary", "length()", "a string or binary", first.type);
      return { type: "int32", nullable };
    case "concat":
      for (const a of args) need(isScalar(a.type), "concat()", "scalar values", a.type);
      return { type: "string", nullable };
    case "substring":
      needText("substring", e.args[0]!, first.type);
      return { type: "string", nullable };
    case "base64":
    case "hex":
      need(first.type === "binary" || first.type === "string", `${e.fn}()`, "binary or a string", first.type);
      return { type: "string", nullable };
    case "unbase64":
      need(first.type === "string", "unbase64()", "a string of base64 text", first.type);
      return { type: "binary", nullable: true };
    case "to_timestamp":
      need(first.type === "string" || isNumeric(first.type) || first.type === "timestamp", "to_timestamp()", "a string or number", first.type);
      return { type: "timestamp", nullable: true };
    case "date_trunc":
      need(args[1]!.type === "timestamp", "date_trunc()", "a timestamp", args[1]!.type);
      return { type: "timestamp", nullable };
    case "hour":
      need(first.type === "timestamp", "hour()", "a timestamp", first.type);
      return { type: "int32", nullable };
    case "negate":
      need(isNumeric(first.type), "negation", "a number", first.type);
      return first;
    case "unix_seconds":
    case "unix_millis":
    case "unix_micros":
      need(first.type === "timestamp", `${e.fn}()`, "a timestamp", first.type);
      return { type: "int64", nullable };
    case "timestamp_seconds":
      // A double that is NaN or infinite has no time: null, as Spark's SecondsToTimestamp.
      need(isNumeric(first.type), "timestamp_seconds()", "a number of seconds", first.type);
      return { type: "timestamp", nullable: nullable || first.type === "float64" };
    case "window_time":
      need(first.type === "window", "window_time()", "a window column (from window() or session_window())", first.type);
      return { type: "timestamp", nullable };
    case "split":
      throw splitOutsideExplode();
    default:
      return assertNever(e.fn, "function");
  }
}

/** The output column name of an expression: the alias, the column name, or Spark's auto-name. */
export function outputName(e: Expr): string {
  switch (e.kind) {
    case "alias":
      return e.name;
    case "col": {
      const dot = e.name.lastIndexOf(".");
      return dot > 0 && (e.name.endsWith(".start") || e.name.endsWith(".end")) ? e.name.slice(dot + 1) : e.name;
    }
    case "lit":
      return e.value === null ? "NULL" : String(e.value);
    case "arith":
    case "cmp":
      return `(${outputName(e.left)} ${e.op} ${outputName(e.right)})`;
    case "logic":
      return `(${outputName(e.left)} ${e.op.toUpperCase()} ${outputName(e.right)})`;
    case "not":
      return `(NOT ${outputName(e.child)})`;
    case "isNull":
      return `(${outputName(e.child)} IS ${e.negated ? "NOT " : ""}NULL)`;
    case "in":
      return `(${outputName(e.child)} IN (${e.values.map((v) => String(v)).join(", ")}))`;
    case "case":
      return `CASE ${e.branches.map((b) => `WHEN ${outputName(b.when)} THEN ${outputName(b.then)}`).join(" ")}${e.otherwise ? ` ELSE ${outputName(e.otherwise)}` : ""} END`;
    case "cast":
      return `CAST(${outputName(e.child)} AS ${e.to.toUpperCase()})`;
    case "call":
      if (e.fn === "negate") return `(- ${outputName(e.args[0]!)})`;
      return `${e.fn}(${e.args.map(outputName).join(", ")})`;
    case "window":
      return "window";
    case "sessionWindow":
      return "session_window";
    case "agg":
      return `${e.fn}(${e.child ? outputName(e.child) : "1"})`;
    case "interval":
      return `INTERVAL '${e.text}'`;
    case "explode":
      // Spark names a generator's one output "col".
      return "col";
    case "decodeValues":
      return `from_${e.format.kind}(${outputName(e.child)})`;
    case "encodeValues":
      return `to_${e.encoding.kind}(${outputName(e.child)})`;
    case "struct":
      return `struct(${e.fields.map(outputName).join(", ")})`;
    case "toJson":
      return `to_json(${outputName(e.child)})`;
    case "udf":
      return `${e.fn.name}(${e.inputs.map(outputName).join(", ")})`;
    default:
      return assertNever(e, "expression");
  }
}

/** The output field an expression produces over `fields`. */
export function outputField(e: Expr, fields: Fields): Field {
  const t = resolveType(e, fields);
  return { name: outputName(e), type: t.type, nullable: t.nullable };
}
