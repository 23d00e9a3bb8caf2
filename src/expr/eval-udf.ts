import * as arrow from "apache-arrow";
import { makeBatch } from "../batch/batch.js";
import { canonicalColumn } from "../batch/canonical-column.js";
import { concatBatches } from "../batch/concat.js";
import { columnFromValues, columnValues, expectedValue } from "../batch/rows.js";
import { UdfError } from "../errors/errors.js";
import { boolColumnOf } from "../kernels/build.js";
import { dtypeOfArrow } from "../schema/arrow-types.js";
import type { ColType, DType, Field } from "../types/dtype.js";
import type { ExprOf, UdfRef } from "./ast.js";
import type { CompileChild } from "./compile-nodes.js";
import { type Compiled, dataOf, vecOf } from "./eval-vec.js";
import { describeUdf, type UdfFunction, udfFunction } from "./udf-modules.js";

/**
 * Running user-defined functions over a batch.
 *
 * - A vector UDF is called once per batch with one Arrow `Vector` per argument (columns pass
 *   through without a copy) and gives back a Vector, a typed array or an array of the batch's length.
 * - A row-wise UDF is called once per row with JavaScript values, as `collect()` gives them
 *   (timestamps as Date, binary as Uint8Array, nulls as null), and its results are checked and
 *   built into a column as `createDataFrame` builds rows: the convenient path, and the slow one
 *   (bench/micro/udf.ts measures both).
 *
 * Bound `args` come after the column arguments. Whatever the function throws becomes a UdfError
 * naming the UDF and the row, retried as any task error is.
 */
export function compileUdf(e: ExprOf<"udf">, type: ColType, compile: CompileChild): Compiled {
  const ref = e.fn;
  const fn = udfFunction(ref);
  const inputs = e.inputs.map(compile);
  const field: Field = { name: ref.name, type: type.type, nullable: type.nullable };
  const columns = (b: Parameters<Compiled["run"]>[0]) => inputs.map((c) => c.passThrough?.(b) ?? dataOf(c.run(b), c.type.type, b.numRows));
  const argumentFields = inputs.map((c, k): Field => ({ name: `argument ${k + 1} of ${ref.name}`, type: c.type.type, nullable: true }));
  if (ref.form === "row") {
    return {
      type,
      constant: null,
      run: (b) => {
        const n = b.numRows;
        const values = columns(b).map((d, k) => columnValues(d, argumentFields[k]!, n));
        const results = callPerRow(ref, fn, values, n);
        const data = columnFromValues(n, (i) => results[i], field, (row, f, v) => badResult(ref, v, `row ${row} of a batch of ${n} rows`, f, rowArguments(values, row)));
        return vecOf(data, field.type, field.name);
      },
    };
  }
  return {
    type,
    constant: null,
    run: (b) => {
      const n = b.numRows;
      const vectors = columns(b).map((d) => arrow.makeVector(d));
      let result: unknown;
      try {
        result = ref.args === null ? fn(...vectors) : fn(...vectors, ref.args);
      } catch (error) {
        throw new UdfError(`${describeUdf(ref)} failed on a batch of ${n} rows: ${messageOf(error)}`, ref.name, undefined, { cause: error });
      }
      return vecOf(vectorResult(ref, result, n, field), field.type, field.name);
    },
  };
}

