import { promises as fs } from "node:fs";
import * as path from "node:path";
import type { z } from "zod";
import { CheckpointError } from "../errors/errors.js";
import { fail, readTextIfExists, writeIfAbsent } from "./atomic-file.js";

/** Format version written as the first line of every log entry, as Spark's "v1". */
export const LOG_VERSION = 1;

/**
 * A folder of numbered JSON entries, one per batch (`offsets/`, `commits/`, a source's log).
 * Entries are added once and never rewritten; reading checks the version line and the JSON, and
 * errors name the file.
 */
export class BatchLog<T> {
  /** `shape` checks each entry read back; an entry of another shape is reported by file name. */
  constructor(
    readonly dir: string,
    private readonly shape?: z.ZodType<T>,
  ) {}

  fileOf(batchId: number): string {
    return path.join(this.dir, String(batchId));
  }

  /** Adds entry `batchId`; false if it was already there (the existing entry is kept). */
  add(batchId: number, value: T): Promise<boolean> {
    return writeIfAbsent(this.fileOf(batchId), `v${LOG_VERSION}\n${JSON.stringify(value)}\n`);
  }

  async get(batchId: number): Promise<T | null> {
    const file = this.fileOf(batchId);
    const text = await readTextIfExists(file);
    if (text === null) return null;
    const entry = parseEntry<unknown>(text, file);
    if (!this.shape) return entry as T;
    const checked = this.shape.safeParse(entry);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      const where = issue.path.length ? ` at ${issue.path.join(".")}` : "";
      throw new CheckpointError(`checkpoint file ${file} is corrupt: not the entry Sluice writes here (${issue.message}${where})`);
    }
    return checked.data;
  }

  /** Batch ids present, ascending; a gap in the sequence is an error. */
  async ids(): Promise<number[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      return fail("list", this.dir, e);
    }
    const ids = names.filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
    for (let i = 1; i < ids.length; i++) {
      if (ids[i] !== ids[i - 1]! + 1) {
        throw new CheckpointError(`checkpoint log ${this.dir} has a gap: batch ${ids[i - 1]} is followed by ${ids[i]}; it was modified outside Sluice`);
      }
    }
    return ids;
  }

  /** Deletes the entries before `batchId` (retention); a deleted entry is never read again. */
  async purge(batchId: number): Promise<void> {
    for (const id of await this.ids()) {
      if (id >= batchId) break;
      await fs.rm(this.fileOf(id), { force: true }).catch((e) => fail("delete", this.fileOf(id), e));
    }
  }

  async latest(): Promise<{ batchId: number; value: T } | null> {
    const ids = await this.ids();
    const last = ids.at(-1);
    if (last === undefined) return null;
    return { batchId: last, value: (await this.get(last))! };
  }
}

function parseEntry<T>(text: string, file: string): T {
  const nl = text.indexOf("\n");
  const head = nl < 0 ? text : text.slice(0, nl);
  const m = /^v(\d+)$/.exec(head.trim());
  if (!m) throw new CheckpointError(`checkpoint file ${file} is corrupt: it does not start with a version line such as "v1"`);
  const version = Number(m[1]);
  if (version > LOG_VERSION) {
    throw new CheckpointError(`checkpoint file ${file} was written by a newer Sluice (log version ${version}, this one reads up to ${LOG_VERSION}); upgrade Sluice`);
  }
  try {
    return JSON.parse(text.slice(nl + 1)) as T;
  } catch (e) {
    throw new CheckpointError(`checkpoint file ${file} is corrupt: ${(e as Error).message}`, { cause: e });
  }
}
