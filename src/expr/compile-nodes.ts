import type * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { readValidity } from "../batch/validity.js";
import { AnalysisError, InternalError } from "../errors/errors.js";
import { andValidity } from "../kernels/bits.js";
import { encodeUtf8 } from "../kernels/utf8.js";
import type { ColType, DType, Fields } from "../types/dtype.js";
import { type CmpOp, type Expr, type ExprOf, unalias } from "./ast.js";
import { arithmetic } from "./eval-arith.js";
import { boolsAsNumbers, compareNumbers, compareStrings, compareStringWithLiteral, compareWindows, flipOp } from "./eval-compare.js";
import { type JsonMember, type JsonObject, toJsonText, windowObject } from "./eval-json.js";
import { headersJson } from "./headers-json.js";
import { jsonKey } from "./json-text.js";
import { literalValue } from "./eval-literal.js";
import { isIn, prepareInList } from "./eval-membership.js";
import { caseWhen } from "./eval-logic.js";
import { asBool, asNum, asStr, asWin, type BoolVec, type Compiled, type Constant, constantVec, type NumVec, vecOf } from "./eval-vec.js";
import { lookupColumn, structFieldName } from "./resolve.js";

/**
 * Compilation of the expression kinds that need more than "evaluate the children, call a kernel":
 * column access, literals, comparisons (scalar fast paths), IN and CASE. Planning happens here,
 * once per expression and schema; the returned `run` functions only loop.
 */

export type CompileChild = (e: Expr) => Compiled;

/** A column, or `w.start` / `w.end` of a window column (the struct's child, zero-copy). */
export function compileColumn(name: string, fields: Fields): Compiled {
  const index = fields.findIndex((f) => f.name === name);
  if (index >= 0) {
    const field = fields[index];
    return { type: field, constant: null, run: (b) => vecOf(b.columns[index], field.type, field.name), passThrough: (b) => b.columns[index] };
  }
  const type = lookupColumn(name, fields); // throws the unresolved-column error when not a window member
  const dot = name.lastIndexOf(".");
  const parent = fields.findIndex((f) => f.name === name.slice(0, dot));
  const child = name.slice(dot + 1) === "start" ? 0 : 1;
  return {
    type,
    constant: null,
    run: (b) => {
      const struct = b.columns[parent];
      const member = vecOf(struct.children[child], "timestamp", name);
      const structValid = readValidity(struct);
      // A null window has null members; the child alone would show whatever its slot holds.
      return structValid === null ? member : { kind: "num", values: (member as NumVec).values, valid: andValidity(structValid, member.valid) };
    },
    passThrough: (b) => (b.columns[parent].nullCount === 0 ? b.columns[parent].children[child] : null),
  };
}

/**
 * A literal: its value is converted once, at compile time. The broadcast vector is built per batch
 * rather than cached, because output columns may share its arrays and a transferred column would
 * detach a cached buffer.
 */
export function compileLiteral(e: ExprOf<"lit">): Compiled {
  const constant: Constant = { value: literalValue(e.value, e.type) };
  const type: ColType = { type: e.type, nullable: constant.value === null };
  return { type, constant, run: (b) => constantVec(constant, e.type, b.numRows) };
}

const NUMBER_KINDS: ReadonlySet<DType> = new Set<DType>(["float64", "int32", "int64", "timestamp"]);

/** Comparison, with scalar kernels when either side is a non-null literal. */
export function compileComparison(e: ExprOf<"cmp">, type: ColType, compile: CompileChild): Compiled {
  const left = compile(e.left);
  const right = compile(e.right);
  const run = comparisonRunner(e.op, left, right);
  return { type, constant: null, run };
}

