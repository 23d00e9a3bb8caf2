import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { SluiceError } from "../../errors/errors.js";
import { committedFiles } from "../../sinks/file/committed-files.js";
import { globToRegExp } from "./glob.js";
import { osErrorText } from "./os-error.js";

export interface ListedFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface ListFilesOptions {
  /** Only file names matching this glob are listed (see `glob.ts`); null lists every data file. */
  readonly pathGlobFilter: string | null;
}

/**
 * Names Spark treats as not data: hidden files, names starting with `_` (`_SUCCESS`,
 * `_temporary`, metadata) and files still being copied in by `hadoop fs -put` (`._COPYING_`).
 */
export function isDataFileName(name: string): boolean {
  return !name.startsWith(".") && !name.startsWith("_") && !name.endsWith("._COPYING_");
}

/**
 * The data files directly inside `dir` (not in subdirectories), oldest first: by modification
 * time, then by path, which is the order a file stream source picks up new files in. A file that
 * disappears while the directory is being listed is left out.
 *
 * A folder a file sink writes (it has `_sluice_metadata`) is not listed: its data files are the
 * ones the sink's manifest lists as committed, so files of a batch that crashed half-way are not
 * read, as Spark reads a folder with `_spark_metadata`.
 */
export async function listFiles(dir: string, options: ListFilesOptions): Promise<ListedFile[]> {
  const filter = options.pathGlobFilter === null ? null : globToRegExp(options.pathGlobFilter);
  const committed = await committedFiles(dir);
  if (committed !== null) {
    return sortOldestFirst(committed.filter((f) => filter === null || filter.test(basename(f.path))).map(({ path, size, mtimeMs }) => ({ path, size, mtimeMs })));
  }
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    throw new SluiceError(`cannot list input directory ${dir}: ${osErrorText(e)}`, { cause: e });
  }
  const candidates = entries.filter(
    (entry) => !entry.isDirectory() && isDataFileName(entry.name) && (filter === null || filter.test(entry.name)),
  );
  const listed = await Promise.all(candidates.map((entry) => statFile(join(dir, entry.name))));
  return sortOldestFirst(listed.filter((f): f is ListedFile => f !== null));
}

function sortOldestFirst(files: ListedFile[]): ListedFile[] {
  return files.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Size and modification time of a regular file (following links); null when it is gone or not a file. */
async function statFile(path: string): Promise<ListedFile | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? { path, size: s.size, mtimeMs: s.mtimeMs } : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new SluiceError(`cannot read input file ${path}: ${osErrorText(e)}`, { cause: e });
  }
}

/** The files a read of `path` covers: the file itself, or the data files of the folder (see `listFiles`). */
export async function listInputFiles(path: string, options: ListFilesOptions): Promise<{ readonly path: string; readonly size: number }[]> {
  let s;
  try {
    s = await stat(path);
  } catch (e) {
    throw new SluiceError(`cannot read ${path}: ${osErrorText(e)}`, { cause: e });
  }
  return s.isDirectory() ? listFiles(path, options) : [{ path, size: s.size }];
}
