import type { Batch } from "../../batch/batch.js";
import type { FileSinkFormat } from "../../config/file-sink-options.js";
import { encodeArrowFile } from "./encode-arrow-file.js";
import { encodeJsonLines } from "./encode-json-lines.js";
import { encodeParquet } from "./encode-parquet.js";

export interface FileFormatWriter {
  /** The part files' extension. */
  readonly extension: string;
  readonly encode: (batch: Batch) => Uint8Array;
}

export const FILE_FORMAT_WRITERS: Readonly<Record<FileSinkFormat, FileFormatWriter>> = {
  json: { extension: "json", encode: encodeJsonLines },
  parquet: { extension: "parquet", encode: encodeParquet },
  arrow: { extension: "arrow", encode: encodeArrowFile },
};
