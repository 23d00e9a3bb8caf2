import { z } from "zod";
import { CompactibleLog } from "../../checkpoint/compactible-log.js";

/** The manifest's folder inside the sink's output folder (Spark's `_spark_metadata`). */
export const MANIFEST_DIR = "_sluice_metadata";

/** A part file a batch committed, as its manifest entry lists it. */
export interface ManifestFile {
  /** The file's name inside the output folder. */
  readonly path: string;
  readonly size: number;
  readonly numRows: number;
  /** Epoch milliseconds, as the file system reported after the file was written. */
  readonly modificationTime: number;
}

/** Entry `<batchId>` (or `<batchId>.compact`: every live file up to that batch). */
export interface ManifestEntry {
  /** The query that wrote the folder: another query's batch ids mean other data. */
  readonly queryId: string;
  readonly files: readonly ManifestFile[];
}

/** A plain file name: a manifest never points outside its folder. */
const fileName = z
  .string()
  .min(1)
  .refine((p) => !/[/\\]/.test(p) && p !== "." && p !== "..", "must be a file name inside the output folder");

const entrySchema = z.object({
  queryId: z.string().min(1),
  files: z.array(
    z.object({
      path: fileName,
      size: z.number().int().nonnegative(),
      numRows: z.number().int().nonnegative(),
      modificationTime: z.number().nonnegative(),
    }),
  ),
});

/** A compaction keeps every file the entries listed, under the writer of the newest one. */
function mergeEntries(entries: readonly ManifestEntry[]): ManifestEntry {
  return { queryId: entries[entries.length - 1]!.queryId, files: entries.flatMap((e) => e.files) };
}

/**
 * The file sink's manifest log, as Spark's FileStreamSinkLog: one entry per batch listing the part
 * files it committed, compacted every `compactInterval` batches (see `CompactibleLog`), so the
 * folder holds at most `compactInterval` entries while every committed file stays listed.
 */
export class ManifestLog extends CompactibleLog<ManifestEntry> {
  constructor(dir: string) {
    super(dir, entrySchema, mergeEntries, "file sink manifest");
  }

  /** Every committed file: the newest compact entry's and those of the entries after it. */
  async allFiles(): Promise<ManifestFile[]> {
    return (await this.entries()).flatMap((e) => e.files);
  }
}
