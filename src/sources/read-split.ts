import type { Batch } from "../batch/batch.js";
import { SluiceError } from "../errors/errors.js";
import type { SourceDesc } from "../plan/logical.js";
import type { InputSplit, TaskMetrics } from "../workers/protocol.js";
import { readKafkaSplit } from "./kafka/read-kafka-split.js";
import { readJsonSplit } from "./json/read-json-split.js";
import { generateRateRows } from "./rate/generate-rate-rows.js";

/** Reads one input split into a columnar batch, in the worker that runs the task. */
export async function readInputSplit(source: SourceDesc, split: InputSplit, metrics: TaskMetrics): Promise<Batch> {
  switch (split.kind) {
    case "batch":
      return split.batch;
    case "rate":
      return generateRateRows(split);
    case "file":
      if (source.format !== "json") throw new SluiceError(`a file split cannot be read by a ${source.format} source`);
      return readJsonSplit(split, source, metrics);
    case "kafka":
      return readKafkaSplit(split, metrics);
  }
}
