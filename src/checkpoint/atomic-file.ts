import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { CheckpointError } from "../errors/errors.js";
import { ioFault } from "../faults/io-faults.js";

/**
 * Checkpoint files are written once and never overwritten: the bytes go to a temp file in the
 * same folder, which is fsynced and hard-linked to its final name (the link fails if the name is
 * taken, so of two writers exactly one wins), then the folder is fsynced so the name survives a
 * power cut. A file is complete or absent, never half-written. Every I/O error becomes a
 * `CheckpointError` that names the path.
 *
 * Most writes are asynchronous (the logs, state deltas and maintenance); the checkpoint's
 * metadata and lock are written synchronously, since `start()` checks them before it returns.
 * Both run the same steps: each operation is written once as a generator of file-system steps,
 * which a synchronous or an asynchronous runner carries out.
 */

/** Marks this process's temp files: the pid and a random token, so a reused pid never matches. */
const PROCESS_TOKEN = `${process.pid}-${randomBytes(4).toString("hex")}`;
const TEMP_SUFFIX = ".tmp";
let tempFiles = 0;

export type WriteOutcome = "written" | "exists" | "abandoned";

export interface AtomicWriteOptions {
  /** Called once half of the bytes are in the temp file: where crash tests stop a write. */
  readonly midWrite?: () => void;
  /**
   * Asked right before the file gets its final name; false abandons the write ("abandoned").
   * The name is given synchronously right after, in both flavours, so nothing can run between.
   */
  readonly stillWanted?: () => boolean;
}

/** Text, bytes, or bytes in pieces (written with one vectored write, never joined in memory). */
export type FileContent = string | Uint8Array | readonly Uint8Array[];

/**
 * Writes `content` to `file` unless it exists. Returns false when it already existed (the
 * existing file is kept).
 */
export async function writeIfAbsent(file: string, content: FileContent): Promise<boolean> {
  return (await writeFileAtomic(file, content)) === "written";
}

export function writeIfAbsentSync(file: string, content: FileContent): boolean {
  return writeFileAtomicSync(file, content) === "written";
}

export function writeFileAtomic(file: string, content: FileContent, options: AtomicWriteOptions = {}): Promise<WriteOutcome> {
  return runAsync(writeOnce(file, chunksOf(content), options));
}

export function writeFileAtomicSync(file: string, content: FileContent, options: AtomicWriteOptions = {}): WriteOutcome {
  return runSync(writeOnce(file, chunksOf(content), options));
}

/** Deletes files (a missing one is fine), then fsyncs their folders so the deletions last. */
export function removeFilesSync(files: readonly string[]): void {
  runSync(removeAll(files));
}

/** Deletes files (a missing one is fine), then fsyncs their folders so the deletions last. */
export function removeFiles(files: readonly string[]): Promise<void> {
  return runAsync(removeAll(files));
}

/** Deletes a file; a missing one is fine. */
export function removeFile(file: string): Promise<void> {
  return runAsync(removeAll([file], false));
}

/** A file's bytes; a missing file is an error too (callers know it should be there). */
export function readBytesSync(file: string): Uint8Array {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    return fail("read", file, e);
  }
}

export async function readTextIfExists(file: string): Promise<string | null> {
  try {
    return await fs.promises.readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    return fail("read", file, e);
  }
}

/** Read synchronously where `start()` checks a checkpoint before it returns (metadata, the lock). */
export function readTextIfExistsSync(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    return fail("read", file, e);
  }
}

/** Fsyncs a folder, so the names just created in it survive a power cut. */
export function syncDir(dir: string): Promise<void> {
  return runAsync(syncDirectory(dir));
}

/** The names in a folder; none when the folder does not exist. */
export function listDirectorySync(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    return fail("list", dir, e);
  }
}

export async function listDirectory(dir: string): Promise<string[]> {
  try {
    return await fs.promises.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    return fail("list", dir, e);
  }
}

/** Whether a folder entry is the temp file of a write in progress, or of one a crash cut short. */
export function isTempFile(name: string): boolean {
  return name.startsWith(".") && name.endsWith(TEMP_SUFFIX);
}

/** A temp file that no write of this process owns: a leftover of a process that died mid-write. */
export function isLeftoverTempFile(name: string): boolean {
  return isTempFile(name) && !name.includes(`.${PROCESS_TOKEN}.`);
}

export function fail(what: string, file: string, e: unknown): never {
  const err = e as NodeJS.ErrnoException;
  throw new CheckpointError(`cannot ${what} checkpoint file ${file}: ${err.code ? `${err.code} ` : ""}${err.message}`, { cause: e });
}

// ---- the operations, as steps ----

/** An open file: a descriptor (sync runner) or a FileHandle (async runner). */
type Handle = number | fs.promises.FileHandle;

type Step =
  | { readonly op: "mkdir"; readonly path: string }
  | { readonly op: "open"; readonly path: string; readonly flags: "wx" | "r" }
  | { readonly op: "write"; readonly handle: Handle; readonly chunks: readonly Uint8Array[] }
  | { readonly op: "fsync"; readonly handle: Handle }
  | { readonly op: "close"; readonly handle: Handle }
  | { readonly op: "remove"; readonly path: string };

