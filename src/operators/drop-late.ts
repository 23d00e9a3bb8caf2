import { type Batch, column, readNumbers, readValidity } from "../batch/batch.js";
import { takeRows } from "../kernels/gather.js";

/**
 * Drops rows whose event time is at or before the watermark (Spark's rule for stateful operators
 * on a timestamp column) and counts them.
 */
export function dropLateRows(batch: Batch, name: string, watermarkMs: number | null): { batch: Batch; dropped: number } {
  if (watermarkMs === null || batch.numRows === 0) return { batch, dropped: 0 };
  const data = column(batch, name);
  const times = readNumbers(data);
  const valid = readValidity(data);
  const keep = new Int32Array(batch.numRows);
  let n = 0;
  for (let i = 0; i < times.length; i++) {
    if ((valid === null || valid[i]) && times[i]! <= watermarkMs) continue;
    keep[n++] = i;
  }
  if (n === batch.numRows) return { batch, dropped: 0 };
  return { batch: takeRows(batch, keep.subarray(0, n)), dropped: batch.numRows - n };
}
