import { AnalysisError, SluiceError } from "../../errors/errors.js";
import type { BatchSplit } from "../batch-split.js";
import type { SourceRuntime } from "../source-runtime.js";
import type { MemorySourceDesc, TableSourceDesc } from "./memory-desc.js";
import { MemoryStreamSource } from "./memory-stream.js";

export const memoryRuntime: SourceRuntime<MemorySourceDesc, BatchSplit> = {
  splitKind: "batch",
  openStream(desc, ctx) {
    const data = ctx.memoryStream(desc.streamId);
    if (!data) throw new SluiceError(`memory stream ${desc.streamId} belongs to another session`);
    return new MemoryStreamSource(data);
  },
  staticSplits: () => Promise.reject(new SluiceError("the memory source is a stream: read it with readStream and writeStream.start()")),
  readSplit: async (_desc, split) => split.batch,
  describeSplit,
};

export const tableRuntime: SourceRuntime<TableSourceDesc, BatchSplit> = {
  splitKind: "batch",
  openStream() {
    throw new AnalysisError("Union between streaming and batch DataFrames/Datasets is not supported");
  },
  staticSplits: async (desc, ctx) => ctx.tableBatches(desc.tableId).map((batch) => ({ kind: "batch", batch }) as const),
  readSplit: async (_desc, split) => split.batch,
  describeSplit,
};

function describeSplit(split: BatchSplit): string {
  return `an in-memory batch of ${split.batch.numRows} row(s)`;
}
