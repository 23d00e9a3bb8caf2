import type { Batch } from "../batch/batch.js";
import { AnalysisError, messages } from "../errors/errors.js";
import type { Expr } from "../expr/ast.js";
import { compileExpr } from "../expr/compile.js";
import { asBool } from "../expr/eval-vec.js";
import { takeRows } from "../kernels/gather.js";
import { SelectionScratch, selectionFromMask } from "../kernels/select.js";
import { BaseExec } from "./exec.js";

const filterScratch = new SelectionScratch();

/** The rows where `condition` is true; null counts as false. Returns `batch` itself when all pass. */
export function filterBatch(batch: Batch, condition: Expr): Batch {
  const compiled = compileExpr(condition, batch.fields);
  if (compiled.type.type !== "boolean") {
    throw new AnalysisError(messages.typeMismatch("filter()", "a boolean condition", compiled.type.type));
  }
  if (batch.numRows === 0) return batch;
  const mask = asBool(compiled.run(batch));
  const selection = selectionFromMask(mask.values, mask.valid, batch.numRows, filterScratch.get(batch.numRows));
  return selection.length === batch.numRows ? batch : takeRows(batch, selection);
}

/** `filter` / `where`: a selection vector from the compiled condition, then one gather per column. */
export class FilterExec extends BaseExec {
  constructor(readonly condition: Expr) {
    super();
  }

  process(batch: Batch): Batch {
    return filterBatch(batch, this.condition);
  }
}
