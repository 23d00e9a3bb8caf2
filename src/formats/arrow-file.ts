import * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { SluiceError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import { batchFromArrowTable } from "./arrow-table-batch.js";

/**
 * Decodes an Arrow IPC file (the random-access "file" format, `ARROW1` magic; the streaming format is
 * read too) into one batch of the expected fields, matched by name and checked as
 * `batchFromArrowTable` describes; `file` names the file in errors. Columns already in Sluice's
 * canonical types are used without a copy when the file has one record batch.
 */
export function decodeArrowFile(bytes: Uint8Array, fields: Fields, file: string): Batch {
  let table: arrow.Table;
  try {
    table = arrow.tableFromIPC(bytes);
  } catch (e) {
    throw new SluiceError(`cannot read Arrow IPC file ${file}: ${(e as Error).message}; it is not an Arrow IPC file or it is truncated`, { cause: e });
  }
  return batchFromArrowTable(table, fields, file, "Arrow IPC");
}