function comparisonRunner(op: CmpOp, left: Compiled, right: Compiled): (b: Batch) => BoolVec {
  const lt = left.type.type;
  const literalRight = right.constant?.value ?? null;
  const literalLeft = left.constant?.value ?? null;
  if (NUMBER_KINDS.has(lt) && NUMBER_KINDS.has(right.type.type)) {
    if (typeof literalRight === "number") return (b) => compareNumbers(op, asNum(left.run(b)), literalRight, b.numRows);
    if (typeof literalLeft === "number") return (b) => compareNumbers(flipOp(op), asNum(right.run(b)), literalLeft, b.numRows);
    return (b) => compareNumbers(op, asNum(left.run(b)), asNum(right.run(b)), b.numRows);
  }
  // Binary compares by bytes exactly as strings do (UTF-8 order is byte order); a string literal
  // on either side stands for its UTF-8 bytes.
  if (lt === "string" || lt === "binary") {
    if (typeof literalRight === "string") {
      const bytes = encodeUtf8(literalRight);
      return (b) => compareStringWithLiteral(op, asStr(left.run(b)), bytes, b.numRows);
    }
    if (typeof literalLeft === "string") {
      const bytes = encodeUtf8(literalLeft);
      return (b) => compareStringWithLiteral(flipOp(op), asStr(right.run(b)), bytes, b.numRows);
    }
    return (b) => compareStrings(op, asStr(left.run(b)), asStr(right.run(b)), b.numRows);
  }
  if (lt === "boolean") {
    return (b) => compareNumbers(op, boolsAsNumbers(asBool(left.run(b))), boolsAsNumbers(asBool(right.run(b))), b.numRows);
  }
  if (lt === "window" && (op === "=" || op === "!=")) return (b) => compareWindows(op, asWin(left.run(b)), asWin(right.run(b)), b.numRows);
  throw new AnalysisError(`cannot compare ${lt} with ${right.type.type} in "${op}"`);
}

export function compileArithmetic(e: ExprOf<"arith">, type: ColType, compile: CompileChild): Compiled {
  const left = compile(e.left);
  const right = compile(e.right);
  return { type, constant: null, run: (b) => arithmetic(e.op, asNum(left.run(b)), asNum(right.run(b)), type.type, b.numRows) };
}

export function compileIn(e: ExprOf<"in">, type: ColType, compile: CompileChild): Compiled {
  const child = compile(e.child);
  if (child.type.type === "window") throw new AnalysisError("IN needs scalar values, but got window");
  const list = prepareInList(e.values, child.type.type);
  return { type, constant: null, run: (b) => isIn(list, child.run(b), b.numRows) };
}

export function compileCase(e: ExprOf<"case">, type: ColType, compile: CompileChild): Compiled {
  const conditions = e.branches.map((br) => compile(br.when));
  const values = [...e.branches.map((br) => compile(br.then)), ...(e.otherwise ? [compile(e.otherwise)] : [])];
  return {
    type,
    constant: null,
    run: (b) =>
      caseWhen(
        conditions.map((c) => asBool(c.run(b))),
        values.map((v) => v.run(b)),
        b.numRows,
      ),
  };
}

/** A struct's members, compiled: each field's key and its compiled value or nested struct. */
interface StructPlan {
  readonly members: readonly { readonly key: Uint8Array; readonly value: Compiled | StructPlan }[];
}

function planStruct(e: ExprOf<"struct">, compile: CompileChild): StructPlan {
  return {
    members: e.fields.map((f, i) => {
      const inner = unalias(f);
      return { key: jsonKey(structFieldName(f, i)), value: inner.kind === "struct" ? planStruct(inner, compile) : compile(f) };
    }),
  };
}

function structObject(plan: StructPlan, b: Batch): JsonObject {
  const members = plan.members.map(({ key, value }): JsonMember => {
    if ("members" in value) return { key, node: structObject(value, b) };
    if (value.type.type === "headers") return { key, node: { kind: "json", text: headersJson(wholeColumn(value, b), b.numRows) } };
    return { key, node: { kind: "leaf", type: value.type.type, vec: value.run(b) } };
  });
  return { kind: "object", members, valid: null };
}

/** The column a headers expression stands for: the analyzer lets headers through only as whole columns. */
function wholeColumn(c: Compiled, b: Batch): arrow.Data {
  const column = c.passThrough?.(b);
  if (!column) throw new InternalError("a headers expression that is not a column");
  return column;
}

/** `to_json(struct(...))`, `to_json(windowColumn)` or `to_json(headersColumn)`: the planning is done once, here. */
export function compileToJson(e: ExprOf<"toJson">, type: ColType, compile: CompileChild): Compiled {
  const child = unalias(e.child);
  if (child.kind === "struct") {
    const plan = planStruct(child, compile);
    return { type, constant: null, run: (b) => toJsonText(structObject(plan, b), b.numRows) };
  }
  const value = compile(child);
  if (value.type.type === "headers") return { type, constant: null, run: (b) => headersJson(wholeColumn(value, b), b.numRows) };
  return { type, constant: null, run: (b) => toJsonText(windowObject(asWin(value.run(b))), b.numRows) };
}
