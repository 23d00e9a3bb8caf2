import type * as arrow from "apache-arrow";
import { type Batch, makeBatch } from "../batch/batch.js";
import { type Expr, type ExprOf, unalias } from "../expr/ast.js";
import { compileExpr } from "../expr/compile.js";
import { asStr } from "../expr/eval-vec.js";
import { generatedField, generatorIndex, splitArgs } from "../expr/generator.js";
import { stringColumnOf } from "../kernels/build.js";
import { takeRows } from "../kernels/gather.js";
import { splitPieces } from "../kernels/split.js";
import type { Field } from "../types/dtype.js";
import { BaseExec } from "./exec.js";
import { projectBatch } from "./project-exec.js";

/**
 * Spark's Generate of `explode(split(str, pattern, limit))` under the select that holds it: the
 * split runs over the whole batch into one flat column of pieces and the input row of each, the
 * other select expressions are evaluated once per input row and gathered by those rows, so no
 * array is ever built per row.
 */
export function generateBatch(batch: Batch, exprs: readonly Expr[]): Batch {
  const at = generatorIndex(exprs);
  const { str, pattern, limit } = splitArgs(unalias(exprs[at]!) as ExprOf<"explode">);
  const text = compileExpr(str, batch.fields);
  const vec = asStr(text.run(batch));
  const pieces = splitPieces(vec.strings, vec.valid, batch.numRows, pattern, limit);
  const others = exprs.filter((_, i) => i !== at);
  const repeated = takeRows(projectBatch(batch, others), pieces.rows);
  const fields: Field[] = [...repeated.fields];
  const columns: arrow.Data[] = [...repeated.columns];
  fields.splice(at, 0, generatedField(exprs[at]!, batch.fields));
  columns.splice(at, 0, stringColumnOf(pieces.offsets, pieces.bytes, null));
  return makeBatch(sameFields(fields, exprs, batch), columns, pieces.rows.length);
}

/** The select's fields as one object per expression list and schema, so downstream caches keep hitting. */
const fieldsByList = new WeakMap<readonly Expr[], Map<string, readonly Field[]>>();
function sameFields(fields: Field[], exprs: readonly Expr[], batch: Batch): readonly Field[] {
  let bySchema = fieldsByList.get(exprs);
  if (!bySchema) fieldsByList.set(exprs, (bySchema = new Map()));
  const key = JSON.stringify(batch.fields);
  const hit = bySchema.get(key);
  if (hit) return hit;
  bySchema.set(key, fields);
  return fields;
}

/** `select(..., explode(split(...)).alias(name), ...)`. */
export class GenerateExec extends BaseExec {
  constructor(readonly exprs: readonly Expr[]) {
    super();
  }

  process(batch: Batch): Batch {
    return generateBatch(batch, this.exprs);
  }
}
