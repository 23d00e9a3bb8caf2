import { z } from "zod";

/** Formats of the file sink: JSON lines (Spark's JSON text), Parquet, Arrow IPC files. */
export const FILE_SINK_FORMATS = ["json", "parquet", "arrow"] as const;
export type FileSinkFormat = (typeof FILE_SINK_FORMATS)[number];

/**
 * Spark's SQL setting for how often the file sink compacts its manifest; Sluice has no session
 * configuration, so it is a writer option under Spark's name.
 */
export const COMPACT_INTERVAL = "spark.sql.streaming.fileSink.log.compactInterval";

export const fileSinkOptionsSchema = z
  .object({
    path: z
      .string({ error: `'path' is not specified: the file sink writes into a folder, set it with option("path", "/data/out")` })
      .min(1, "path must be a folder path"),
    /** Rows per part file at most; 0 puts each batch in one file (Spark's default). */
    maxRecordsPerFile: z.coerce.number().int("maxRecordsPerFile must be a whole number").nonnegative("maxRecordsPerFile must be 0 (no limit) or more").default(0),
    [COMPACT_INTERVAL]: z.coerce.number().int(`${COMPACT_INTERVAL} must be a whole number`).positive(`${COMPACT_INTERVAL} must be greater than 0`).default(10),
  })
  .strict();
export type FileSinkOptions = z.output<typeof fileSinkOptionsSchema>;
