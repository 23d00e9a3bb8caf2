import type { Batch } from "../batch/batch.js";
import { concatBatches } from "../batch/concat.js";
import { assertNever } from "../expr/ast.js";
import { compileExpr } from "../expr/compile.js";
import type { Vec } from "../expr/eval-vec.js";
import { takeRows } from "../kernels/gather.js";
import { type NumericKey, stableOrder, stringRanks } from "../kernels/sort.js";
import type { SortKey } from "../plan/logical.js";
import { BaseExec } from "./exec.js";

/** The rows of `batch` ordered by `orders` (Spark's rules: see kernels/sort.ts). */
export function sortBatch(batch: Batch, orders: readonly SortKey[]): Batch {
  const n = batch.numRows;
  if (n <= 1 || orders.length === 0) return batch;
  const keys = orders.flatMap((o) => numericKeys(compileExpr(o.expr, batch.fields).run(batch), !o.ascending, n));
  const order = stableOrder(keys, n);
  return order === null ? batch : takeRows(batch, order);
}

/** A sort key's values as float64 keys: strings by rank, windows by start then end. */
function numericKeys(vec: Vec, descending: boolean, n: number): NumericKey[] {
  switch (vec.kind) {
    case "num":
      if (vec.words !== undefined) return int64Keys(vec.words, vec.valid, descending, n);
      return [{ values: vec.values, valid: vec.valid, descending }];
    case "bool":
      return [{ values: Float64Array.from(vec.values), valid: vec.valid, descending }];
    case "str":
      return [{ values: stringRanks(vec.strings, n), valid: vec.valid, descending }];
    case "win":
      return [
        { values: vec.start, valid: vec.valid, descending },
        { values: vec.end, valid: vec.valid, descending },
      ];
    default:
      return assertNever(vec, "vector");
  }
}

/** Exact int64 words (values beyond ±(2^53 - 1)) as two keys: the high word signed, then the low word unsigned. */
function int64Keys(words: Int32Array, valid: Uint8Array | null, descending: boolean, n: number): NumericKey[] {
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    high[i] = words[2 * i + 1]!;
    low[i] = words[2 * i]! >>> 0;
  }
  return [
    { values: high, valid, descending },
    { values: low, valid, descending },
  ];
}

/**
 * `orderBy` / `sort`: a blocking operator. It keeps the batches of a micro-batch and emits them
 * sorted when the micro-batch's input is done; on a stream that is the whole result of a
 * complete-mode aggregation, sorted anew each batch.
 */
export class SortExec extends BaseExec {
  private pending: Batch[] = [];

  constructor(readonly orders: readonly SortKey[]) {
    super();
  }

  process(batch: Batch): null {
    this.pending.push(batch);
    return null;
  }

  override onWatermark(): Batch | null {
    const batches = this.pending;
    this.pending = [];
    if (batches.length === 0) return null;
    const all = batches.length === 1 ? batches[0]! : concatBatches(batches, batches[0]!.fields);
    return sortBatch(all, this.orders);
  }
}
