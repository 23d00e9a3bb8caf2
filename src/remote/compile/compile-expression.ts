import { create } from "@bufbuild/protobuf";
import { assertNever, type Expr, type ExprOf, type ScalarFn, unalias } from "../../expr/ast.js";
import { literalType } from "../../expr/literal.js";
import { outputName, resolveType, severalColumns, structFieldName } from "../../expr/resolve.js";
import type { DType, Fields } from "../../types/dtype.js";
import { type Expression, Expression_Cast_EvalMode, ExpressionSchema } from "../gen/spark/connect/expressions_pb.js";
import { decodeRefusal, encodeRefusal, udfRefused } from "./refusals.js";
import { dayTimeIntervalLiteral, intervalText, stringLiteral, typedLiteral, untypedNull } from "./spark-literals.js";
import { sparkDataType } from "./spark-types.js";

/**
 * Sluice expressions as Spark Connect `Expression` messages, with the function names Spark's
 * FunctionRegistry knows (the ones pyspark's Column sends). Whatever Spark cannot evaluate as
 * Sluice does is refused (RemoteUnsupportedError), never approximated.
 */

/** What a column reference needs to know about where it is compiled. */
export interface ExprScope {
  /** The input's columns: tells a window's `w.start` from a column literally named so. */
  readonly fields?: Fields;
  /** The plan id of the relation a column comes from, where two inputs meet (a join condition). */
  readonly planIdOf?: (name: string) => bigint | undefined;
}

export function fn(name: string, args: readonly Expression[]): Expression {
  return create(ExpressionSchema, { exprType: { case: "unresolvedFunction", value: { functionName: name, arguments: [...args] } } });
}

export function alias(e: Expression, name: string): Expression {
  return create(ExpressionSchema, { exprType: { case: "alias", value: { expr: e, name: [name] } } });
}

const backquote = (s: string) => `\`${s.replaceAll("`", "``")}\``;

/** A column name as an unparsed identifier: `w.start` of a window reads the struct's field; any other name is one part. */
function columnIdentifier(name: string, fields: Fields | undefined): string {
  const dot = name.lastIndexOf(".");
  if (dot > 0) {
    const parent = name.slice(0, dot);
    const member = name.slice(dot + 1);
    const windowMember =
      (member === "start" || member === "end") && (fields === undefined || (!fields.some((f) => f.name === name) && fields.some((f) => f.name === parent && f.type === "window")));
    if (windowMember) return `${backquote(parent)}.${member}`;
  }
  return backquote(name);
}

export function column(name: string, scope: ExprScope = {}): Expression {
  const planId = scope.planIdOf?.(name);
  return create(ExpressionSchema, {
    exprType: { case: "unresolvedAttribute", value: { unparsedIdentifier: columnIdentifier(name, scope.fields), ...(planId === undefined ? {} : { planId }) } },
  });
}

/**
 * CAST with Spark's non-ANSI (LEGACY) rules, Sluice's: a value that does not convert is null.
 * Stated on each cast, so it holds whatever the server session's spark.sql.ansi.enabled.
 */
export function cast(expr: Expression, to: DType): Expression {
  return create(ExpressionSchema, {
    exprType: { case: "cast", value: { expr, castToType: { case: "type", value: sparkDataType(to) }, evalMode: Expression_Cast_EvalMode.LEGACY } },
  });
}

/** Field `member` of the struct column `parent`. */
export function structField(parent: string, member: string): Expression {
  return create(ExpressionSchema, { exprType: { case: "unresolvedAttribute", value: { unparsedIdentifier: `${backquote(parent)}.${backquote(member)}` } } });
}

const CMP: Record<ExprOf<"cmp">["op"], string> = { "=": "==", "!=": "==", "<": "<", "<=": "<=", ">": ">", ">=": ">=" };

/** Sluice's scalar functions by Spark's names (where they differ). */
const SPARK_FUNCTION: Partial<Record<ScalarFn, string>> = { negate: "negative" };

