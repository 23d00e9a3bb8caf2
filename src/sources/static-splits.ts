import { promises as fs } from "node:fs";
import type { Batch } from "../batch/batch.js";
import { SluiceError } from "../errors/errors.js";
import type { SourceDesc } from "../plan/logical.js";
import type { InputSplit } from "../workers/protocol.js";
import { kafkaStaticSplits } from "./kafka/kafka-static-splits.js";
import { listFiles, planFileSplits } from "./file/index.js";

/** Resolves an in-memory table id to its current batches. */
export type TableLookup = (tableId: string) => readonly Batch[];

const DEFAULT_SPLIT_BYTES = 16 * 1024 * 1024;

/** All the data of a source read as a static DataFrame, as input splits. */
export async function staticSplits(desc: SourceDesc, tables: TableLookup): Promise<InputSplit[]> {
  switch (desc.format) {
    case "table":
      return tables(desc.tableId).map((batch) => ({ kind: "batch", batch }));
    case "json": {
      const stat = await fs.stat(desc.path).catch((e: NodeJS.ErrnoException) => {
        throw new SluiceError(`cannot read ${desc.path}: ${e.code ?? ""} ${e.message}`.trim(), { cause: e });
      });
      const files = stat.isDirectory() ? await listFiles(desc.path, { pathGlobFilter: desc.options.pathGlobFilter }) : [{ path: desc.path, size: stat.size }];
      const bytes = (desc.options as { maxPartitionBytes?: number }).maxPartitionBytes ?? DEFAULT_SPLIT_BYTES;
      return planFileSplits(files, bytes);
    }
    case "kafka":
      return kafkaStaticSplits(desc.options, desc.valueFields);
    case "memory":
    case "rate":
      throw new SluiceError(`the ${desc.format} source is a stream: read it with readStream and writeStream.start()`);
  }
}
