import { promises as fs } from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { fail } from "../../checkpoint/atomic-file.js";
import { BatchLog } from "../../checkpoint/batch-log.js";
import { CheckpointError } from "../../errors/errors.js";

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

/** How often a reader lists the folder again when an entry it listed was compacted away meanwhile. */
const READ_ATTEMPTS = 3;

/** Compact entries: the same format as plain ones, named `<batchId>.compact`. */
class CompactEntries<T> extends BatchLog<T> {
  override fileOf(batchId: number): string {
    return path.join(this.dir, `${batchId}.compact`);
  }
}

/** What the folder holds: the newest compact entry and the plain entries after it. */
interface Listing {
  readonly compact: number | null;
  readonly ids: readonly number[];
}

/**
 * The file sink's manifest log, as Spark's FileStreamSinkLog: one entry per batch listing the part
 * files it committed, written once (temp file, fsync, link; a version line first, as the checkpoint
 * logs). Every `compactInterval`-th batch (ids 9, 19, ... for 10) writes `<id>.compact` instead,
 * holding every live file, and deletes the entries before it, so the folder holds at most
 * `compactInterval` entries. Readers take the newest compact entry and the entries after it, which
 * must follow one another without a gap. A newer format, a corrupt entry or a gap is a
 * CheckpointError naming the file.
 */
export class ManifestLog {
  private readonly entries: BatchLog<ManifestEntry>;
  private readonly compacts: BatchLog<ManifestEntry>;

  constructor(readonly dir: string) {
    this.entries = new BatchLog(dir);
    this.compacts = new CompactEntries(dir);
  }

  /** The file entry `batchId` is (or would be) written to. */
  fileOf(batchId: number, compact: boolean): string {
    return compact ? this.compacts.fileOf(batchId) : this.entries.fileOf(batchId);
  }

  /** Whether `add` writes batch `batchId` as a compact entry (batches 9, 19, ... for an interval of 10, as Spark). */
  static isCompaction(batchId: number, compactInterval: number): boolean {
    return (batchId + 1) % compactInterval === 0;
  }

  /** The newest entry, or null for an empty manifest. */
  async latest(): Promise<{ readonly batchId: number; readonly entry: ManifestEntry; readonly file: string } | null> {
    return this.reading(async () => {
      const { compact, ids } = await this.list();
      const last = ids.at(-1);
      if (last === undefined && compact === null) return null;
      const batchId = last ?? compact!;
      const isCompact = last === undefined;
      return { batchId, entry: await this.read(batchId, isCompact), file: this.fileOf(batchId, isCompact) };
    });
  }

  /** Every committed file: the newest compact entry's and those of the entries after it. */
  async allFiles(): Promise<ManifestFile[]> {
    return this.reading(async () => {
      const { compact, ids } = await this.list();
      const entries = await Promise.all([...(compact === null ? [] : [this.read(compact, true)]), ...ids.map((id) => this.read(id, false))]);
      return entries.flatMap((e) => e.files);
    });
  }

  /**
   * Adds entry `batchId`, as a compact entry when `isCompaction`. Returns null, or the file of the
   * entry another writer already added for this batch (in either form; it is kept).
   */
  async add(batchId: number, entry: ManifestEntry, compactInterval: number): Promise<string | null> {
    const compact = ManifestLog.isCompaction(batchId, compactInterval);
    // A writer with another interval may have written the batch in the other form.
    const other = this.fileOf(batchId, !compact);
    if (await this.exists(other)) return other;
    if (!compact) return (await this.entries.add(batchId, entry)) ? null : this.fileOf(batchId, false);
    const live = [...(await this.allFiles()), ...entry.files];
    if (!(await this.compacts.add(batchId, { queryId: entry.queryId, files: live }))) return this.fileOf(batchId, true);
    await this.deleteBefore(batchId);
    return null;
  }

  /** Deletes entries and compact entries older than `batchId`: the compact entry holds their files. */
  private async deleteBefore(batchId: number): Promise<void> {
    for (const name of await this.names()) {
      const id = batchIdOf(name);
      if (id !== null && id < batchId) await fs.rm(path.join(this.dir, name), { force: true }).catch((e) => fail("delete", path.join(this.dir, name), e));
    }
  }

  private async exists(file: string): Promise<boolean> {
    try {
      await fs.access(file);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
      return fail("read", file, e);
    }
  }

  private async names(): Promise<string[]> {
    try {
      return await fs.readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      return fail("list", this.dir, e);
    }
  }

  private async list(): Promise<Listing> {
    const plain: number[] = [];
    let compact: number | null = null;
    for (const name of await this.names()) {
      if (/^\d+$/.test(name)) plain.push(Number(name));
      else if (/^\d+\.compact$/.test(name)) compact = Math.max(compact ?? -1, batchIdOf(name)!);
    }
    const ids = plain.filter((id) => compact === null || id > compact).sort((a, b) => a - b);
    let previous = compact ?? (ids[0] === undefined ? -1 : ids[0] - 1);
    for (const id of ids) {
      if (id !== previous + 1) {
        const missing = this.fileOf(previous + 1, false);
        throw new CheckpointError(`file sink manifest ${this.dir} has a gap: ${missing} is missing (batch ${previous} is followed by ${id}); it was modified outside Sluice`);
      }
      previous = id;
    }
    return { compact, ids };
  }

  private async read(batchId: number, compact: boolean): Promise<ManifestEntry> {
    const file = this.fileOf(batchId, compact);
    const value = await (compact ? this.compacts : this.entries).get(batchId);
    if (value === null) throw new Vanished(file);
    const parsed = entrySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CheckpointError(`file sink manifest entry ${file} is corrupt: ${issue.path.join(".") || "(entry)"} ${issue.message}`);
    }
    return parsed.data;
  }

  /** Runs a read again when an entry it listed was deleted by a compaction meanwhile (bounded). */
  private async reading<T>(read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (e) {
        if (!(e instanceof Vanished)) throw e;
        if (attempt === READ_ATTEMPTS) {
          throw new CheckpointError(`file sink manifest entry ${e.file} disappeared while the manifest was read, ${READ_ATTEMPTS} times; another process is compacting ${this.dir} faster than it can be read`);
        }
      }
    }
  }
}

/** An entry that was listed but is gone when read: a compaction deleted it. */
class Vanished extends Error {
  constructor(readonly file: string) {
    super(`${file} disappeared`);
  }
}

/** The batch id of an entry or compact entry name; null for other names (temp files). */
function batchIdOf(name: string): number | null {
  const m = /^(\d+)(\.compact)?$/.exec(name);
  return m ? Number(m[1]) : null;
}