/** Steps yield a `Step` and receive its result: the handle of "open", the bytes of "write". */
type Steps<T> = Generator<Step, T, unknown>;

function* writeOnce(file: string, chunks: readonly Uint8Array[], options: AtomicWriteOptions): Steps<WriteOutcome> {
  const dir = path.dirname(file);
  try {
    yield { op: "mkdir", path: dir };
  } catch (e) {
    return fail("create directory", dir, e);
  }
  const tmp = path.join(dir, `.${path.basename(file)}.${PROCESS_TOKEN}.${++tempFiles}${TEMP_SUFFIX}`);
  try {
    ioFault("write", file);
    const handle = (yield { op: "open", path: tmp, flags: "wx" }) as Handle;
    try {
      if (options.midWrite) {
        const half = chunks.reduce((n, c) => n + c.length, 0) >> 1;
        yield* writeAll(handle, firstBytes(chunks, half));
        options.midWrite();
        yield* writeAll(handle, withoutBytes(chunks, half));
      } else yield* writeAll(handle, chunks);
      yield { op: "fsync", handle };
    } finally {
      yield { op: "close", handle };
    }
    if (options.stillWanted && !options.stillWanted()) return "abandoned";
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return "exists";
      throw e;
    }
    yield* syncDirectory(dir);
    return "written";
  } catch (e) {
    return fail("write", file, e);
  } finally {
    try {
      yield { op: "remove", path: tmp };
    } catch {
      // A temp file that cannot be deleted is a leftover: state maintenance deletes those.
    }
  }
}

function* writeAll(handle: Handle, chunks: readonly Uint8Array[]): Steps<void> {
  // A write may take fewer bytes than it was given.
  for (let rest = chunks; rest.length > 0; ) {
    const written = (yield { op: "write", handle, chunks: rest }) as number;
    if (written <= 0) throw new Error("the file system accepted no bytes");
    rest = withoutBytes(rest, written);
  }
}

/** The chunks after their first `n` bytes. */
function withoutBytes(chunks: readonly Uint8Array[], n: number): readonly Uint8Array[] {
  let i = 0;
  while (i < chunks.length && n >= chunks[i]!.length) n -= chunks[i++]!.length;
  const rest = chunks.slice(i);
  if (n > 0) rest[0] = rest[0]!.subarray(n);
  return rest;
}

/** The first `n` bytes of the chunks. */
function firstBytes(chunks: readonly Uint8Array[], n: number): readonly Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < chunks.length && n > 0; i++) {
    out.push(chunks[i]!.length <= n ? chunks[i]! : chunks[i]!.subarray(0, n));
    n -= chunks[i]!.length;
  }
  return out;
}

function* syncDirectory(dir: string): Steps<void> {
  const handle = (yield { op: "open", path: dir, flags: "r" }) as Handle;
  try {
    yield { op: "fsync", handle };
  } catch {
    // Some filesystems refuse fsync on directories; the link itself is still atomic there.
  } finally {
    yield { op: "close", handle };
  }
}

function* removeAll(files: readonly string[], syncFolders = true): Steps<void> {
  for (const file of files) {
    try {
      yield { op: "remove", path: file };
    } catch (e) {
      fail("delete", file, e);
    }
  }
  if (!syncFolders) return;
  for (const dir of new Set(files.map((f) => path.dirname(f)))) {
    try {
      yield* syncDirectory(dir);
    } catch (e) {
      fail("sync folder of", dir, e);
    }
  }
}

// ---- the two runners ----

function runSync<T>(steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = stepSync(next.value);
    } catch (e) {
      next = steps.throw(e);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

async function runAsync<T>(steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await stepAsync(next.value);
    } catch (e) {
      next = steps.throw(e);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

function stepSync(step: Step): unknown {
  switch (step.op) {
    case "mkdir":
      return fs.mkdirSync(step.path, { recursive: true });
    case "open":
      return fs.openSync(step.path, step.flags);
    case "write":
      return fs.writevSync(step.handle as number, step.chunks as Uint8Array[]);
    case "fsync":
      return fs.fsyncSync(step.handle as number);
    case "close":
      return fs.closeSync(step.handle as number);
    case "remove":
      return fs.rmSync(step.path, { force: true });
  }
}

async function stepAsync(step: Step): Promise<unknown> {
  switch (step.op) {
    case "mkdir":
      return fs.promises.mkdir(step.path, { recursive: true });
    case "open":
      return fs.promises.open(step.path, step.flags);
    case "write":
      return (await (step.handle as fs.promises.FileHandle).writev(step.chunks as Uint8Array[])).bytesWritten;
    case "fsync":
      return (step.handle as fs.promises.FileHandle).sync();
    case "close":
      return (step.handle as fs.promises.FileHandle).close();
    case "remove":
      return fs.promises.rm(step.path, { force: true });
  }
}

const utf8 = new TextEncoder();

function chunksOf(content: FileContent): readonly Uint8Array[] {
  const chunks = typeof content === "string" ? [utf8.encode(content)] : content instanceof Uint8Array ? [content] : content;
  return chunks.filter((c) => c.length > 0);
}
