import type { Batch } from "../batch/batch.js";
import { BaseExec } from "./exec.js";

function checkLimit(n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`limit must be a non-negative integer, got ${n}`);
}

/** The first `n` rows, without copying (Arrow slices share the buffers). */
export function limitBatch(batch: Batch, n: number): Batch {
  checkLimit(n);
  if (n >= batch.numRows) return batch;
  return { fields: batch.fields, columns: batch.columns.map((c) => c.slice(0, n)), numRows: n };
}

/**
 * `limit(n)`: the first `n` rows of each micro-batch's input, in the order they arrive (after a
 * sort, the top n). The count starts again with every micro-batch, since on a stream each
 * complete-mode result is a whole new answer.
 */
export class LimitExec extends BaseExec {
  private remaining: number;

  constructor(readonly n: number) {
    super();
    checkLimit(n);
    this.remaining = n;
  }

  process(batch: Batch): Batch | null {
    if (this.remaining === 0) return null;
    const out = limitBatch(batch, this.remaining);
    this.remaining -= out.numRows;
    return out;
  }

  override onWatermark(): null {
    this.remaining = this.n;
    return null;
  }
}
