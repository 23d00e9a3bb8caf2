import type { Batch } from "../../batch/batch.js";
import type { SourceDesc } from "../../plan/logical.js";
import type { InputSplit, TaskMetrics } from "../../workers/protocol.js";
import { decodeFileSplit } from "../file/index.js";

/** Reads a byte range of a JSON-lines file and decodes it straight into columns. */
export async function readJsonSplit(
  split: Extract<InputSplit, { kind: "file" }>,
  source: Extract<SourceDesc, { format: "json" }>,
  metrics: TaskMetrics,
): Promise<Batch> {
  const result = await decodeFileSplit(split, source.fields, {
    mode: source.options.mode,
    columnNameOfCorruptRecord: source.options.columnNameOfCorruptRecord,
  });
  metrics.numMalformedRecords += result.numMalformed;
  return result.batch;
}
