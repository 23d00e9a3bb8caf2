import type * as arrow from "apache-arrow";
import { type Batch, makeBatch, readValidity } from "../batch/batch.js";
import type { Expr } from "../expr/ast.js";
import { evaluate, projectionFields } from "../expr/compile.js";
import { decodeJsonValues } from "../formats/index.js";
import type { Field } from "../types/dtype.js";
import { BaseExec } from "./exec.js";

/**
 * One output column per expression, named by `outputField`; a column that passes through is the
 * input's own `Data` (zero-copy).
 */
export function projectBatch(batch: Batch, exprs: readonly Expr[]): Batch {
  return makeBatch(
    projectionFields(exprs, batch.fields),
    exprs.map((e) => evaluate(e, batch)),
    batch.numRows,
  );
}

/**
 * `select`: each expression gives one column, except `from_json(col, schema)`, which parses the
 * column's JSON text straight into the schema's columns (PERMISSIVE: a malformed or null value
 * gives nulls; FAILFAST: an error naming the row).
 */
export function project(batch: Batch, exprs: readonly Expr[]): Batch {
  if (!exprs.some((e) => e.kind === "fromJson")) return projectBatch(batch, exprs);
  const fields: Field[] = [];
  const columns: arrow.Data[] = [];
  for (const e of exprs) {
    if (e.kind !== "fromJson") {
      const one = projectBatch(batch, [e]);
      fields.push(one.fields[0]!);
      columns.push(one.columns[0]!);
      continue;
    }
    const text = evaluate(e.child, batch);
    const decoded = decodeJsonValues(text.values as Uint8Array, text.valueOffsets as Int32Array, readValidity(text), e.fields, {
      mode: e.mode,
      columnNameOfCorruptRecord: "_corrupt_record",
      describeRecord: (i) => `row ${i} of the batch`,
    });
    decoded.batch.fields.forEach((f, i) => {
      fields.push({ ...f, nullable: true });
      columns.push(decoded.batch.columns[i]!);
    });
  }
  return makeBatch(fields, columns, batch.numRows);
}

/** `select` / `withColumn` / `drop` and the planner's own projections. */
export class ProjectExec extends BaseExec {
  constructor(readonly exprs: readonly Expr[]) {
    super();
  }

  process(batch: Batch): Batch {
    return project(batch, this.exprs);
  }
}
