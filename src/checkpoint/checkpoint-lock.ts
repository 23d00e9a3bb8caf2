import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CheckpointError, ConcurrentModificationError } from "../errors/errors.js";
import { fail, readTextIfExistsSync, writeIfAbsentSync } from "./atomic-file.js";

/** Who holds a checkpoint: written into the lock file. */
export interface LockHolder {
  readonly queryId: string;
  readonly runId: string;
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
}

/** How often a holder renews its lease, and how old a lease of another host must be to count as abandoned. */
const LEASE_RENEW_MS = 10_000;
const LEASE_EXPIRY_MS = 60_000;
/** Rounds of "look, then claim the next number" before giving up on a lock that keeps changing hands. */
const MAX_CLAIM_ROUNDS = 8;

const RELEASED = ".released";

/**
 * The lock of a checkpoint folder (`<checkpoint>/.lock/`), held by the one run of a query that
 * may write to it. A second query, in this process or another, is refused at `start()`.
 *
 * The lock is a sequence of numbered lease files: whoever holds the highest number holds the
 * lock, and a holder's number is never reused. Taking the lock creates the next number with an
 * exclusive create, so of two processes that race for it exactly one wins, and after winning
 * each checks that its number is still the highest (a slower process with an older view can
 * only create a lower one). A clean stop marks the lease `<n>.released`.
 *
 * A lease left by a killed process is taken over: on the same host when its process is gone
 * (pid check), on another host sharing the folder when it has not been renewed for a minute
 * (the holder renews it every 10 s). A live holder is never shared: the run checks before every
 * log write that its lease is still the highest, and stops with a ConcurrentModificationError
 * if another run took over.
 */
export class CheckpointLock {
  private renewal: NodeJS.Timeout | null = null;
  private released = false;

  private constructor(
    readonly dir: string,
    readonly number: number,
    readonly holder: LockHolder,
  ) {}

  /** Takes the lock of the checkpoint at `root`, or throws a CheckpointError naming the folder and its holder. */
  static acquire(root: string, holder: Omit<LockHolder, "pid" | "host" | "startedAt">): CheckpointLock {
    const dir = path.join(root, ".lock");
    const me: LockHolder = { ...holder, pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const highest = highestLease(dir);
      if (highest !== null && !highest.released) {
        const other = readHolder(dir, highest.number);
        if (other !== null && isAlive(other, leaseFile(dir, highest.number))) throw inUse(root, other);
      }
      const number = highest === null ? 0 : highest.number + 1;
      if (!writeIfAbsentSync(leaseFile(dir, number), `${JSON.stringify(me)}\n`)) continue;
      const now = highestLease(dir);
      if (now === null || now.number !== number) {
        fs.rmSync(leaseFile(dir, number), { force: true });
        continue;
      }
      const lock = new CheckpointLock(dir, number, me);
      lock.removeOlder();
      lock.startRenewal();
      return lock;
    }
    throw new CheckpointError(`checkpoint ${root}: its lock in ${dir} changed hands ${MAX_CLAIM_ROUNDS} times while this query tried to take it; another process keeps starting queries on it`);
  }

  /** Throws a ConcurrentModificationError when another run has taken the checkpoint over. */
  verify(): void {
    if (this.released) throw new ConcurrentModificationError(`the lock of checkpoint ${path.dirname(this.dir)} was released; this run may not write to it any more`);
    const highest = highestLease(this.dir);
    if (highest === null || highest.number !== this.number || highest.released) {
      const other = highest === null ? null : readHolder(this.dir, highest.number);
      throw new ConcurrentModificationError(
        `Multiple streaming queries are concurrently using ${path.dirname(this.dir)}: ` +
          (other ? `query ${other.queryId} (run ${other.runId}, process ${other.pid} on ${other.host}) took its lock over` : "its lock is gone") +
          `; this run (query ${this.holder.queryId}, run ${this.holder.runId}) stops without writing`,
      );
    }
  }

  /** Marks the lease released, so the next start takes the lock at once. */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
    writeIfAbsentSync(leaseFile(this.dir, this.number) + RELEASED, "");
  }

  private startRenewal(): void {
    const file = leaseFile(this.dir, this.number);
    this.renewal = setInterval(() => {
      const now = new Date();
      fs.utimes(file, now, now, () => {
        // A lease that cannot be renewed is found out by the next verify() or by another host taking over.
      });
    }, LEASE_RENEW_MS);
    this.renewal.unref();
  }

  /** Older leases are history; removing them keeps the folder small (never the holder's own). */
  private removeOlder(): void {
    for (const name of listNames(this.dir)) {
      const n = Number.parseInt(name, 10);
      if (Number.isInteger(n) && n < this.number) fs.rmSync(path.join(this.dir, name), { force: true });
    }
  }
}

function leaseFile(dir: string, n: number): string {
  return path.join(dir, String(n));
}

function listNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    return fail("list", dir, e);
  }
}

function highestLease(dir: string): { number: number; released: boolean } | null {
  const names = listNames(dir);
  let highest = -1;
  for (const name of names) if (/^\d+$/.test(name)) highest = Math.max(highest, Number(name));
  if (highest < 0) return null;
  return { number: highest, released: names.includes(`${highest}${RELEASED}`) };
}

function readHolder(dir: string, n: number): LockHolder | null {
  const file = leaseFile(dir, n);
  const text = readTextIfExistsSync(file);
  if (text === null) return null;
  try {
    return JSON.parse(text) as LockHolder;
  } catch (e) {
    throw new CheckpointError(`checkpoint lock ${file} is corrupt (${(e as Error).message}); if no query runs on this checkpoint, delete the file`, { cause: e });
  }
}

/** A holder on this host is alive while its process is; one on another host while it renews its lease. */
function isAlive(holder: LockHolder, file: string): boolean {
  if (holder.host === os.hostname()) {
    try {
      process.kill(holder.pid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "EPERM";
    }
  }
  try {
    return Date.now() - fs.statSync(file).mtimeMs < LEASE_EXPIRY_MS;
  } catch {
    return false;
  }
}

function inUse(root: string, other: LockHolder): CheckpointError {
  const where = other.pid === process.pid && other.host === os.hostname() ? "in this process" : `in process ${other.pid} on ${other.host}`;
  return new CheckpointError(
    `checkpoint ${root} is in use by query ${other.queryId} (run ${other.runId}, started ${other.startedAt} ${where}); ` +
      "a checkpoint serves one running query: stop that query first, or give this one its own checkpointLocation",
  );
}
