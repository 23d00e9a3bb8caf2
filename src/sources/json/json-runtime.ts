import { describeFileSplit, type FileSplit } from "../file/file-split.js";
import { FileStreamSource } from "../file/file-stream-source.js";
import { listInputFiles } from "../file/list-files.js";
import { planFileSplits } from "../file/plan-splits.js";
import type { SourceRuntime } from "../source-runtime.js";
import type { JsonSourceDesc } from "./json-desc.js";
import { readJsonSplit } from "./read-json-split.js";

export const jsonRuntime: SourceRuntime<JsonSourceDesc, FileSplit> = {
  splitKind: "file",
  openStream: (desc, ctx) =>
    new FileStreamSource(desc.path, { ...desc.options, planSplits: (files) => planFileSplits(files, desc.options.maxPartitionBytes) }, ctx.sourceDir),
  /** A file, or every data file of a folder, cut into splits of about maxPartitionBytes. */
  staticSplits: async (desc) => planFileSplits(await listInputFiles(desc.path, desc.options), desc.options.maxPartitionBytes),
  readSplit: (desc, split, metrics) => readJsonSplit(split, desc, metrics),
  describeSplit: describeFileSplit,
};
