import { promises as fs } from "node:fs";
import * as path from "node:path";
import { type Batch, makeBatch } from "../../batch/batch.js";
import { syncDir } from "../../checkpoint/atomic-file.js";
import type { FileSinkFormat } from "../../config/file-sink-options.js";
import { AnalysisError, CheckpointError, SluiceError } from "../../errors/errors.js";
import { crashPoint } from "../../faults/crash-points.js";
import type { Fields } from "../../types/dtype.js";
import type { Sink, SinkContext } from "../sink.js";
import { FILE_FORMAT_WRITERS, type FileFormatWriter } from "./file-formats.js";
import { MANIFEST_DIR, type ManifestFile, ManifestLog } from "./manifest-log.js";
import { partFileName } from "./part-file-name.js";
import { writeDataFile } from "./write-data-file.js";

export interface FileSinkConfig {
  readonly format: FileSinkFormat;
  /** The output folder. */
  readonly path: string;
  /** Rows per part file at most; 0 for no limit. */
  readonly maxRecordsPerFile: number;
  /** Every this many batches the manifest is compacted. */
  readonly compactInterval: number;
}

/**
 * Writes each batch into part files in a folder, as Spark's FileStreamSink (append mode only):
 * the batch's files are written durably, then entry `<batchId>` of the manifest under
 * `<path>/_sluice_metadata/` lists them. Readers of the folder take only the files the manifest
 * lists, so a batch is in the output entirely or not at all. Idempotent by batch id: a batch
 * the manifest already holds is skipped, so a batch that runs again after a crash is written once.
 * Runs on the driver, one task (one file, or several under `maxRecordsPerFile`) per batch.
 */
export class FileSink implements Sink {
  readonly guarantee = "idempotent" as const;
  readonly requiresCheckpoint = true;
  readonly description: string;
  private readonly writer: FileFormatWriter;
  private readonly manifest: ManifestLog;
  private queryId: string | null = null;
  /** The last batch id in the manifest (null: none yet), known from `open()` on. */
  private lastBatchId: number | null = null;

  constructor(
    private readonly config: FileSinkConfig,
    fields: Fields,
  ) {
    this.description = `FileSink[${config.path}]`;
    this.writer = FILE_FORMAT_WRITERS[config.format];
    this.manifest = new ManifestLog(path.join(config.path, MANIFEST_DIR));
    const seen = new Set<string>();
    for (const f of fields) {
      if (seen.has(f.name)) throw new AnalysisError(`Found duplicate column(s) in the data to save: \`${f.name}\`; rename one with alias() before writing to ${config.path}`);
      seen.add(f.name);
    }
  }

  describe(): string {
    return `${this.description} (idempotent: a batch's ${this.config.format} files count once ${this.manifest.dir} lists them, and a batch id already listed is skipped)`;
  }

  /**
   * Creates the folder and reads where the manifest ends. A manifest written by another query is
   * refused: its batch ids are not this query's, and skipping "already written" ids would lose data.
   */
  async open(context: SinkContext): Promise<void> {
    await fs.mkdir(this.config.path, { recursive: true }).catch((e: Error) => {
      throw new SluiceError(`cannot create the output folder ${this.config.path}: ${e.message}`, { cause: e });
    });
    const latest = await this.manifest.latest();
    if (latest && latest.entry.queryId !== context.queryId) {
      throw new CheckpointError(
        `${latest.file} was written by query ${latest.entry.queryId}, not by this query (${context.queryId}): ${this.config.path} holds another query's output. ` +
          `Write to a new path, or run that query from its own checkpointLocation.`,
      );
    }
    this.queryId = context.queryId;
    this.lastBatchId = latest?.batchId ?? null;
  }

  async addBatch(batchId: number, data: Batch): Promise<void> {
    if (this.queryId === null) throw new SluiceError(`${this.description}: addBatch(${batchId}) before open(); the query opens its sink first`);
    const last = this.lastBatchId;
    if (last !== null && batchId <= last) return;
    if (last !== null && batchId > last + 1) {
      throw new CheckpointError(
        `${this.manifest.fileOf(last + 1, false)} is missing: the manifest ends at batch ${last} but the query is writing batch ${batchId}; the checkpoint and ${this.config.path} do not belong together`,
      );
    }
    const files = await this.writeParts(batchId, data);
    crashPoint("fileSinkBeforeManifest", batchId);
    const existing = await this.manifest.add(batchId, { queryId: this.queryId, files }, this.config.compactInterval);
    if (existing !== null) {
      throw new CheckpointError(`${existing} appeared while batch ${batchId} was being written: another query writes to ${this.config.path}; give each query its own path`);
    }
    this.lastBatchId = batchId;
  }

  /** Writes the batch's part files and makes their names durable; returns them as the manifest lists them. */
  private async writeParts(batchId: number, data: Batch): Promise<ManifestFile[]> {
    const files: ManifestFile[] = [];
    const perFile = this.config.maxRecordsPerFile > 0 ? this.config.maxRecordsPerFile : Math.max(1, data.numRows);
    for (let task = 0, start = 0; start < data.numRows; task++, start += perFile) {
      const rows = Math.min(perFile, data.numRows - start);
      const name = partFileName(batchId, task, this.writer.extension);
      const written = await writeDataFile(path.join(this.config.path, name), this.writer.encode(sliceRows(data, start, rows)));
      files.push({ path: name, size: written.size, numRows: rows, modificationTime: written.mtimeMs });
    }
    if (files.length > 0) await syncDir(this.config.path);
    return files;
  }
}

/** Rows [start, start + count) of a batch, without copying (Arrow slices). */
function sliceRows(batch: Batch, start: number, count: number): Batch {
  if (start === 0 && count === batch.numRows) return batch;
  return makeBatch(
    batch.fields,
    batch.columns.map((c) => c.slice(start, count)),
    count,
  );
}
