import type * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { readValidity } from "../batch/validity.js";
import { AnalysisError, messages } from "../errors/errors.js";
import { parseTruncUnit } from "../kernels/temporal.js";
import type { ColType, Fields } from "../types/dtype.js";
import { assertNever, type Expr, type ExprOf } from "./ast.js";
import { compileArithmetic, compileCase, compileColumn, compileComparison, compileIn, compileLiteral, compileToJson } from "./compile-nodes.js";
import { negate } from "./eval-arith.js";
import { base64, byteLength, hex, unbase64 } from "./eval-binary.js";
import { castVec } from "./eval-cast.js";
import { isNull, logic, not } from "./eval-logic.js";
import { changeCase, concatText, lengthOf, substring } from "./eval-string.js";
import { dateTrunc, epochUnits, hour, secondsToTimestamp, tumblingWindow, windowTime } from "./eval-time.js";
import { asBool, asNum, asStr, asWin, type Compiled, dataOf } from "./eval-vec.js";
import { explodeOutsideSelect, splitOutsideExplode } from "./generator.js";
import { intervalOutsideTimeArithmetic } from "./interval.js";
import { intervalShift, shiftTimes } from "./time-arithmetic.js";
import { compileEncodeValues } from "./eval-encode.js";
import { compileUdf } from "./eval-udf.js";
import { requireUdfs } from "./udf-modules.js";
import { outputField, resolveType, severalColumns, structOutsideToJson } from "./resolve.js";

/**
 * Vectorized expression evaluation. An expression is compiled once per input schema into a tree
 * of closures, each of which runs one typed-array kernel over the whole batch; compiled trees are
 * cached on the expression object, so repeated batches pay no planning cost. No code is generated
 * from text, so column names and literals can never become code.
 */

const compiledByExpr = new WeakMap<Expr, Map<string, Compiled>>();
const signatureOfFields = new WeakMap<Fields, string>();

function signature(fields: Fields): string {
  let s = signatureOfFields.get(fields);
  if (s === undefined) {
    s = JSON.stringify(fields.map((f) => [f.name, f.type, f.nullable]));
    signatureOfFields.set(fields, s);
  }
  return s;
}

/** The compiled form of `expr` over `fields`, from the cache when it was compiled before. */
export function compileExpr(expr: Expr, fields: Fields): Compiled {
  let bySchema = compiledByExpr.get(expr);
  if (!bySchema) {
    bySchema = new Map();
    compiledByExpr.set(expr, bySchema);
  }
  const key = signature(fields);
  let compiled = bySchema.get(key);
  if (!compiled) {
    resolveType(expr, fields); // reports analysis errors for the whole tree before anything runs
    requireUdfs(expr); // imports what the tree's UDFs need first (PreparationNeeded), all at once
    compiled = compileNode(expr, fields);
    bySchema.set(key, compiled);
  }
  return compiled;
}

/**
 * Evaluates a scalar expression over a batch into one column. Computed columns have the canonical
 * Arrow type of the result (`arrowType`); a column that passes through (`col`, an alias of it, a
 * cast to its own type) is returned as the batch holds it, without a copy, so a dictionary-encoded
 * string column stays encoded.
 */
export function evaluate(expr: Expr, batch: Batch): arrow.Data {
  const compiled = compileExpr(expr, batch.fields);
  const column = compiled.passThrough?.(batch);
  return column ?? dataOf(compiled.run(batch), compiled.type.type, batch.numRows);
}

const projectedFields = new WeakMap<readonly Expr[], Map<string, Fields>>();

/**
 * Output fields of a projection, computed once per expression list and input schema: the same
 * object for every batch of a projection, so downstream compilation caches keep hitting.
 */
export function projectionFields(exprs: readonly Expr[], input: Fields): Fields {
  let bySchema = projectedFields.get(exprs);
  if (!bySchema) {
    bySchema = new Map();
    projectedFields.set(exprs, bySchema);
  }
  const key = signature(input);
  let fields = bySchema.get(key);
  if (!fields) {
    fields = exprs.map((e) => outputField(e, input));
    bySchema.set(key, fields);
  }
  return fields;
}

function onlyInGroupBy(what: string): AnalysisError {
  return new AnalysisError(`${what} is only allowed in groupBy(...) / agg(...), not evaluated row by row; group by it instead`);
}

