import { promises as fs } from "node:fs";
import { SluiceError } from "../../errors/errors.js";
import { decodeArrowFile } from "../../formats/arrow-file.js";
import { decodeParquetFile } from "../../formats/parquet-file.js";
import { describeFileSplit, type FileSplit } from "../file/file-split.js";
import { FileStreamSource } from "../file/file-stream-source.js";
import { listInputFiles } from "../file/list-files.js";
import type { SourceRuntime } from "../source-runtime.js";
import type { ColumnarSourceDesc } from "./columnar-desc.js";

/** A columnar file is decoded whole, by one task: its footer (Parquet) or schema (Arrow) is needed first. */
function wholeFiles(files: readonly { readonly path: string; readonly size: number }[]): FileSplit[] {
  return files.map((f) => ({ kind: "file", path: f.path, start: 0, end: f.size }));
}

async function readFile(path: string): Promise<Uint8Array> {
  try {
    return await fs.readFile(path);
  } catch (e) {
    throw new SluiceError(`cannot read input file ${path}: ${(e as NodeJS.ErrnoException).code ?? ""} ${(e as Error).message}`.trim(), { cause: e });
  }
}

export const columnarRuntime: SourceRuntime<ColumnarSourceDesc, FileSplit> = {
  splitKind: "file",
  openStream: (desc, ctx) => new FileStreamSource(desc.path, { ...desc.options, planSplits: wholeFiles }, ctx.sourceDir),
  staticSplits: async (desc) => wholeFiles(await listInputFiles(desc.path, desc.options)),
  async readSplit(desc, split) {
    const bytes = await readFile(split.path);
    return desc.format === "parquet" ? decodeParquetFile(bytes, desc.fields, split.path) : decodeArrowFile(bytes, desc.fields, split.path);
  },
  describeSplit: describeFileSplit,
};
