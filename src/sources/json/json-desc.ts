import type { ReadMode } from "../../formats/read-mode.js";
import type { Fields } from "../../types/dtype.js";

export interface JsonReadOptions {
  readonly mode: ReadMode;
  /** Column that receives the raw text of malformed lines in PERMISSIVE mode, when present in the schema. */
  readonly columnNameOfCorruptRecord: string;
  readonly maxFilesPerTrigger: number | null;
  /** Only files whose whole name matches this glob are read, e.g. "*.jsonl" (Spark's pathGlobFilter). */
  readonly pathGlobFilter: string | null;
  /** Bytes per task when a large file is split (Spark's spark.sql.files.maxPartitionBytes). */
  readonly maxPartitionBytes: number;
}

/** JSON-lines files: a folder (streams read new files as they appear) or, for `read`, one file. */
export interface JsonSourceDesc {
  readonly format: "json";
  readonly path: string;
  readonly fields: Fields;
  readonly options: JsonReadOptions;
}
