import type { Fields } from "../../types/dtype.js";

/** Files that carry their columns typed: Parquet, or Arrow IPC files. */
export type ColumnarFormat = "parquet" | "arrow";

export interface ColumnarReadOptions {
  readonly maxFilesPerTrigger: number | null;
  /** Only files whose whole name matches this glob are read, e.g. "*.parquet" (Spark's pathGlobFilter). */
  readonly pathGlobFilter: string | null;
}

/** A Parquet or Arrow IPC file, or a folder of them (a stream reads new files as they appear). */
export interface ColumnarSourceDesc {
  readonly format: ColumnarFormat;
  readonly path: string;
  /** The columns read, matched by name (see formats/arrow-table-batch.ts). */
  readonly fields: Fields;
  readonly options: ColumnarReadOptions;
}
