import { promises as fs } from "node:fs";
import * as path from "node:path";
import type { z } from "zod";
import { CheckpointError } from "../errors/errors.js";
import { fail } from "./atomic-file.js";
import { BatchLog } from "./batch-log.js";

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

/** How often a reader lists the folder again when an entry it listed was compacted away meanwhile. */
const READ_ATTEMPTS = 3;

/**
 * A log of one entry per batch that must keep everything it ever recorded (the files a file sink
 * committed, the files a file source has read), as Spark's CompactibleFileStreamLog: entries are
 * written once (temp file, fsync, link; a version line first), and every `compactInterval`-th batch
 * (ids 9, 19, ... for 10) writes `<id>.compact` instead, merging every live entry, then deletes the
 * entries before it. The folder holds at most `compactInterval` entries however long the query
 * runs. Readers take the newest compact entry and the entries after it, which must follow one
 * another without a gap. A newer format, an entry of another shape or a gap is a CheckpointError
 * naming the file.
 */
export class CompactibleLog<E> {
  private readonly plain: BatchLog<E>;
  private readonly compacts: BatchLog<E>;

  constructor(
    readonly dir: string,
    shape: z.ZodType<E>,
    /** One entry holding what `entries` hold, oldest first (the compact entry). */
    private readonly merge: (entries: readonly E[]) => E,
    /** How errors name the log, e.g. "file sink manifest". */
    private readonly what: string,
  ) {
    this.plain = new BatchLog(dir, shape);
    this.compacts = new CompactEntries(dir, shape);
  }

  /** The file entry `batchId` is (or would be) written to. */
  fileOf(batchId: number, compact: boolean): string {
    return compact ? this.compacts.fileOf(batchId) : this.plain.fileOf(batchId);
  }

  /** Whether batch `batchId` is written as a compact entry (batches 9, 19, ... for an interval of 10, as Spark). */
  static isCompaction(batchId: number, compactInterval: number): boolean {
    return (batchId + 1) % compactInterval === 0;
  }

  /** The newest entry, or null for an empty log. */
  async latest(): Promise<{ readonly batchId: number; readonly entry: E; readonly file: string } | null> {
    return this.reading(async () => {
      const { compact, ids } = await this.list();
      const last = ids.at(-1);
      if (last === undefined && compact === null) return null;
      const batchId = last ?? compact!;
      const isCompact = last === undefined;
      return { batchId, entry: await this.read(batchId, isCompact), file: this.fileOf(batchId, isCompact) };
    });
  }

  /** Everything recorded: the newest compact entry, then the entries after it, oldest first. */
  async entries(): Promise<E[]> {
    return this.reading(async () => {
      const { compact, ids } = await this.list();
      return Promise.all([...(compact === null ? [] : [this.read(compact, true)]), ...ids.map((id) => this.read(id, false))]);
    });
  }

  /**
   * Adds entry `batchId`, as a compact entry when `isCompaction`. Returns null, or the file of the
   * entry another writer already added for this batch (in either form; it is kept).
   */
  async add(batchId: number, entry: E, compactInterval: number): Promise<string | null> {
    const compact = CompactibleLog.isCompaction(batchId, compactInterval);
    // A writer with another interval may have written the batch in the other form.
    const other = this.fileOf(batchId, !compact);
    if (await this.exists(other)) return other;
    if (!compact) return (await this.plain.add(batchId, entry)) ? null : this.fileOf(batchId, false);
    if (!(await this.compacts.add(batchId, this.merge([...(await this.entries()), entry])))) return this.fileOf(batchId, true);
    await this.deleteBefore(batchId);
    return null;
  }

  /** Deletes entries and compact entries older than `batchId`: the compact entry holds what they held. */
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
        throw new CheckpointError(`${this.what} ${this.dir} has a gap: ${missing} is missing (batch ${previous} is followed by ${id}); it was modified outside Sluice`);
      }
      previous = id;
    }
    return { compact, ids };
  }

  private async read(batchId: number, compact: boolean): Promise<E> {
    const value = await (compact ? this.compacts : this.plain).get(batchId);
    if (value === null) throw new Vanished(this.fileOf(batchId, compact));
    return value;
  }

  /** Runs a read again when an entry it listed was deleted by a compaction meanwhile (bounded). */
  private async reading<T>(read: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (e) {
        if (!(e instanceof Vanished)) throw e;
        if (attempt === READ_ATTEMPTS) {
          throw new CheckpointError(`${this.what} entry ${e.file} disappeared while the log was read, ${READ_ATTEMPTS} times; another process is compacting ${this.dir} faster than it can be read`);
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
