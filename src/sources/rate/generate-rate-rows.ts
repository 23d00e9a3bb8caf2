import { type Batch, int64FromNumbers, makeBatch, timestampColumn } from "../../batch/batch.js";
import type { Fields } from "../../types/dtype.js";
import type { RateSplit } from "./rate-desc.js";

export const RATE_FIELDS: Fields = [
  { name: "timestamp", type: "timestamp", nullable: false },
  { name: "value", type: "int64", nullable: false },
];

/**
 * The rows of one rate-source partition: every value v in [startSeq, endSeq) with
 * v mod numPartitions = partition, stamped startTime + v / rowsPerSecond seconds.
 */
export function generateRateRows(split: RateSplit): Batch {
  const { partition, numPartitions, startSeq, endSeq, rowsPerSecond, startTimeMs } = split;
  const first = startSeq + ((partition - (startSeq % numPartitions) + numPartitions) % numPartitions);
  const n = first >= endSeq ? 0 : Math.ceil((endSeq - first) / numPartitions);
  const values = new Float64Array(n);
  const times = new Float64Array(n);
  for (let i = 0, v = first; i < n; i++, v += numPartitions) {
    values[i] = v;
    times[i] = startTimeMs + Math.floor((v * 1000) / rowsPerSecond);
  }
  return makeBatch(RATE_FIELDS, [timestampColumn(times), int64FromNumbers(values)], n);
}
