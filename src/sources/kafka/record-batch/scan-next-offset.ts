import { viewOf } from "../../../kernels/copy-bytes.js";
import { BATCH, LOG_OVERHEAD, readInt64 } from "./layout.js";

/**
 * The offset after the last complete record batch in `bytes`, read from batch headers alone (no
 * records decoded): where the next fetch can start while this one is still being decoded. Returns
 * `from` when no batch is complete.
 */
export function scanNextOffset(bytes: Uint8Array, from: number): number {
  const view = viewOf(bytes);
  let next = from;
  let pos = 0;
  while (pos + BATCH.RECORDS <= bytes.length) {
    const batchLength = view.getInt32(pos + BATCH.LENGTH);
    const end = pos + LOG_OVERHEAD + batchLength;
    if (batchLength <= 0 || end > bytes.length) break;
    const last = readInt64(view, pos + BATCH.BASE_OFFSET) + view.getInt32(pos + BATCH.LAST_OFFSET_DELTA);
    if (last + 1 > next) next = last + 1;
    pos = end;
  }
  return next;
}