export function compileExpression(e: Expr, scope: ExprScope = {}): Expression {
  const c = (x: Expr) => compileExpression(x, scope);
  switch (e.kind) {
    case "col":
      return column(e.name, scope);
    case "lit":
      return typedLiteral(e.value, e.type);
    case "arith":
      return fn(e.op, [c(e.left), c(e.right)]);
    case "cmp": {
      const [left, right] = binaryComparable(e, scope).map(c);
      const eq = fn(CMP[e.op], [left!, right!]);
      return e.op === "!=" ? fn("not", [eq]) : eq;
    }
    case "logic":
      return fn(e.op, [c(e.left), c(e.right)]);
    case "not":
      return fn("not", [c(e.child)]);
    case "isNull":
      return fn(e.negated ? "isnotnull" : "isnull", [c(e.child)]);
    case "in":
      return fn("in", [c(e.child), ...e.values.map((v) => (v === null ? untypedNull() : typedLiteral(v, literalType(v))))]);
    case "case": {
      // A null branch takes the other branches' type, as in Sluice (resolve.ts): Spark's NullType does that.
      const branch = (x: Expr) => (x.kind === "lit" && x.value === null ? untypedNull() : c(x));
      const args = e.branches.flatMap((b) => [c(b.when), branch(b.then)]);
      return fn("when", e.otherwise ? [...args, branch(e.otherwise)] : args);
    }
    case "cast":
      return cast(c(e.child), e.to);
    case "call":
      return fn(SPARK_FUNCTION[e.fn] ?? e.fn, e.args.map(c));
    case "window":
      return fn("window", [
        c(e.time),
        stringLiteral(intervalText(e.sizeMs)),
        stringLiteral(intervalText(e.slideMs)),
        ...(e.startMs === 0 ? [] : [stringLiteral(intervalText(e.startMs))]),
      ]);
    case "sessionWindow":
      return fn("session_window", [c(e.time), stringLiteral(intervalText(e.gapMs))]);
    case "alias":
      return alias(c(e.child), e.name);
    case "interval":
      return dayTimeIntervalLiteral(e.ms);
    case "explode":
      return fn("explode", [c(e.child)]);
    case "agg":
      // count(*) as Spark's own clients send it: count over an unresolved star.
      return fn(e.fn, [e.child ? c(e.child) : create(ExpressionSchema, { exprType: { case: "unresolvedStar", value: {} } })]);
    case "decodeValues": {
      // It gives several columns: only a select lays them out (compile-relation.ts), as only a select takes it in Sluice.
      throw decodeRefusal(e) ?? severalColumns(e);
    }
    case "encodeValues":
      throw encodeRefusal(e);
    case "struct":
      // named_struct gives each field the name Sluice gives it (structFieldName), whatever Spark would infer.
      return fn(
        "named_struct",
        e.fields.flatMap((f, i) => [stringLiteral(structFieldName(f, i)), c(unalias(f))]),
      );
    case "toJson":
      return fn("to_json", [c(unalias(e.child))]);
    case "udf":
      throw udfRefused(e.fn);
    default:
      return assertNever(e, "expression");
  }
}

/**
 * A text literal compared with a binary column stands for its UTF-8 bytes in Sluice (resolve.ts):
 * it is sent as a binary literal, so Spark compares bytes too.
 */
function binaryComparable(e: ExprOf<"cmp">, scope: ExprScope): [Expr, Expr] {
  const isText = (x: Expr): x is ExprOf<"lit"> => x.kind === "lit" && typeof x.value === "string";
  const isBinary = (x: Expr) => scope.fields !== undefined && !isText(x) && resolveType(x, scope.fields).type === "binary";
  const side = (x: Expr, other: Expr): Expr => (isText(x) && isBinary(other) ? { ...x, type: "binary" } : x);
  return [side(e.left, e.right), side(e.right, e.left)];
}

/** The name Sluice gives an expression's output column, which the compiled expression is aliased to. */
export function namedExpression(e: Expr, scope: ExprScope = {}): Expression {
  if (e.kind === "alias" || (e.kind === "col" && outputName(e) === e.name)) return compileExpression(e, scope);
  return alias(compileExpression(e, scope), outputName(e));
}
