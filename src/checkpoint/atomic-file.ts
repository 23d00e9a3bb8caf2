import * as fsSync from "node:fs";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { CheckpointError } from "../errors/errors.js";

/**
 * Writes `content` to `file` only if it does not exist yet: temp file, fsync, then a hard link
 * to the final name, which fails if another writer got there first. The file is complete or
 * absent, never half-written, and an existing version is never overwritten.
 * Returns false when the file already existed.
 */
export async function writeIfAbsent(file: string, content: string): Promise<boolean> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true }).catch((e) => fail("create directory", dir, e));
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    const handle = await fs.open(tmp, "w");
    try {
      await handle.writeFile(content, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.link(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
    await syncDir(dir);
    return true;
  } catch (e) {
    if (e instanceof CheckpointError) throw e;
    return fail("write", file, e);
  } finally {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
  }
}

export async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename itself is still atomic there.
  } finally {
    await handle.close();
  }
}

export async function readTextIfExists(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    return fail("read", file, e);
  }
}

export function fail(what: string, file: string, e: unknown): never {
  const err = e as NodeJS.ErrnoException;
  throw new CheckpointError(`cannot ${what} checkpoint file ${file}: ${err.code ? `${err.code} ` : ""}${err.message}`, { cause: e });
}

/**
 * `writeIfAbsent` for the few small files written while a query starts (metadata, the lock),
 * synchronously, so that `start()` can refuse a checkpoint before it returns.
 */
export function writeIfAbsentSync(file: string, content: string): boolean {
  const dir = path.dirname(file);
  try {
    fsSync.mkdirSync(dir, { recursive: true });
  } catch (e) {
    fail("create directory", dir, e);
  }
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    const fd = fsSync.openSync(tmp, "w");
    try {
      fsSync.writeSync(fd, content);
      fsSync.fsyncSync(fd);
    } finally {
      fsSync.closeSync(fd);
    }
    try {
      fsSync.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
    return true;
  } catch (e) {
    if (e instanceof CheckpointError) throw e;
    return fail("write", file, e);
  } finally {
    fsSync.rmSync(tmp, { force: true });
  }
}

export function readTextIfExistsSync(file: string): string | null {
  try {
    return fsSync.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    return fail("read", file, e);
  }
}