function compileNode(e: Expr, fields: Fields): Compiled {
  const compile = (child: Expr): Compiled => compileNode(child, fields);
  const type = (): ColType => resolveType(e, fields);
  switch (e.kind) {
    case "col":
      return compileColumn(e.name, fields);
    case "lit":
      if (e.type === "window") throw new AnalysisError("a window value cannot be written as a literal");
      return compileLiteral(e);
    case "alias":
      return compile(e.child);
    case "arith": {
      const shift = intervalShift(e);
      if (shift === null) return compileArithmetic(e, type(), compile);
      const time = compile(shift.time);
      return { type: type(), constant: null, run: (b) => shiftTimes(asNum(time.run(b)), shift.ms, b.numRows) };
    }
    case "interval":
      throw intervalOutsideTimeArithmetic(e);
    case "explode":
      throw explodeOutsideSelect();
    case "cmp":
      return compileComparison(e, type(), compile);
    case "logic": {
      const left = compile(e.left);
      const right = compile(e.right);
      return { type: type(), constant: null, run: (b) => logic(e.op, asBool(left.run(b)), asBool(right.run(b)), b.numRows) };
    }
    case "not": {
      const child = compile(e.child);
      return { type: type(), constant: null, run: (b) => not(asBool(child.run(b)), b.numRows) };
    }
    case "isNull": {
      const child = compile(e.child);
      // A column as it is needs only its validity (headers have no vector at all).
      const column = child.passThrough;
      const nulls = (b: Batch) => {
        const data = column?.(b);
        return data ? { valid: readValidity(data) } : child.run(b);
      };
      return { type: type(), constant: null, run: (b) => isNull(nulls(b), e.negated, b.numRows) };
    }
    case "in":
      return compileIn(e, type(), compile);
    case "case":
      return compileCase(e, type(), compile);
    case "cast": {
      const child = compile(e.child);
      const from = child.type.type;
      if (from === e.to) return { ...child, type: type() };
      return { type: type(), constant: null, run: (b) => castVec(child.run(b), from, e.to, b.numRows) };
    }
    case "call":
      return compileCall(e, type(), compile);
    case "window": {
      if (e.slideMs !== e.sizeMs) throw onlyInGroupBy("a sliding window() (slide shorter than its size)");
      const time = compile(e.time);
      return { type: type(), constant: null, run: (b) => tumblingWindow(asNum(time.run(b)), e.sizeMs, e.startMs, b.numRows) };
    }
    case "sessionWindow":
      throw onlyInGroupBy("session_window()");
    case "agg":
      throw onlyInGroupBy(`the aggregate function ${e.fn}()`);
    case "decodeValues":
      throw severalColumns(e);
    case "encodeValues":
      return compileEncodeValues(e, type(), fields, compile);
    case "struct":
      throw structOutsideToJson(e);
    case "toJson":
      return compileToJson(e, type(), compile);
    case "udf":
      return compileUdf(e, type(), compile);
    default:
      return assertNever(e, "expression");
  }
}

const INT_MAX_LITERAL: Expr = { kind: "lit", value: 2 ** 31 - 1, type: "int32" };

function compileCall(e: ExprOf<"call">, type: ColType, compile: (e: Expr) => Compiled): Compiled {
  const args = e.args.map(compile);
  const arg = (k: number): Compiled => {
    if (!args[k]) throw new AnalysisError(`${e.fn}() needs at least ${k + 1} argument(s), got ${args.length}`);
    return args[k];
  };
  const make = (run: Compiled["run"]): Compiled => ({ type, constant: null, run });
  switch (e.fn) {
    case "lower":
    case "upper": {
      const s = arg(0);
      return make((b) => changeCase(asStr(s.run(b)), e.fn === "upper", b.numRows));
    }
    case "length": {
      const s = arg(0);
      if (s.type.type === "binary") return make((b) => byteLength(asStr(s.run(b)), b.numRows));
      return make((b) => lengthOf(asStr(s.run(b)), b.numRows));
    }
    case "base64": {
      const x = arg(0);
      return make((b) => base64(asStr(x.run(b)), b.numRows));
    }
    case "unbase64": {
      const x = arg(0);
      return make((b) => unbase64(asStr(x.run(b)), b.numRows));
    }
    case "hex": {
      const x = arg(0);
      return make((b) => hex(asStr(x.run(b)), b.numRows));
    }
    case "concat":
      return make((b) => concatText(args.map((a) => asStr(castVec(a.run(b), a.type.type, "string", b.numRows))), b.numRows));
    case "substring": {
      const [s, pos] = [arg(0), arg(1)];
      const len = args[2] ?? compile(INT_MAX_LITERAL);
      return make((b) => substring(asStr(s.run(b)), asNum(pos.run(b)), asNum(len.run(b)), b.numRows));
    }
    case "to_timestamp": {
      const x = arg(0);
      return make((b) => castVec(x.run(b), x.type.type, "timestamp", b.numRows));
    }
    case "date_trunc": {
      const unitText = arg(0).constant?.value;
      if (typeof unitText !== "string") throw new AnalysisError("date_trunc() needs its unit as a string literal, e.g. date_trunc(\"hour\", col)");
      const unit = parseTruncUnit(unitText);
      const ts = arg(1);
      return make((b) => dateTrunc(unit, asNum(ts.run(b)), b.numRows));
    }
    case "hour": {
      const ts = arg(0);
      return make((b) => hour(asNum(ts.run(b)), b.numRows));
    }
    case "negate": {
      const x = arg(0);
      return make((b) => negate(asNum(x.run(b)), type.type, b.numRows));
    }
    case "unix_seconds":
    case "unix_millis":
    case "unix_micros": {
      const ts = arg(0);
      const unit = e.fn === "unix_seconds" ? "seconds" : e.fn === "unix_millis" ? "millis" : "micros";
      return make((b) => epochUnits(asNum(ts.run(b)), unit, b.numRows));
    }
    case "timestamp_seconds": {
      const x = arg(0);
      return make((b) => secondsToTimestamp(asNum(x.run(b)), b.numRows));
    }
    case "window_time": {
      const w = arg(0);
      return make((b) => windowTime(asWin(w.run(b)), b.numRows));
    }
    case "split":
      throw splitOutsideExplode();
    default:
      return assertNever(e.fn, "function");
  }
}
