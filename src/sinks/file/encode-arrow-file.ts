import * as arrow from "apache-arrow";
import type { Batch } from "../../batch/batch.js";
import { utcRecordBatch } from "./utc-record-batch.js";

/** A batch as an Arrow IPC file (the random-access format, `ARROW1` magic), uncompressed. */
export function encodeArrowFile(batch: Batch): Uint8Array {
  return arrow.tableToIPC(new arrow.Table([utcRecordBatch(batch)]), "file");
}
