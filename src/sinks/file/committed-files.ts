import { promises as fs } from "node:fs";
import * as path from "node:path";
import { SluiceError } from "../../errors/errors.js";
import { MANIFEST_DIR, ManifestLog } from "./manifest-log.js";

export interface CommittedFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly numRows: number;
}

/**
 * The files a file sink committed in `dir` (full paths, with the size and modification time its
 * manifest recorded), or null when `dir` has no `_sluice_metadata` folder: it is not a sink's output,
 * and is listed as a plain folder. As Spark's readers do with `_spark_metadata`, only listed files
 * are data: part files of a batch that crashed before its manifest entry are never read.
 */
export async function committedFiles(dir: string): Promise<CommittedFile[] | null> {
  const manifest = path.join(dir, MANIFEST_DIR);
  try {
    if (!(await fs.stat(manifest)).isDirectory()) return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new SluiceError(`cannot read ${manifest}: ${(e as Error).message}`, { cause: e });
  }
  const files = await new ManifestLog(manifest).allFiles();
  return files.map((f) => ({ path: path.join(dir, f.path), size: f.size, mtimeMs: f.modificationTime, numRows: f.numRows }));
}