function callPerRow(ref: UdfRef, fn: UdfFunction, values: readonly unknown[][], n: number): unknown[] {
  const out: unknown[] = new Array(n);
  const k = values.length;
  const call: unknown[] = new Array(k + (ref.args === null ? 0 : 1));
  if (ref.args !== null) call[k] = ref.args;
  let i = 0;
  try {
    if (k === 1 && ref.args === null) {
      const a = values[0]!;
      for (; i < n; i++) out[i] = fn(a[i]);
    } else if (k === 1) {
      const a = values[0]!;
      for (; i < n; i++) out[i] = fn(a[i], ref.args);
    } else {
      for (; i < n; i++) {
        for (let j = 0; j < k; j++) call[j] = values[j]![i];
        out[i] = fn.apply(undefined, call);
      }
    }
  } catch (error) {
    throw new UdfError(
      `${describeUdf(ref)} failed on row ${i} of a batch of ${n} rows, arguments ${rowArguments(values, i)}: ${messageOf(error)}`,
      ref.name,
      i,
      { cause: error },
    );
  }
  return out;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** One row's arguments, short, for errors. */
function rowArguments(values: readonly unknown[][], row: number): string {
  const show = (v: unknown): string => {
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
    if (v instanceof Uint8Array) return `<${v.length} bytes>`;
    if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
    if (v !== null && typeof v === "object") return "{...}";
    return String(v);
  };
  return `(${values.map((column) => show(column[row])).join(", ")})`;
}

function badResult(ref: UdfRef, v: unknown, where: string, field: Field, args?: string): UdfError {
  const promise = v !== null && typeof v === "object" && typeof (v as { then?: unknown }).then === "function";
  const problem = promise
    ? "returned a Promise: UDFs run synchronously inside expressions; prepare what it awaits outside (as args) or compute it synchronously"
    : `returned a value its type cannot hold: ${expectedValue(field, v)}`;
  return new UdfError(`${describeUdf(ref)} ${problem}, on ${where}${args === undefined ? "" : `, arguments ${args}`}`, ref.name, undefined);
}

/** Result types a vector UDF's column may widen from: a narrower number, or epoch milliseconds for a timestamp. */
function fits(got: DType, declared: DType, typedArray: boolean): boolean {
  if (got === declared) return true;
  if (declared === "float64") return got === "int32" || got === "int64";
  if (declared === "int64") return got === "int32";
  if (declared === "timestamp") return typedArray && (got === "float64" || got === "int64");
  return false;
}

const ACCEPTS: Readonly<Record<DType, string>> = {
  float64: "a Float64 Vector or a Float64Array (or narrower numbers)",
  int32: "an Int32 Vector or an Int32Array",
  int64: "an Int64 Vector, a BigInt64Array or an Int32Array",
  boolean: "a Bool Vector or a Uint8Array of 0 and 1",
  timestamp: "a Timestamp Vector, or a Float64Array or BigInt64Array of epoch milliseconds",
  string: "a Utf8 Vector or an array of strings",
  binary: "a Binary Vector or an array of Uint8Arrays",
  window: "a Vector of a struct { start, end } of timestamps",
  headers: "a Vector of headers",
};

/** The typed arrays a vector UDF may return and the Arrow type each stands for. */
function arrowTypeOfTypedArray(v: ArrayBufferView): arrow.DataType | null {
  if (v instanceof Float64Array) return new arrow.Float64();
  if (v instanceof Float32Array) return new arrow.Float32();
  if (v instanceof Int32Array) return new arrow.Int32();
  if (v instanceof Int16Array) return new arrow.Int16();
  if (v instanceof Int8Array) return new arrow.Int8();
  if (v instanceof Uint16Array) return new arrow.Uint16();
  if (v instanceof Uint32Array) return new arrow.Uint32();
  if (v instanceof BigInt64Array) return new arrow.Int64();
  return null;
}

/** Duck-typed, so a Vector of the application's own copy of apache-arrow is one too. */
function isVector(v: unknown): v is arrow.Vector {
  const x = v as { data?: unknown; type?: unknown; length?: unknown } | null;
  return x !== null && typeof x === "object" && Array.isArray(x.data) && typeof x.type === "object" && typeof x.length === "number";
}

function vectorResult(ref: UdfRef, result: unknown, n: number, field: Field): arrow.Data {
  const where = `a batch of ${n} rows`;
  const wrongLength = (got: number) => new UdfError(`${describeUdf(ref)} returned ${got} values for ${where}: a vector UDF returns one value per row`, ref.name, undefined);
  const wrongType = (got: string) =>
    new UdfError(`${describeUdf(ref)} returned ${got} for its ${field.type} result, on ${where}; it returns ${ACCEPTS[field.type]} of the batch's length`, ref.name, undefined);
  if (isVector(result)) {
    if (result.length !== n) throw wrongLength(result.length);
    let got: DType;
    try {
      got = dtypeOfArrow(result.type, field.name);
    } catch {
      throw wrongType(`a Vector of ${String(result.type)}`);
    }
    if (!fits(got, field.type, false)) throw wrongType(`a Vector of ${String(result.type)}`);
    if (!field.nullable && result.nullCount > 0) {
      throw new UdfError(`${describeUdf(ref)} returned ${result.nullCount} null(s) for its result, which is not nullable, on ${where}`, ref.name, undefined);
    }
    const chunks = result.data.map((d) => canonicalColumn(d, field.type as Exclude<DType, "window" | "headers">, field.name));
    if (chunks.length === 1) return chunks[0]!;
    return concatBatches(chunks.map((d) => makeBatch([field], [d], d.length)), [field]).columns[0]!;
  }
  if (ArrayBuffer.isView(result) && !(result instanceof DataView)) {
    const typed = result as unknown as ArrayLike<unknown>;
    if (typed.length !== n) throw wrongLength(typed.length);
    if (field.type === "boolean" && result instanceof Uint8Array) return boolColumnOf(result, null);
    const type = arrowTypeOfTypedArray(result);
    const got = type === null ? null : dtypeOfArrow(type, field.name);
    if (type === null || got === null || !fits(got, field.type, true)) throw wrongType(`a ${result.constructor.name}`);
    const data = arrow.makeData({ type, length: n, data: result } as never) as arrow.Data;
    return canonicalColumn(data, field.type as Exclude<DType, "window" | "headers">, field.name);
  }
  if (Array.isArray(result)) {
    if (result.length !== n) throw wrongLength(result.length);
    return columnFromValues(n, (i) => result[i], field, (row, f, v) => badResult(ref, v, `row ${row} of ${where}`, f));
  }
  throw wrongType(result === null || result === undefined ? String(result) : typeof result === "object" ? `an object (${(result as object).constructor?.name ?? "Object"})` : `a ${typeof result}`);
}

/**
 * A UDF as a plain function over JavaScript values, for user code that calls it itself (a
 * `transformWithState` processor): a row-wise UDF takes one value per argument and returns one
 * value; a vector UDF takes one array (or apache-arrow Vector) of values per argument and returns
 * an array. Results are checked against the declared type and given back as `collect()` gives
 * values (a timestamp as a Date), and what the function throws becomes a UdfError naming the UDF,
 * as inside an expression. The UDF's module must be imported in this process (`importUdf`).
 */
export function udfOnValues(ref: UdfRef): (...args: unknown[]) => unknown {
  const fn = udfFunction(ref);
  const field: Field = { name: ref.name, type: ref.returnType.type, nullable: ref.returnType.nullable };
  const normalized = (data: arrow.Data, n: number) => columnValues(data, field, n);
  if (ref.form === "row") {
    return (...args: unknown[]) => {
      const values = args.map((a) => [a]);
      const [result] = callPerRow(ref, fn, values, 1);
      const data = columnFromValues(1, () => result, field, (_row, f, v) => badResult(ref, v, "a call from user code", f, rowArguments(values, 0)));
      return normalized(data, 1)[0];
    };
  }
  return (...args: unknown[]) => {
    const vectors = args.map((a, k) => {
      if (isVector(a)) return a;
      if (!Array.isArray(a)) throw new UdfError(`${describeUdf(ref)}: argument ${k + 1} is ${typeof a}; a vector UDF takes an array (or Vector) of values per argument`, ref.name, undefined);
      return arrow.vectorFromArray(a);
    });
    const n = vectors[0]?.length ?? 0;
    if (vectors.some((v) => v.length !== n)) throw new UdfError(`${describeUdf(ref)}: its arguments have different lengths (${vectors.map((v) => v.length).join(", ")})`, ref.name, undefined);
    let result: unknown;
    try {
      result = ref.args === null ? fn(...vectors) : fn(...vectors, ref.args);
    } catch (error) {
      throw new UdfError(`${describeUdf(ref)} failed on ${n} values: ${messageOf(error)}`, ref.name, undefined, { cause: error });
    }
    return normalized(vectorResult(ref, result, n, field), n);
  };
}
