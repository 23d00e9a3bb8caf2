import * as arrow from "apache-arrow";
import type { Batch } from "../batch/batch.js";
import { SluiceError } from "../errors/errors.js";
import type { Fields } from "../types/dtype.js";
import { batchFromArrowTable, checkArrowSchema } from "./arrow-table-batch.js";
import { parquetWasm } from "./parquet-wasm.js";

const FORMAT = "Parquet";

/**
 * Decodes a whole Parquet file into one batch of the expected fields (matched by name, checked as
 * `batchFromArrowTable` describes; `file` names the file in errors). The file's schema is checked
 * first, and only the columns the fields name are decoded. Timestamps of any unit, UTC-adjusted or
 * not, read as epoch milliseconds; structs of two timestamps named start and end read as windows.
 */
export function decodeParquetFile(bytes: Uint8Array, fields: Fields, file: string): Batch {
  const pw = parquetWasm();
  const schema = unreadable(file, () => arrow.tableFromIPC(pw.readSchema(bytes).intoIPCStream()).schema);
  const names = new Set(schema.fields.map((f) => f.name));
  const columns = fields.filter((f) => names.has(f.name)).map((f) => f.name);
  checkArrowSchema(schema, fields, file, FORMAT);
  const table = unreadable(file, () => arrow.tableFromIPC(pw.readParquet(bytes, { columns }).intoIPCStream()));
  return batchFromArrowTable(table, fields, file, FORMAT);
}

function unreadable<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw new SluiceError(`cannot read Parquet file ${file}: ${(e as Error).message}; it is not a Parquet file or it is truncated`, { cause: e });
  }
}
