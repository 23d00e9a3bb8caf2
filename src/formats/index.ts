export { decodeJsonLines } from "./json-lines.js";
export type { DecodeOptions, DecodeResult } from "./json-lines.js";
export { decodeJsonValues } from "./json-values.js";
export type { JsonValuesOptions, JsonValuesResult } from "./json-values.js";
export { parseIsoTimestamp } from "./iso-timestamp.js";
export { decodeParquetFile } from "./parquet-file.js";
export { decodeArrowFile } from "./arrow-file.js";
export { batchFromArrowTable, checkArrowSchema } from "./arrow-table-batch.js";
