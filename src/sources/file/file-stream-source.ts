import { z } from "zod";
import { CompactibleLog } from "../../checkpoint/compactible-log.js";
import { ConcurrentModificationError } from "../../errors/errors.js";
import type { Backlog, StreamSource } from "../source.js";
import { describeFileSource } from "./describe-file-source.js";
import type { FileSplit } from "./file-split.js";
import { listFiles } from "./list-files.js";

/** A file the source admitted, and the log entry (offset) that admitted it. */
const seenFileSchema = z.object({ path: z.string().min(1), size: z.number().int().min(0), entry: z.number().int().min(1) });
type SeenFile = z.infer<typeof seenFileSchema>;
const logEntrySchema = z.object({ files: z.array(seenFileSchema) });
type LogEntry = z.infer<typeof logEntrySchema>;

/** Entries between two compactions of the source log (Spark's spark.sql.streaming.fileSource.log.compactInterval). */
export const SOURCE_LOG_COMPACT_INTERVAL = 10;

/** The offset: how many log entries (batches that admitted files) there are. */
const logLength = z.number().int().min(0);

/** Which files a file stream admits, and how a batch's files become splits (one format's reader). */
export interface FileStreamOptions {
  readonly maxFilesPerTrigger: number | null;
  readonly pathGlobFilter: string | null;
  readonly planSplits: (files: readonly { readonly path: string; readonly size: number }[]) => FileSplit[];
}

/**
 * Files in a folder, as Spark's file stream source (any format: JSON lines, Parquet, Arrow IPC):
 * each trigger admits files it has not seen (oldest first, at most `maxFilesPerTrigger`),
 * recording them in its own log under the checkpoint (`sources/<i>/`), so a restarted query reads
 * exactly the same files per batch. The offset is the number of log entries. The log is compacted
 * every 10 entries, as Spark's, so it stays small while every file ever read stays known. A
 * folder a file sink writes is listed through its manifest (see list-files.ts).
 */
export class FileStreamSource implements StreamSource<number, FileSplit> {
  readonly description: string;
  private readonly log: CompactibleLog<LogEntry>;
  private seen: Set<string> | null = null;
  /** Files of the entries not yet committed (a batch to run, or to run again after a restart). */
  private pending = new Map<number, SeenFile[]>();
  private lastEntry = 0;
  /** Set by an availableNow run: the only new files it admits (those there when it started), as Spark's. */
  private availableNowFiles: ReadonlySet<string> | null = null;

  constructor(
    private readonly dir: string,
    private readonly options: FileStreamOptions,
    logDir: string,
  ) {
    this.description = describeFileSource(dir);
    this.log = new CompactibleLog(logDir, logEntrySchema, (entries) => ({ files: entries.flatMap((e) => e.files) }), "file source log");
  }

  parseOffset(value: unknown): number {
    return logLength.parse(value);
  }

  initialOffset(): number {
    return 0;
  }

  private async load(): Promise<Set<string>> {
    if (this.seen) return this.seen;
    const seen = new Set<string>();
    for (const entry of await this.log.entries()) {
      for (const f of entry.files) {
        seen.add(f.path);
        this.admit(f);
      }
    }
    this.lastEntry = (await this.log.latest())?.batchId ?? 0;
    this.seen = seen;
    return seen;
  }

  private admit(f: SeenFile): void {
    const files = this.pending.get(f.entry);
    if (files) files.push(f);
    else this.pending.set(f.entry, [f]);
  }

  private async newFiles(): Promise<{ path: string; size: number }[]> {
    const seen = await this.load();
    const files = await listFiles(this.dir, { pathGlobFilter: this.options.pathGlobFilter });
    const bound = this.availableNowFiles;
    return files.filter((f) => !seen.has(f.path) && (bound === null || bound.has(f.path))).map((f) => ({ path: f.path, size: f.size }));
  }

  async prepareForTriggerAvailableNow(): Promise<void> {
    this.availableNowFiles = new Set((await this.newFiles()).map((f) => f.path));
  }

  async latestOffset(from: number): Promise<number> {
    await this.load();
    const entry = from + 1;
    // A batch planned before a crash already has its entry: reuse it so the re-run reads the same files.
    if (entry <= this.lastEntry) return entry;
    const fresh = await this.newFiles();
    if (fresh.length === 0) return from;
    const admitted = (this.options.maxFilesPerTrigger ? fresh.slice(0, this.options.maxFilesPerTrigger) : fresh).map((f) => ({ ...f, entry }));
    const existing = await this.log.add(entry, { files: admitted }, SOURCE_LOG_COMPACT_INTERVAL);
    if (existing !== null) {
      throw new ConcurrentModificationError(`${existing} was written by another run of this query while this one admitted entry ${entry}; two runs share the checkpoint`);
    }
    for (const f of admitted) {
      this.seen!.add(f.path);
      this.admit(f);
    }
    this.lastEntry = entry;
    return entry;
  }

  async reportLatestOffset(): Promise<number> {
    await this.load();
    const waiting = (await this.newFiles()).length;
    return waiting > 0 ? this.lastEntry + 1 : this.lastEntry;
  }

  /** Files admitted after `from` but not yet read, and files not yet admitted. */
  async backlog(from: number): Promise<Backlog> {
    await this.load();
    const admitted = [...this.pending].flatMap(([entry, files]) => (entry > from ? files : []));
    const waiting = [...admitted, ...(await this.newFiles())].filter((f) => f.size > 0);
    return { files: waiting.length, bytes: waiting.reduce((n, f) => n + f.size, 0) };
  }

  async planSplits(start: number, end: number): Promise<readonly FileSplit[]> {
    await this.load();
    const files: SeenFile[] = [];
    for (let id = start + 1; id <= end; id++) files.push(...(this.pending.get(id) ?? []));
    return this.options.planSplits(files);
  }

  /** Entries up to `end` are done: only their paths stay known. */
  commit(end: number): void {
    for (const id of [...this.pending.keys()]) if (id <= end) this.pending.delete(id);
  }

  async stop(): Promise<void> {}
}
