import { promises as fs } from "node:fs";
import { SluiceError } from "../../errors/errors.js";
import type { FileSplit } from "../file/file-split.js";
import { listFiles, planFileSplits } from "../file/index.js";
import type { SourceRuntime } from "../source-runtime.js";
import type { JsonSourceDesc } from "./json-desc.js";
import { JsonFileStreamSource } from "./json-file-source.js";
import { readJsonSplit } from "./read-json-split.js";

export const jsonRuntime: SourceRuntime<JsonSourceDesc, FileSplit> = {
  splitKind: "file",
  openStream: (desc, ctx) => new JsonFileStreamSource(desc.path, desc.options, ctx.sourceDir),
  /** A file, or every data file of a folder, cut into splits of about maxPartitionBytes. */
  async staticSplits(desc) {
    const stat = await fs.stat(desc.path).catch((e: NodeJS.ErrnoException) => {
      throw new SluiceError(`cannot read ${desc.path}: ${e.code ?? ""} ${e.message}`.trim(), { cause: e });
    });
    const files = stat.isDirectory() ? await listFiles(desc.path, { pathGlobFilter: desc.options.pathGlobFilter }) : [{ path: desc.path, size: stat.size }];
    return planFileSplits(files, desc.options.maxPartitionBytes);
  },
  readSplit: (desc, split, metrics) => readJsonSplit(split, desc, metrics),
};
