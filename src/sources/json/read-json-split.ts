import type { Batch } from "../../batch/batch.js";
import type { TaskMetrics } from "../../batch/task-metrics.js";
import type { FileSplit } from "../file/file-split.js";
import { decodeFileSplit } from "../file/index.js";
import type { JsonSourceDesc } from "./json-desc.js";

/** Reads a byte range of a JSON-lines file and decodes it straight into columns. */
export async function readJsonSplit(
  split: FileSplit,
  source: JsonSourceDesc,
  metrics: TaskMetrics,
): Promise<Batch> {
  const result = await decodeFileSplit(split, source.fields, {
    mode: source.options.mode,
    columnNameOfCorruptRecord: source.options.columnNameOfCorruptRecord,
  });
  metrics.numMalformedRecords += result.numMalformed;
  return result.batch;
}
